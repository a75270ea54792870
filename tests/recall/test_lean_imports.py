"""The recall core loads nothing the prompt hook cannot afford, on every prompt a person types.

The hook must finish within 2.5x an empty interpreter's start, so importing
the term rule, the ranking, the rules, the index and the hook itself loads
no msgspec, typing, dataclasses, pathlib, collections or array (each costs
milliseconds), nothing of the CLI, and no subprocess (git is asked only when
a tied note hit). Timing is measured
by `tools/bench_terms.py`, never asserted here: a test on a busy machine
would only be flaky.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from abcd.host.hook import NEVER_LOADED

SRC = Path(__file__).resolve().parents[2] / "src"
MODULES = (
    "abcd.recall.terms",
    "abcd.recall.bm25f",
    "abcd.rules",
    "abcd.recall.engine",
    "abcd.recall.index",
    "abcd.recall.stemcache",
    "abcd.recall.machine",
    "abcd.journal.lean",
    "abcd.host.hook",
    "abcd.session.fill",
    "abcd.session.brackets",
    "abcd.bundle",
)
FORBIDDEN = frozenset(NEVER_LOADED)


def run(code: str) -> str:
    """What `code` prints in a fresh isolated interpreter that imports this tree's `abcd`."""
    done = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(SRC)!r}); {code}"],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def loaded_by(statement: str) -> set[str]:
    """The modules a fresh isolated interpreter holds after `statement`."""
    return set(run(f"{statement}; print('\\n'.join(sorted(sys.modules)))").split())


def test_the_recall_core_loads_none_of_the_costly_modules() -> None:
    loaded = loaded_by(f"import {', '.join(MODULES)}")
    assert set(MODULES) <= loaded  # this tree's package, not some other
    assert sorted(name for name in loaded if name.split(".")[0] in FORBIDDEN) == []


@pytest.mark.parametrize("module", MODULES)
def test_each_module_alone_loads_none_of_them(module: str) -> None:
    loaded = loaded_by(f"import {module}")
    assert sorted(name for name in loaded if name.split(".")[0] in FORBIDDEN) == []


def test_the_recall_core_compiles_no_pattern_at_import_nor_for_ascii_text() -> None:
    # `re` comes with the hook's `json` anyway; what costs is compiling a pattern, in every
    # process. Importing compiles none, and an ASCII prompt is read with `str.translate`,
    # domain names and summonses by hand, so matching and rendering one compiles none either.
    code = (
        "import json, re; compiled = []; original = re._compile; "
        "re._compile = lambda pattern, flags: (compiled.append(pattern), original(pattern, flags))[1]; "
        f"import {', '.join(MODULES)}; "
        "from abcd.recall.terms import Prompt; "
        "from abcd.rules import fence, parse_layer, render_rule, summoned; "
        "Prompt(\"Run the tests, don't skip *TESTING\"); summoned('*TESTING now'); "
        'parse_layer(b\'{"domains": {"TESTING": {"recall": ["test"], "rules": ["r"]}}}\', '
        "'repo', 'rules.json'); "
        "render_rule('# a heading'); fence('~~~'); "
        "print(compiled)"
    )
    assert run(code).strip() == "[]"


def test_the_repository_is_found_without_asking_git() -> None:
    loaded = loaded_by(f"import os; from abcd.repo import find_repo; find_repo({str(SRC)!r})")
    assert "subprocess" not in loaded


def test_an_ascii_prompt_loads_no_unicode_database_and_no_chain_walker() -> None:
    # `unicodedata` is a shared library, and the chain's walker serves only a journal changed
    # since its stamps: a prompt that needs neither loads neither (issue 13).
    loaded = loaded_by(
        f"import {', '.join(MODULES)}; "
        "from abcd.recall.terms import Prompt, words; "
        "Prompt(\"Run the tests, don't skip *TESTING\"); words('the deploy is flaky')"
    )
    assert {"unicodedata", "abcd.journal.chain"} & loaded == set()


def test_text_that_is_not_ascii_is_still_normalised_in_a_fresh_process() -> None:
    # The lazily loaded database still reads full-width letters and ligatures as plain words.
    assert run(
        "from abcd.recall.terms import words; print(words('\\uff34\\uff45st \\ufb01le'))"
    ).strip() == ("['test', 'file']")

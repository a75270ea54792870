"""Every module of the package compiles on every supported Python, in a fresh interpreter.

The other Pythons installed here lack the package's dependencies, so most
modules cannot be imported there; compiling each source file is what they
can check, and it catches what a newer compiler refuses. Python 3.13
cleans docstrings at compile time and refused `abcd.entry`, whose docstring
held a lone surrogate written as an escape (`"\\ud800"`): the console
script could not start at all.
"""

from __future__ import annotations

import pytest

from tests.fresh import PYTHONS, SRC, run_fresh

PROBE = """
import marshal, pathlib, sys
refused = []
for path in sorted(pathlib.Path(marshal.loads(sys.stdin.buffer.read())).rglob("*.py")):
    try:
        compile(path.read_bytes(), str(path), "exec", dont_inherit=True)
    except Exception as err:
        refused.append(f"{path}: {type(err).__name__}: {err}")
sys.stdout.buffer.write(marshal.dumps(refused))
"""


@pytest.mark.parametrize("version", PYTHONS)
def test_every_module_compiles_on_every_supported_python(version: str) -> None:
    assert run_fresh(version, PROBE, str(SRC / "abcd")) == []

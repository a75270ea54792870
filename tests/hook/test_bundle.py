"""The lean commands' modules served from their bundle (`abcd.bundle`), in fresh interpreters.

A copy of the package is imported in each run (so the bundle is written
beside the copy, never beside this tree), on every supported Python
installed here: the first run writes the bundle, the next is served from
it, a module whose source changed is imported as before and the bundle
written again, and nothing is written when Python writes no bytecode.
"""

from __future__ import annotations

import json
import marshal
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest

from abcd import bundle
from tests.fresh import PYTHONS, SRC, interpreter

# Modules that import nothing outside the standard library (the other Pythons lack PyStemmer).
PLAIN = ("abcd.recall.budget", "abcd.digest", "abcd.errors")
REPORT = (
    "import sys, json\n"
    "from abcd import bundle\n"
    "b = bundle.install('prompt-router')\n"
    "import {modules}\n"
    "from abcd.recall.budget import HOST_CONTEXT_CHARS\n"
    "served = sorted(b.served)\n"
    "assert all(sys.modules[n].__spec__.loader is b for n in served)\n"
    "files = {{n: sys.modules[n].__file__ for n in served}}\n"
    "import importlib.util\n"
    "cached = all(sys.modules[n].__cached__ == importlib.util.cache_from_source(files[n])\n"
    "    for n in served)\n"
    "b.save()\n"
    "print(json.dumps({{'served': served, 'files': files, 'cached': cached,\n"
    "    'limit': HOST_CONTEXT_CHARS}}))\n"
)


# What the runs below import and report.
CODE = REPORT.format(modules=", ".join(PLAIN))


def package_copy(tmp_path: Path) -> Path:
    """A copy of this tree's `abcd`, without its bytecode, to import in place of it."""
    shutil.copytree(SRC / "abcd", tmp_path / "abcd", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def run(python: str, where: Path, code: str, *flags: str) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run(
        [python, "-I", *flags, "-c", f"import sys; sys.path.insert(0, {str(where)!r})\n{code}"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def bundles(where: Path) -> list[Path]:
    return sorted((where / "abcd" / "__pycache__").glob("lean-*.bundle"))


@pytest.mark.parametrize("version", PYTHONS)
def test_the_first_run_writes_the_bundle_and_the_next_is_served_from_it(
    version: str, tmp_path: Path
) -> None:
    python, where = interpreter(version), package_copy(tmp_path)
    first = run(python, where, CODE)
    assert first["served"] == []
    assert len(bundles(where)) == 1
    second = run(python, where, CODE)
    assert set(PLAIN) <= set(second["served"])
    # Each served module is the copy's, its `__file__` its source as the import system sets it,
    assert second["files"]["abcd.digest"] == str(where / "abcd" / "digest.py")
    assert second["cached"]  # and `__cached__` where the import system would have its `.pyc`
    assert second["limit"] == first["limit"]


@pytest.mark.parametrize("version", PYTHONS)
def test_a_module_whose_source_changed_is_imported_anew_and_the_bundle_written_again(
    version: str, tmp_path: Path
) -> None:
    python, where = interpreter(version), package_copy(tmp_path)
    run(python, where, CODE)
    run(python, where, CODE)
    budget = where / "abcd" / "recall" / "budget.py"
    budget.write_text(budget.read_text() + "\nHOST_CONTEXT_CHARS = 1234\n")
    changed = run(python, where, CODE)
    assert "abcd.recall.budget" not in changed["served"]
    assert "abcd.digest" in changed["served"]
    assert changed["limit"] == 1234
    again = run(python, where, CODE)
    assert "abcd.recall.budget" in again["served"]
    assert again["limit"] == 1234


def test_a_bundle_is_not_served_under_another_optimisation_level(tmp_path: Path) -> None:
    where = package_copy(tmp_path)
    run(sys.executable, where, CODE)
    assert run(sys.executable, where, CODE, "-O")["served"] == []  # asserts kept in its code
    assert set(PLAIN) <= set(run(sys.executable, where, CODE, "-O")["served"])
    assert len(bundles(where)) == 2


def test_nothing_is_written_when_python_writes_no_bytecode(tmp_path: Path) -> None:
    where = package_copy(tmp_path)
    result = run(sys.executable, where, CODE, "-B")
    assert result["served"] == []
    assert bundles(where) == []


@pytest.mark.parametrize(
    "damage", [b"", b"\x00garbage", b"\xe3" + bytes(40)], ids=["empty", "garbage", "cut"]
)
def test_a_damaged_bundle_is_read_around_and_written_again(tmp_path: Path, damage: bytes) -> None:
    where = package_copy(tmp_path)
    run(sys.executable, where, CODE)
    [path] = bundles(where)
    path.write_bytes(damage)
    assert run(sys.executable, where, CODE)["served"] == []
    assert set(PLAIN) <= set(run(sys.executable, where, CODE)["served"])


def test_a_bundle_cut_short_serves_only_the_code_it_still_holds(tmp_path: Path) -> None:
    where = package_copy(tmp_path)
    run(sys.executable, where, CODE)
    [path] = bundles(where)
    data = path.read_bytes()
    entries = bundle._entries(data)
    assert set(PLAIN) <= set(entries)
    path.write_bytes(data[:-1])  # the last module's code loses a byte: its entry is dropped
    held = set(bundle._entries(path.read_bytes()))
    assert len(held) == len(entries) - 1
    cut = run(sys.executable, where, CODE)
    assert set(cut["served"]) == held  # every module the run loads, but the one cut
    assert set(PLAIN) <= set(run(sys.executable, where, CODE)["served"])


def test_a_module_whose_code_is_damaged_in_the_bundle_is_compiled_from_its_source(
    tmp_path: Path,
) -> None:
    where = package_copy(tmp_path)
    run(sys.executable, where, CODE)
    [path] = bundles(where)
    entries = bundle._entries(path.read_bytes())
    entries["abcd.recall.budget"] = (*entries["abcd.recall.budget"][:4], b"\xe3damaged")
    path.write_bytes(bundle.encode(entries))
    damaged = run(sys.executable, where, CODE)
    assert "abcd.recall.budget" not in damaged["served"]
    assert damaged["limit"] == run(sys.executable, where, CODE)["limit"]
    assert set(PLAIN) <= set(run(sys.executable, where, CODE)["served"])


def test_a_bundle_others_may_write_is_not_read(tmp_path: Path) -> None:
    where = package_copy(tmp_path)
    run(sys.executable, where, CODE)
    [path] = bundles(where)
    path.chmod(0o666)
    assert run(sys.executable, where, CODE)["served"] == []


def test_the_prompt_hook_says_the_same_served_from_the_bundle(tmp_path: Path) -> None:
    where = package_copy(tmp_path / "package")
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir(mode=0o700)
    project.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["ABCD_HOME"] = str(home)
    hook = (
        f"import sys; sys.path.insert(0, {str(where)!r}); "
        "sys.argv = ['abcd', 'hook', 'prompt-router', '--json']; "
        "from abcd.entry import main; main()"
    )

    def prompt(session: str) -> tuple[str, str]:
        payload = {"session_id": session, "cwd": str(project), "prompt": "how do I deploy"}
        done = subprocess.run(
            [sys.executable, "-I", "-c", hook],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            env=env,
            cwd=project,
            check=True,
        )
        return done.stdout, done.stderr

    first = prompt("s1")
    [path] = bundles(where)
    written = path.stat().st_mtime_ns
    assert prompt("s2") == first
    assert path.stat().st_mtime_ns == written  # served whole: nothing to write again
    assert json.loads(first[0])["recalled"] == []


def test_the_prompt_hook_as_launched_loads_no_os_nor_future_once_served(tmp_path: Path) -> None:
    # As the plugin's launcher starts it: `python -S`, no `site` to have loaded `os` already.
    from tests.installed import imported_modules

    where = package_copy(tmp_path / "package")
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir(mode=0o700)
    project.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["ABCD_HOME"] = str(home)
    packages = sysconfig.get_paths()["purelib"]  # where the launcher finds PyStemmer
    hook = (
        f"import sys; sys.path.insert(0, {str(where)!r}); sys.path.append({packages!r}); "
        "sys.argv = ['abcd', 'hook', 'prompt-router']; "
        "from abcd.entry import main; main()"
    )
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".abcd" / "memory").mkdir(parents=True)
    (project / ".abcd" / "memory" / "ref_ops_deploy.md").write_text(
        "---\nrecall: [deploy]\nsummary: Deploy steps\n---\n# Deploying\n\nRun make release first.\n"
    )

    def prompt(session: str) -> tuple[str, list[str]]:
        payload = {"session_id": session, "cwd": str(project), "prompt": "how do I deploy"}
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-X", "importtime", "-c", hook],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            env=env,
            cwd=project,
            check=True,
        )
        return done.stdout, imported_modules(done.stderr)

    first, _ = prompt("s1")  # writes the bundle
    again, names = prompt("s2")
    assert "ref_ops_deploy.md" in first and again == first
    assert {"os", "stat", "posixpath", "_collections_abc", "__future__"} & set(names) == set()


# What a served run of modules written with `from __future__ import annotations` looks like.
FUTURE = (
    "import sys, json\n"
    "import abcd.entry\n"
    "from abcd import bundle\n"
    "b = bundle.install('prompt-router')\n"
    "import {modules}\n"
    "from abcd.digest import sha256_hex\n"
    "future = '__future__' in sys.modules\n"
    "served = sorted(b.served)\n"
    "b.save()\n"
    "print(json.dumps({{'future': future, 'served': served,\n"
    "    'annotations': sha256_hex.__annotations__}}))\n"
).format(modules=", ".join(PLAIN))


@pytest.mark.parametrize("version", PYTHONS)
def test_a_served_run_never_imports_the_future_module_and_keeps_annotations_as_text(
    version: str, tmp_path: Path
) -> None:
    python, where = interpreter(version), package_copy(tmp_path)
    first = run(python, where, FUTURE)  # the import system runs each module's future statement
    assert first["future"]
    second = run(python, where, FUTURE)
    assert set(PLAIN) <= set(second["served"])
    assert not second["future"]  # the statement is the compiler's flag in the bundle's code
    assert second["annotations"] == first["annotations"] == {"data": "bytes", "return": "str"}


def test_only_the_annotations_future_statement_becomes_a_flag() -> None:
    text = b'"""Doc."""\nfrom __future__ import annotations\n\ndef f(x: Undefined) -> None:\n    pass\n'
    code = bundle._compiled(text, "m.py")
    names: dict[str, Any] = {}
    exec(code, names)
    assert "annotations" not in names and "__future__" not in code.co_names
    assert names["f"].__annotations__ == {"x": "Undefined", "return": "None"}
    assert names["__doc__"] == "Doc."
    other = b"from __future__ import generator_stop\nx = 1\n"
    assert "__future__" in bundle._compiled(other, "n.py").co_names  # left to run as written


# What each module the bundle holds looks like once loaded: what the import system sets on it.
# The run settles after importing PLAIN, then imports one module more (a rarer path's).
ATTRIBUTES = (
    "import sys, json\n"
    "from abcd import bundle\n"
    "b = bundle.install('prompt-router')\n"
    "before = sorted(n for n in b.entries if n in sys.modules)\n"
    "import {modules}\n"
    "bundle.settle()\n"
    "import abcd.shapes\n"
    "def seen(m):\n"
    "    spec = m.__spec__\n"
    "    parent = sys.modules[m.__name__.rpartition('.')[0]]\n"
    "    return [m.__name__, m.__package__, m.__file__, m.__cached__,\n"
    "            getattr(m, '__path__', None), spec.name, spec.origin, spec.cached, spec.parent,\n"
    "            spec.has_location, spec.submodule_search_locations, spec.loader is m.__loader__,\n"
    "            getattr(parent, m.__name__.rpartition('.')[2]) is m]\n"
    "held = sorted(n for n in sys.modules if n.startswith('abcd.') and n not in\n"
    "    ('abcd.bundle',))\n"
    "b.save()\n"
    "print(json.dumps({{'before': before, 'eager': b.eager, 'finished': b.finished,\n"
    "    'served': sorted(b.served), 'seen': {{n: seen(sys.modules[n]) for n in held}}}}))\n"
).format(modules=", ".join(PLAIN))


@pytest.mark.parametrize("version", PYTHONS)
def test_a_served_run_loads_the_modules_before_they_are_imported_as_the_import_system_would(
    version: str, tmp_path: Path
) -> None:
    python, where = interpreter(version), package_copy(tmp_path)
    first = run(python, where, ATTRIBUTES)  # the import system loads them all
    assert first["before"] == []
    [path] = bundles(where)
    second = run(python, where, ATTRIBUTES)
    third = run(python, where, ATTRIBUTES)
    # Loaded by `install`, before any import named them: those loaded when the run settled, but a
    # package's own submodules (its code imports them), in the order they finished loading.
    eager = third["eager"]
    assert set(PLAIN) <= set(eager)
    assert sorted(third["before"]) == sorted(eager)
    assert eager == [n for n in third["finished"] if n in eager]
    # Not the module imported after the run settled: it is served when imported.
    assert "abcd.shapes" not in eager
    assert "abcd.shapes" not in third["before"]
    assert "abcd.shapes" in third["served"]
    # Each with the attributes the import system gives it, its package's attribute included.
    assert third["seen"] == first["seen"]
    assert second["seen"] == first["seen"]
    # Once the file says the order they finish in, it is not written again.
    written = path.stat().st_mtime_ns
    assert run(python, where, ATTRIBUTES)["eager"] == eager
    assert path.stat().st_mtime_ns == written


def test_a_module_that_raises_while_preloaded_raises_where_it_is_imported(tmp_path: Path) -> None:
    where = package_copy(tmp_path)
    run(sys.executable, where, ATTRIBUTES)
    run(sys.executable, where, ATTRIBUTES)
    [path] = bundles(where)
    entries, eager = bundle._contents(path.read_bytes())
    assert "abcd.recall.budget" in eager  # run ahead by `install`
    boom = marshal.dumps(compile("raise RuntimeError('boom')", "budget.py", "exec"))
    entries["abcd.recall.budget"] = (*entries["abcd.recall.budget"][:4], boom)
    path.write_bytes(bundle.encode(entries, eager))
    code = (
        f"import sys; sys.path.insert(0, {str(where)!r})\n"
        "from abcd import bundle\n"
        "b = bundle.install('prompt-router')\n"
        "print('installed', 'abcd.recall.budget' in sys.modules, flush=True)\n"
        "import abcd.recall.budget\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert done.stdout == "installed False\n"  # the preloading left it out, as a failed import
    assert done.returncode == 1
    assert 'File "<string>", line 5, in <module>' in done.stderr  # raised where it is imported
    assert "RuntimeError: boom" in done.stderr

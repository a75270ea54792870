"""tools/venv.sh, as tools/try and tools/test use it: it says what it does, and replaces a
.venv made with a Python too old for abcd instead of failing on it forever.

Each test runs the script in a copy of its own folder layout holding a tiny project
(no dependencies), so the install it does is the real one, only small.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.installed import REPO_ROOT

pytestmark = pytest.mark.slow

TINY = """[build-system]
requires = ["setuptools>=77"]
build-backend = "setuptools.build_meta"

[project]
name = "tiny"
version = "0"
license = "MIT"

[project.optional-dependencies]
dev = []

[tool.setuptools]
py-modules = []
"""


def clone(tmp_path: Path) -> Path:
    top = tmp_path / "clone"
    (top / "tools").mkdir(parents=True)
    shutil.copy(REPO_ROOT / "tools" / "venv.sh", top / "tools" / "venv.sh")
    (top / "pyproject.toml").write_text(TINY)
    return top


def venv_sh(top: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHON=sys.executable)
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run(
        ["bash", str(top / "tools" / "venv.sh")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def python_of(top: Path) -> str:
    out = subprocess.run(
        [str(top / ".venv" / "bin" / "python"), "-c", "import sys; print(sys.version_info[:2])"],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


def test_a_fresh_clone_hears_what_is_being_made_and_installed_before_it_happens(
    tmp_path: Path,
) -> None:
    top = clone(tmp_path)

    out = venv_sh(top)

    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("tools/venv.sh: making .venv with ")
    assert lines[1].startswith("tools/venv.sh: installing abcd and its dev tools into .venv")
    assert python_of(top) == str(sys.version_info[:2])


def test_a_venv_made_with_an_old_python_is_made_again_and_it_says_so(tmp_path: Path) -> None:
    top = clone(tmp_path)
    old = top / ".venv" / "bin" / "python"
    old.parent.mkdir(parents=True)
    old.write_text("#!/bin/sh\necho 3.10\n")  # answers the version question as Python 3.10 would
    old.chmod(0o755)

    out = venv_sh(top)

    assert out.returncode == 0, out.stderr
    assert (
        ".venv was made with Python 3.10; abcd needs 3.11 or later: removing it and making it again"
        in out.stdout
    )
    assert python_of(top) == str(sys.version_info[:2])


def test_an_up_to_date_venv_is_left_alone_and_nothing_is_said(tmp_path: Path) -> None:
    top = clone(tmp_path)
    assert venv_sh(top).returncode == 0

    again = venv_sh(top)

    assert again.returncode == 0
    assert again.stdout == ""


def test_every_command_tools_try_echoes_runs_as_pasted(tmp_path: Path) -> None:
    """The README's promise: each `$ ...` line tools/try prints can be pasted. Pasted here into a
    shell whose stdin never ends, as a person's terminal does not: a command that waits for
    input it was given out of sight hangs, and fails the test."""
    env = dict(os.environ, PYTHON=sys.executable)
    env.pop("ABCD_HOME", None)
    shown = subprocess.run(
        [str(REPO_ROOT / "tools" / "try")], env=env, capture_output=True, text=True, timeout=300
    )
    assert shown.returncode == 0, shown.stderr
    lines = [line[2:] for line in shown.stdout.splitlines() if line.startswith("$ ")]
    assert lines[0].startswith("export ABCD_HOME=") and lines[1].startswith("cd ")
    assert all(line.startswith("abcd ") for line in lines[2:]) and len(lines) > 8
    # The hook sent the note whole (7% used, from the status line); the diagnostic that says
    # why shows the same form, not the unknown fill's one line.
    assert "\n### mem-" in shown.stdout
    assert re.search(r"\n  #1  mem-[0-9]{16}  score [0-9.]+  full\n", shown.stdout), shown.stdout

    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "first"], cwd=project, check=True)
    bin_dir = str(Path(sys.executable).parent)
    env = dict(os.environ, ABCD_HOME=str(tmp_path / "home"), PATH=f"{bin_dir}:{os.environ['PATH']}")
    script = (
        "set -euo pipefail\n" + "\n".join(lines[2:]) + "\n"
    )  # the demo's home and folder are gone
    printed = tmp_path / "printed"
    with printed.open("w") as out, subprocess.Popen(
        ["bash", "-c", script], cwd=project, env=env, stdin=subprocess.PIPE, stdout=out,
        stderr=subprocess.STDOUT,
    ) as pasted:  # fmt: skip
        try:
            code = pasted.wait(timeout=120)  # stdin is never written to, nor closed
        except subprocess.TimeoutExpired:
            pasted.kill()
            raise AssertionError("a pasted line waited for input it was not shown") from None
    assert code == 0, printed.read_text()
    assert "journal intact: 1 event(s)" in printed.read_text()

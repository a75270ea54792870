"""tools/venv.sh, as tools/try and tools/test use it: it says what it does, and replaces a
.venv made with a Python too old for abcd instead of failing on it forever.

Each test runs the script in a copy of its own folder layout holding a tiny project
(no dependencies), so the install it does is the real one, only small.
"""

from __future__ import annotations

import os
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

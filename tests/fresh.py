"""Fresh interpreters for the lean path's tricks, on every supported Python installed here.

The hook and the status line run as new processes that have loaded almost
nothing; a test process has loaded a great deal (pytest imports `json`, for
one), which can hide what a trick does in a fresh one. So each trick is
checked in a new `python -I` with this tree's `src` on its path, on 3.11,
3.12 and 3.13 where installed (a version not installed is skipped, saying so).
"""

from __future__ import annotations

import marshal
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PYTHONS = ("3.11", "3.12", "3.13")


def interpreter(version: str) -> str:
    """An installed Python `version` that runs (pyenv's, or `python<version>` on PATH); skips if none."""
    pyenv = Path(os.environ.get("PYENV_ROOT", "/root/.pyenv"))
    found = [str(p) for p in sorted(pyenv.glob(f"versions/{version}.*/bin/python"))]
    found += [p for p in [shutil.which(f"python{version}")] if p]
    for python in found:
        if subprocess.run([python, "-I", "-c", "pass"], capture_output=True).returncode == 0:
            return python
    pytest.skip(f"Python {version} is not installed here")


def run_fresh(version: str, code: str, given: Any) -> Any:
    """What `code` writes (marshalled, to stdout) in a fresh `python -I` that reads `given`
    (marshalled) on stdin, with this tree's `abcd` importable."""
    done = subprocess.run(
        [interpreter(version), "-I", "-c", f"import sys; sys.path.insert(0, {str(SRC)!r})\n{code}"],
        input=marshal.dumps(given),
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return marshal.loads(done.stdout)

"""What a run of the real host needs from this project: a git project, `abcd` on PATH, the plugin.

The plugin's hooks call `abcd hook <name>`. Until those subcommands exist, typer
would exit 2 on them and Claude Code reads exit 2 as "block the prompt", so a run
loads the plugin's hooks only when `abcd hook --help` lists all four.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

from abcd.cli.plugin_cmd import plugin_dir
from tests.conftest import GIT_ENV

HOOKS = ("session-start", "prompt-router", "pre-compact", "pre-tool-use")
HOOKS_MISSING = (
    "needs `abcd hook session-start`, `prompt-router`, `pre-compact` and `pre-tool-use`, "
    "which `abcd hook --help` does not list yet"
)


def git(cwd: Path, *args: str) -> str:
    env = dict(os.environ, **GIT_ENV)
    out = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True, timeout=30
    )
    return out.stdout.strip()


def new_project(top: Path) -> Path:
    """A git repository with one commit, its path resolved as the host will see it."""
    top.mkdir(parents=True)
    git(top, "init", "-q", "-b", "main")
    git(top, "commit", "-q", "--allow-empty", "-m", "first")
    return top.resolve()


def put_abcd_in(folder: Path) -> Path:
    """`folder` holding only this project's `abcd`: the console script beside this interpreter."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "abcd"
    script = Path(sys.executable).with_name("abcd")
    if script.exists():
        target.symlink_to(script)
    else:
        target.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m abcd "$@"\n')
        target.chmod(0o755)
    return folder


@cache
def abcd_hooks_ready() -> bool:
    """Whether `abcd hook --help` lists every hook the plugin wires (asked once a run)."""
    with tempfile.TemporaryDirectory() as scratch:
        env = dict(os.environ, ABCD_HOME=str(Path(scratch) / "abcd-home"), HOME=scratch)
        out = subprocess.run(
            [sys.executable, "-m", "abcd", "hook", "--help"],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )
    return out.returncode == 0 and all(name in out.stdout for name in HOOKS)


def plugin_without_hooks(dest: Path) -> Path:
    """A copy of the shipped plugin with its hooks left out (manifest and command page only)."""
    shutil.copytree(plugin_dir(), dest, ignore=shutil.ignore_patterns("hooks"))
    return dest

"""What the benchmarks in `tools/` share: a timed subprocess, a session started, a repository.

Imported by the scripts beside it (they run with `tools/` first on `sys.path`).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

# The crowd home's typical prompt (`tools/bench_hook.py --crowd`: its crowd word, words every
# note's body holds, and one of the vocabulary's rare words), which the other hook benchmarks time.
TYPICAL_PROMPT = "the test is flaky after the deploy: retry the release and check the veto timeout"


def timed(
    cmd: list[str], *, stdin: str = "", env: dict[str, str] | None = None, cwd: Path | None = None
) -> float:
    """Wall seconds of one run of `cmd` (output captured, a failure raised)."""
    start = time.perf_counter()
    subprocess.run(cmd, input=stdin, text=True, env=env, cwd=cwd, capture_output=True, check=True)
    return time.perf_counter() - start


def as_installed(**extra: str) -> dict[str, str]:
    """This process's environment as a person's machine has it (bytecode written, so each lean
    command's bundle is too), with `extra` set."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(extra)
    return env


def start_session(abcd: str, session: str, project: Path | str, env: dict[str, str]) -> None:
    """Run the session-start hook (`abcd` the console script) for `session` in `project`, untimed:
    the prompt timed after it is the first of its session, as a hook sees one."""
    start = {"session_id": session, "cwd": str(project), "source": "startup"}
    subprocess.run(
        [abcd, "hook", "session-start"],
        input=json.dumps(start),
        text=True,
        capture_output=True,
        env=env,
        cwd=project,
        check=True,
    )


def at_once(cmds: list[list[str]], *, env: dict[str, str] | None = None) -> float:
    """Wall seconds from starting every one of `cmds` together to the last one's end."""
    start = time.perf_counter()
    running = [subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE) for cmd in cmds]
    for proc in running:
        proc.communicate()
    return time.perf_counter() - start


def one_commit_repo(top: Path) -> str:
    """Make `top` a git repository with one empty commit; its root commit's id."""
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="b",
        GIT_AUTHOR_EMAIL="b@example.com",
        GIT_COMMITTER_NAME="b",
        GIT_COMMITTER_EMAIL="b@example.com",
    )
    subprocess.run(["git", "init", "-q"], cwd=top, check=True)
    subprocess.run(
        ["git", "commit", "-q", "--allow-empty", "-m", "x"], cwd=top, check=True, env=env
    )
    return subprocess.run(
        ["git", "rev-list", "--max-parents=0", "HEAD"],
        cwd=top,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()

"""Every test runs in its own ABCD_HOME, with a person's HOME of its own and no host session."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings

from tests.oscalls import patch_os

# Hypothesis fails an example slower than 200 ms by default: a timing, on machines that are
# shared and noisy (a loaded CI run took 322 ms for an example that takes 7). What a property
# test holds is the property; speed is measured by the scripts in tools/.
settings.register_profile("abcd", deadline=None)
settings.load_profile("abcd")

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def _tree(folder: Path) -> dict[str, tuple[int, int]] | None:
    """Every file under `folder` (a link not followed) with its size and modification time."""
    if not folder.exists():
        return None
    return {
        str(path): (path.lstat().st_size, path.lstat().st_mtime_ns)
        for path in [folder, *folder.rglob("*")]
    }


@pytest.fixture(scope="session", autouse=True)
def the_persons_own_home_is_never_written() -> Iterator[None]:
    """The home this machine's person would use (`ABCD_HOME`, else `~/.abcd.noindex`, as the
    run starts) is the same after the whole run: a test that undid the suite's own `ABCD_HOME`
    (`monkeypatch.undo()` undoes the autouse fixture's too) once wrote its notes there."""
    from abcd.trust.guarded import locate_home

    real = Path(locate_home())
    before = _tree(real)
    yield
    assert _tree(real) == before, f"a test wrote the person's own home {real}"


@pytest.fixture(autouse=True)
def abcd_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A throwaway ABCD_HOME (not created: the tool creates it on the first write)."""
    home = tmp_path / "abcd-home"
    person = tmp_path / "person"
    person.mkdir()
    monkeypatch.setenv("ABCD_HOME", str(home))
    monkeypatch.setenv("HOME", str(person))
    monkeypatch.delenv("CLAUDE_CODE_SESSION_ID", raising=False)
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    yield home


def shell_prefix(folder: Path) -> Path:
    """A CLAUDE_CODE_SHELL_PREFIX as a person might set one, say for an audit: it logs its
    arguments to `folder/log`, one to a line, then runs its last one (the host's command string)
    through `sh -c`."""
    folder.mkdir(parents=True)
    wrapper = folder / "audit"
    wrapper.write_text(
        '#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done >> "${0%/*}/log"\n'
        'for a in "$@"; do last=$a; done\nexec /bin/sh -c "$last"\n'
    )
    wrapper.chmod(0o755)
    return wrapper


def git(cwd: Path, *args: str) -> str:
    out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return out.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository with one commit; the working folder is its top."""
    top = tmp_path / "project"
    top.mkdir()
    git(top, "init", "-q", "-b", "main")
    git(top, "commit", "-q", "--allow-empty", "-m", "first")
    monkeypatch.chdir(top)
    return top


@dataclass
class Result:
    code: int
    out: str
    err: str


Run = Callable[..., Result]


@pytest.fixture
def abcd() -> Run:
    """Run the real `abcd` command in a subprocess, as a person or an agent would."""

    def run(
        *args: str, stdin: str = "", cwd: Path | None = None, env: dict[str, str] | None = None
    ) -> Result:
        full_env = dict(os.environ)
        if env:
            full_env.update(env)
        proc = subprocess.run(
            [sys.executable, "-m", "abcd", *args],
            input=stdin,
            capture_output=True,
            text=True,
            cwd=cwd,
            env=full_env,
            timeout=120,
        )
        return Result(proc.returncode, proc.stdout, proc.stderr)

    return run


BY = "Claude:claude-opus-4-8"


@pytest.fixture
def synced(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The descriptors this process asks `os.fsync` to sync from here on (each still synced)."""
    calls: list[int] = []
    real_fsync = os.fsync

    def recording_fsync(fd: int) -> None:
        calls.append(fd)
        real_fsync(fd)

    patch_os(monkeypatch, "fsync", recording_fsync)
    return calls

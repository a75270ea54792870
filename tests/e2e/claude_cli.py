"""The real Claude Code CLI, installed once from the npm registry and run offline.

The package is pinned to the version the captures in `shared/host/` came from and
installed into `<repo>/.cache/e2e/claude-code-<version>/` (git-ignored), so a
second run costs nothing. npm is told to skip install scripts and the package's
own `install.cjs` is run instead: it only copies the native binary that ships in
the platform package over the `bin/claude.exe` placeholder, and running it
ourselves does not depend on how this npm treats install scripts.

A run gets an isolated HOME whose `.claude.json` marks onboarding done and the
project trusted, the mock of the Messages API as its base URL, a dummy key, its
own ABCD_HOME and git identity, and nothing else from the caller but PATH and
the locale.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import GIT_ENV
from tests.e2e.mock_api import MockApi, Request

VERSION = "2.1.197"
# The last host that runs every hook command through `/bin/sh -c`: exec-form hooks (`"args"`)
# came in 2.1.139, and an older host drops the `args` it does not know (tests/e2e/test_hook_forms.py).
BEFORE_EXEC_FORM = "2.1.138"
PACKAGE = "@anthropic-ai/claude-code"
REPO_ROOT = Path(__file__).resolve().parents[2]
CACHE = REPO_ROOT / ".cache" / "e2e"
# npm keeps its download cache under the person's real home; the tests move HOME.
REAL_HOME = os.environ.get("HOME", "")

INSTALL_TIMEOUT = 240
RUN_TIMEOUT = 60

# The variables the captures ran with (host/README.md): offline, no updater, no telemetry.
OFFLINE_ENV = {
    "ANTHROPIC_API_KEY": "e2e-dummy-key",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
}
PASSED_THROUGH = ("LANG", "LC_ALL", "TMPDIR")


class InstallFailed(RuntimeError):
    """npm could not install the pinned CLI, or the binary it installed does not run."""


def skip_without_node() -> None:
    """Skip the calling test module where node or npm is missing (one summary line for them all)."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        why = f"e2e: {' and '.join(missing)} not on PATH, so the real Claude Code CLI cannot run"
        pytest.skip(why, allow_module_level=True)


def _binary(prefix: Path) -> Path:
    return prefix / "node_modules" / PACKAGE / "bin" / "claude.exe"


def _reports_version(binary: Path, version: str = VERSION) -> bool:
    try:
        out = subprocess.run(
            [str(binary), "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and out.stdout.startswith(version)


def _run_checked(argv: Sequence[str], cwd: Path, what: str) -> None:
    env = dict(os.environ, HOME=REAL_HOME, npm_config_update_notifier="false")
    try:
        proc = subprocess.run(
            list(argv),
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired as err:
        raise InstallFailed(f"{what} took longer than {INSTALL_TIMEOUT} s") from err
    if proc.returncode != 0:
        raise InstallFailed(f"{what} exited {proc.returncode}: {proc.stderr.strip()[-2000:]}")


def install(
    cache: Path = CACHE, say: Callable[[str], None] | None = None, version: str = VERSION
) -> Path:
    """The CLI's binary at `version` (the pinned one unless named), installed into `cache` unless a
    good install is already there.

    `say` hears one line before anything is downloaded, and one when it is done.
    """
    prefix = cache / f"claude-code-{version}"
    if _reports_version(_binary(prefix), version):
        if say:
            say(f"Claude Code {version}: already installed in {prefix}")
        return _binary(prefix)
    if say:
        say(
            f"installing Claude Code {version} ({PACKAGE} and its native binary) from the npm registry "
            f"into {prefix}, once, for the end-to-end tests"
        )
    cache.mkdir(parents=True, exist_ok=True)
    staging = cache / f"claude-code-{version}.partial-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    try:
        _install_into(staging, version)
        shutil.rmtree(prefix, ignore_errors=True)
        staging.rename(prefix)
    except OSError:
        # Another run may have finished the same install first; theirs is as good as ours.
        if not _reports_version(_binary(prefix), version):
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if say:
        say(f"Claude Code {version}: installed")
    return _binary(prefix)


def _install_into(staging: Path, version: str) -> None:
    _run_checked(
        [
            "npm",
            "install",
            "--prefix",
            str(staging),
            "--ignore-scripts",
            "--no-audit",
            "--no-fund",
            "--no-save",
            f"{PACKAGE}@{version}",
        ],
        staging,
        f"npm install {PACKAGE}@{version}",
    )
    package = staging / "node_modules" / PACKAGE
    _run_checked(["node", "install.cjs"], package, f"node install.cjs in {package}")
    if not _reports_version(_binary(staging), version):
        raise InstallFailed(f"{_binary(staging)} --version does not report {version}")


def trusting_home(home: Path, project: Path) -> None:
    """Mark onboarding done and `project` trusted, as a person who has used the CLI before."""
    config = {
        "hasCompletedOnboarding": True,
        "projects": {str(project): {"hasTrustDialogAccepted": True}},
    }
    (home / ".claude.json").write_text(json.dumps(config))


@dataclass(frozen=True)
class Turn:
    """One `claude -p` run: its result JSON and the requests the mock saw during it."""

    result: dict[str, Any]
    stderr: str
    requests: list[Request]

    @property
    def session_id(self) -> str:
        return str(self.result["session_id"])

    def agent_requests(self) -> list[Request]:
        return [r for r in self.requests if r.is_agent_loop]


@dataclass(frozen=True)
class Claude:
    """The real CLI wired to the mock, in one project, with one isolated home."""

    binary: Path
    mock: MockApi
    project: Path
    home: Path
    abcd_home: Path
    path_dirs: Sequence[Path]
    plugin_dir: Path | None = None

    def env(self) -> dict[str, str]:
        env = {k: os.environ[k] for k in PASSED_THROUGH if k in os.environ}
        path = [str(d) for d in self.path_dirs] + [os.environ.get("PATH", "/usr/bin:/bin")]
        env.update(GIT_ENV)
        env.update(OFFLINE_ENV)
        env.update(
            HOME=str(self.home),
            ABCD_HOME=str(self.abcd_home),
            PATH=os.pathsep.join(path),
            ANTHROPIC_BASE_URL=self.mock.base_url,
        )
        return env

    def tool(self, *argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        """Run a command in the project with the host's environment (`abcd ...`, the CLI's own
        `plugin ...`), as the person would beside the host; it must succeed."""
        done = subprocess.run(
            list(argv),
            input=stdin,
            cwd=self.project,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            check=False,
        )
        assert done.returncode == 0, f"{argv} exited {done.returncode}: {done.stdout}{done.stderr}"
        return done

    def run(
        self,
        prompt: str,
        *,
        resume: str | None = None,
        session_id: str | None = None,
        allowed_tools: Sequence[str] = (),
        extra_env: Mapping[str, str] | None = None,
    ) -> Turn:
        argv = [str(self.binary), "-p", prompt, "--output-format", "json"]
        if resume:
            argv += ["--resume", resume]
        if session_id:
            argv += ["--session-id", session_id]
        if allowed_tools:
            argv += ["--allowedTools", ",".join(allowed_tools)]
        if self.plugin_dir is not None:
            argv += ["--plugin-dir", str(self.plugin_dir)]
        env = self.env()
        env.update(extra_env or {})
        seen = len(self.mock.requests)
        proc = subprocess.run(
            argv,
            cwd=self.project,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            check=False,
        )
        assert proc.returncode == 0, f"claude -p exited {proc.returncode}: {proc.stderr[-2000:]}"
        result = json.loads(proc.stdout)
        assert not result.get("is_error"), f"claude -p reported an error: {result}"
        return Turn(result, proc.stderr, self.mock.since(seen))


def main() -> int:
    """`python -m tests.e2e.claude_cli`: install the pinned CLI, and the last host before exec-form
    hooks, now, saying so (tools/test)."""
    if any(shutil.which(tool) is None for tool in ("node", "npm")):
        print("Claude Code: node or npm is not on PATH, so the end-to-end tests will be skipped")
        return 0
    for version in (VERSION, BEFORE_EXEC_FORM):
        try:
            install(say=lambda line: print(line, flush=True), version=version)
        except InstallFailed as err:
            print(f"Claude Code: the install failed, so the end-to-end tests will fail: {err}")
            return 0  # pytest reports it where it matters, once
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

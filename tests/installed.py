"""abcd installed as the README's "Use it every day" tells a person to: with pipx or uv.

Each install goes into a folder of its own (pipx's and uv's homes, their bin
folders and uv's cache), never the person's own, and builds abcd from this
checkout or from a `git+file://` URL of it, fetching setuptools from the package
registry as any install from source does. `abcd`'s console script lands in
`<folder>/bin`; the plugin folder sits inside the tool's own environment.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
INSTALL_TIMEOUT = 300
# PATH for a process that must find only the system's tools: no venv, no tool folder.
BARE_PATH = "/usr/bin:/bin"


def tool(name: str) -> str:
    """The pipx or uv installed with the dev tools (beside this interpreter), else the one on PATH."""
    beside = Path(sys.executable).with_name(name)
    if beside.exists():
        return str(beside)
    found = shutil.which(name)
    if found is None:
        raise AssertionError(f"{name} is one of the dev tools (`pip install -e '.[dev]'`)")
    return found


def _env(folder: Path, how: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIPX_", "UV_", "VIRTUAL_"))}
    env["PATH"] = BARE_PATH
    if how == "pipx":
        env.update(
            PIPX_HOME=str(folder / "pipx"),
            PIPX_BIN_DIR=str(folder / "bin"),
            PIPX_MAN_DIR=str(folder / "man"),
        )
    else:
        env.update(
            UV_TOOL_DIR=str(folder / "uv-tools"),
            UV_TOOL_BIN_DIR=str(folder / "bin"),
            UV_CACHE_DIR=str(folder / "uv-cache"),
            UV_PYTHON_DOWNLOADS="never",  # only a Python already on this machine
            UV_PYTHON=sys.executable,
        )
    return env


def install(folder: Path, how: str, source: str) -> Path:
    """Install abcd from `source` with `how` ("pipx" or "uv") into `folder`; its `abcd` script."""
    argv = {
        "pipx": [tool("pipx"), "install", source],
        "uv": [tool("uv"), "tool", "install", source],
    }[how]
    proc = subprocess.run(
        argv,
        env=_env(folder, how),
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT,
        check=False,
    )
    assert proc.returncode == 0, f"{' '.join(argv)} exited {proc.returncode}:\n{proc.stderr}"
    assert "project.license" not in proc.stderr, "the build warned about the license metadata"
    script = folder / "bin" / "abcd"
    assert script.exists(), f"{' '.join(argv)} put no abcd in {folder / 'bin'}"
    return script


def git_url(checkout: Path = REPO_ROOT) -> str:
    """The checkout as a git URL, as `pipx install git+https://...` would name a remote one."""
    return f"git+file://{checkout}"

"""abcd installed as the README's "Use it every day" tells a person to: with pipx or uv.

Each install goes into a folder of its own (pipx's and uv's homes, their bin
folders and uv's cache), never the person's own, and builds abcd from this
checkout or from a `git+file://` URL of it, fetching setuptools from the package
registry as any install from source does. `abcd`'s console script lands in
`<folder>/bin`; the plugin folder sits inside the tool's own environment.
"""

from __future__ import annotations

import os
import re
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


def _env(folder: Path, how: str, python: str | None = None) -> dict[str, str]:
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
            UV_PYTHON=python or sys.executable,
        )
    return env


def install(folder: Path, how: str, source: str, python: str | None = None) -> Path:
    """Install abcd from `source` with `how` ("pipx" or "uv") into `folder`; its `abcd` script.
    `python`: the interpreter uv makes the tool's environment with (this one by default)."""
    argv = {
        "pipx": [tool("pipx"), "install", source],
        "uv": [tool("uv"), "tool", "install", source],
    }[how]
    proc = subprocess.run(
        argv,
        env=_env(folder, how, python),
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


# The console scripts installers write for `abcd = abcd.entry:main`: pip 25.0 and later (and uv,
# alike), pip before 25.0, whose script imports `re` before abcd's first line, and pipx's, whose
# interpreter line carries `-E`.
CONSOLE_SCRIPTS = {
    "pip": (
        "#!{python}\nimport sys\nfrom abcd.entry import main\nif __name__ == '__main__':\n"
        "    sys.argv[0] = sys.argv[0].removesuffix('.exe')\n    sys.exit(main())\n"
    ),
    "pip<25": (
        "#!{python}\n# -*- coding: utf-8 -*-\nimport re\nimport sys\nfrom abcd.entry import main\n"
        "if __name__ == '__main__':\n"
        "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n"
        "    sys.exit(main())\n"
    ),
    "pipx": (
        "#!{python} -E\n# -*- coding: utf-8 -*-\nimport sys\nfrom abcd.entry import main\n"
        'if __name__ == "__main__":\n    if sys.argv[0].endswith("-script.pyw"):\n'
        "        sys.argv[0] = sys.argv[0][:-11]\n"
        '    elif sys.argv[0].endswith(".exe"):\n        sys.argv[0] = sys.argv[0][:-4]\n'
        "    sys.exit(main())\n"
    ),
}


def site_packages(prefix: Path) -> Path:
    """Where the environment at `prefix` keeps its packages (whichever Python made it)."""
    (packages,) = prefix.glob("lib/python3.*/site-packages")
    return packages


def launcher_of(prefix: Path) -> Path:
    """The plugin's launcher in the install at `prefix`."""
    return site_packages(prefix) / "abcd" / "plugin" / "hooks" / "abcd-hook"


def imported_modules(importtime: str) -> list[str]:
    """The modules a process imported, from what `python -X importtime` wrote on its stderr."""
    return [line.rsplit("|", 1)[-1].strip() for line in importtime.splitlines() if "|" in line]


def laid_out(prefix: Path, script: str = "pip", *, stemmer: bool = True) -> Path:
    """abcd from this checkout as an installer lays it out, offline and in a second: a venv at
    `prefix`, a copy of the package in its site-packages beside every package this environment
    has (linked, abcd's own editable install left out; PyStemmer too unless `stemmer` is false),
    and the console script `script` (`CONSOLE_SCRIPTS`). Its `abcd` script."""
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(prefix)], check=True, timeout=60
    )
    here = Path(next(p for p in sys.path if p.endswith("site-packages")))
    there = site_packages(prefix)
    for entry in here.iterdir():
        if entry.name.startswith(("abcd", "__editable__")):
            continue
        if not stemmer and entry.name.startswith("Stemmer."):
            continue
        (there / entry.name).symlink_to(entry)
    shutil.copytree(
        REPO_ROOT / "src" / "abcd", there / "abcd", ignore=shutil.ignore_patterns("__pycache__")
    )
    console = prefix / "bin" / "abcd"
    console.write_text(CONSOLE_SCRIPTS[script].format(python=prefix / "bin" / "python"))
    console.chmod(0o755)
    return console


def direct(prefix: Path) -> list[str]:
    """The command the plugin's launcher in the install at `prefix` runs when it starts the
    environment's Python itself, up to the hook's own arguments: the interpreter and flags the
    console script's first line names, the launcher's `-S -c` program (read from the
    launcher), and the site-packages folder."""
    first = (prefix / "bin" / "abcd").read_text().splitlines()[0]
    launcher = launcher_of(prefix)
    found = re.search(r"-S -c '(.*?)' \"\$packages\"", launcher.read_text(), re.DOTALL)
    assert found is not None, f"{launcher} runs no Python directly"
    program = ["-S", "-c", found.group(1), str(site_packages(prefix))]
    return [*first.removeprefix("#!").split(), *program]

"""Installed for daily use, as the README says: `pipx install` or `uv tool install`, from a
checkout or a git URL, then `abcd` works and the plugin's hooks find that same `abcd`.

Each install goes into a temporary pipx or uv home (tests/installed.py); the hook
launcher then runs with a PATH that holds no `abcd` at all, so it can only have
found the one installed beside the plugin folder.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import abcd
from tests.fresh import interpreter
from tests.installed import BARE_PATH, REPO_ROOT, direct, git_url, imported_modules, install

pytestmark = pytest.mark.slow


def run(
    argv: list[str], *, stdin: str = "", env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, input=stdin, env=env, cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )


def the_hooks_find(script: Path, tmp_path: Path) -> None:
    """`abcd plugin path` names a folder whose launcher runs this install's `abcd`, PATH or not."""
    plugin = Path(run([str(script), "plugin", "path"]).stdout.strip())
    assert plugin.is_relative_to(tmp_path), "the plugin folder is the installed one"
    project = tmp_path / "project"
    project.mkdir()
    payload = json.dumps(
        {"session_id": "s-1", "cwd": str(project), "prompt": "run the tests", "source": "startup"}
    )
    env = {"PATH": BARE_PATH, "HOME": str(tmp_path), "ABCD_HOME": str(tmp_path / "abcd-home")}

    # As the host starts it (hooks.json, exec form): the install kept the file executable.
    out = run([str(plugin / "hooks" / "session-start")], stdin=payload, env=env)

    assert out.returncode == 0, out.stderr
    assert out.stderr == ""
    assert (tmp_path / "abcd-home").is_dir(), "the hook ran and made its home"
    # The tool's own environment: the launcher runs its Python directly, without `site`, and
    # nothing in the working folder (the person's project) is imported, on this Python too.
    marker = tmp_path / "imported-from-the-project"
    for name in ("site.py", "Stemmer.py", "abcd/__init__.py", "abcd/entry.py"):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(f"open({str(marker)!r}, 'a').write(__name__ + '\\n')\n")
    traced = run(
        ["sh", "-x", str(plugin / "hooks" / "prompt-router")], stdin=payload, env=env, cwd=project
    )
    assert traced.returncode == 0, traced.stderr
    assert " -S -c " in traced.stderr
    assert not marker.exists(), marker.read_text()
    assert (
        traced.stdout == run([str(script), "hook", "prompt-router"], stdin=payload, env=env).stdout
    )
    # ... and that Python never reads `site`: nothing it imports is missing from the tool's own
    # site-packages (`-X importtime` names every module a process imports).
    python, *rest = direct(plugin.parents[4])
    imported = run(
        [python, "-X", "importtime", *rest, "hook", "prompt-router"], stdin=payload, env=env
    )
    assert imported.returncode == 0, imported.stderr
    names = imported_modules(imported.stderr)
    assert "Stemmer" in names and "site" not in names  # (abcd's own may come from its bundle)


@pytest.mark.parametrize("how", ["pipx", "uv"])
def test_installing_from_the_checkout_gives_an_abcd_the_plugins_hooks_find(
    how: str, tmp_path: Path
) -> None:
    script = install(tmp_path / "tools", how, str(REPO_ROOT))

    version = run([str(script), "--version"])

    assert version.returncode == 0
    assert version.stdout == f"abcd {abcd.__version__}\n"
    the_hooks_find(script, tmp_path)


def test_installing_from_a_git_url_gives_the_same(tmp_path: Path) -> None:
    script = install(tmp_path / "tools", "uv", git_url())

    assert run([str(script), "--version"]).stdout == f"abcd {abcd.__version__}\n"
    the_hooks_find(script, tmp_path)


@pytest.mark.parametrize("version", ["3.12", "3.13"])
def test_a_uv_install_on_every_supported_python_gives_the_same(
    version: str, tmp_path: Path
) -> None:
    """The launcher starts the tool environment's own Python (`-S`): on each Python abcd
    supports, where one is installed here."""
    script = install(tmp_path / "tools", "uv", str(REPO_ROOT), python=interpreter(version))

    assert run([str(script), "--version"]).stdout == f"abcd {abcd.__version__}\n"
    assert f"python{version}" in str(Path(run([str(script), "plugin", "path"]).stdout))
    the_hooks_find(script, tmp_path)

"""The README's daily-use route end to end: `pipx install` the checkout, then
`claude --plugin-dir "$(abcd plugin path)"` with no `abcd` on PATH, and a note comes back.

The launcher finds the `abcd` installed beside the plugin folder, so nothing has to
be on PATH or activated; the host runs with a PATH of the system's tools only.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from tests.e2e.claude_cli import Claude, skip_without_node
from tests.e2e.lesson import BODY, RECALL, TITLE, WRITER
from tests.installed import BARE_PATH, REPO_ROOT, install

skip_without_node()

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_a_pipx_install_loaded_with_plugin_dir_brings_a_note_back_with_no_abcd_on_path(
    claude: Claude, tmp_path: Path
) -> None:
    abcd = install(tmp_path / "tools", "pipx", str(REPO_ROOT))
    env = dict(os.environ, ABCD_HOME=str(claude.abcd_home))
    added = subprocess.run(
        [str(abcd), "memory", "add", "--title", TITLE, "--recall", RECALL, "--by", WRITER],
        input=BODY,
        cwd=claude.project,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert added.returncode == 0, added.stderr
    plugin = subprocess.run(
        [str(abcd), "plugin", "path"], capture_output=True, text=True, timeout=60, check=True
    ).stdout.strip()
    daily = replace(claude, plugin_dir=Path(plugin), path_dirs=[])

    turn = daily.run("how do I run the tests", extra_env={"PATH": BARE_PATH})

    (request,) = turn.agent_requests()
    assert TITLE in request.text()
    assert "no abcd installed" not in turn.stderr

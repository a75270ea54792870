"""The hooks as each real host starts them: exec form where the host knows it, `/bin/sh -c` before.

`hooks.json` names each hook's own file (`${CLAUDE_PLUGIN_ROOT}/hooks/prompt-router`)
with `"args": []`. Claude Code 2.1.139 and later read that as exec form and spawn the
file with no shell; 2.1.138, the last host before it, drops the `args` it does not know
and runs the same path through `/bin/sh -c`. On both hosts the note comes back, and
what a person types is never run as a command: the prompt reaches the hook only on its
stdin. (The obvious exec form, `"command": "sh"` with the launcher in `args`, is the
one this file guards against: 2.1.138 runs `sh` with the payload as its script, and
a prompt's `$(...)` runs.)

On the pinned host a plugin folder whose name holds a space, a `$(...)` and quotes
works (an older host cannot start hooks from there: docs/host.md), and the copy a
marketplace install makes keeps the files the host spawns executable.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from abcd.cli.plugin_cmd import plugin_dir
from tests.e2e.claude_cli import (
    BEFORE_EXEC_FORM,
    Claude,
    InstallFailed,
    install,
    skip_without_node,
    trusting_home,
)
from tests.e2e.lesson import BODY, RECALL, TITLE, WRITER
from tests.e2e.mock_api import MockApi
from tests.e2e.workspace import new_project

skip_without_node()

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

HOOK_FILES = ("session-start", "prompt-router", "pre-compact", "pre-tool-use")


@pytest.fixture(scope="module")
def older_host() -> Path:
    try:
        return install(version=BEFORE_EXEC_FORM)
    except InstallFailed as err:
        pytest.fail(f"e2e: installing Claude Code {BEFORE_EXEC_FORM} failed: {err}")


def add_the_note(claude: Claude) -> None:
    subprocess.run(
        ["abcd", "memory", "add", "--title", TITLE, "--recall", RECALL, "--by", WRITER],
        input=BODY,
        cwd=claude.project,
        env=claude.env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )


def host(
    binary: Path, root: Path, mock: MockApi, abcd_on_path: Path, plugin: Path | None
) -> Claude:
    home = root / "home"
    home.mkdir()
    project = new_project(root / "project")
    trusting_home(home, project)
    return Claude(
        binary=binary,
        mock=mock,
        project=project,
        home=home,
        abcd_home=root / "abcd-home",
        path_dirs=[abcd_on_path],
        plugin_dir=plugin,
    )


def ask_with_commands_in_it(claude: Claude, marks: Path) -> str:
    """Ask a matching prompt that holds a command substitution and backticks; the text the model
    was sent. Each would leave a file in `marks` if any shell ran it."""
    marks.mkdir()
    prompt = f"how do I run the tests $(touch {marks}/dollar) `touch {marks}/backtick`"
    (request,) = claude.run(prompt).agent_requests()
    return request.text()


@pytest.mark.parametrize("which", ["pinned", "older"])
def test_the_note_comes_back_and_no_shell_runs_the_prompt_on_each_host(
    which: str,
    claude_binary: Path,
    request: pytest.FixtureRequest,
    abcd_on_path: Path,
    tmp_path: Path,
) -> None:
    binary = claude_binary if which == "pinned" else request.getfixturevalue("older_host")
    mock = MockApi().start()
    try:
        claude = host(binary, tmp_path, mock, abcd_on_path, plugin_dir())
        add_the_note(claude)

        sent = ask_with_commands_in_it(claude, tmp_path / "marks")
    finally:
        mock.stop()

    assert list((tmp_path / "marks").iterdir()) == [], "a shell ran the prompt"
    assert TITLE in sent, f"on Claude Code {which}, the prompt hook brought the note back"


def test_a_plugin_folder_whose_name_a_shell_would_split_or_run_works_on_the_pinned_host(
    claude_binary: Path, abcd_on_path: Path, tmp_path: Path
) -> None:
    odd = tmp_path / f"a b $(touch {tmp_path}/ran) 'q\" dir" / "plugin"
    shutil.copytree(plugin_dir(), odd)
    mock = MockApi().start()
    try:
        claude = host(claude_binary, tmp_path, mock, abcd_on_path, odd)
        add_the_note(claude)

        sent = ask_with_commands_in_it(claude, tmp_path / "marks")
    finally:
        mock.stop()

    assert TITLE in sent
    assert not (tmp_path / "ran").exists()


@pytest.mark.parametrize("name", ["a b", "a$b"])
def test_on_the_older_host_a_folder_name_its_shell_splits_loses_recall_but_never_the_prompt(
    older_host: Path, abcd_on_path: Path, tmp_path: Path, name: str
) -> None:
    """The limit docs/host.md states: the older host puts the path into `/bin/sh -c` unquoted."""
    odd = tmp_path / name / "plugin"
    shutil.copytree(plugin_dir(), odd)
    mock = MockApi().start()
    try:
        claude = host(older_host, tmp_path, mock, abcd_on_path, odd)
        add_the_note(claude)

        sent = ask_with_commands_in_it(claude, tmp_path / "marks")
    finally:
        mock.stop()

    assert list((tmp_path / "marks").iterdir()) == []
    assert "how do I run the tests" in sent, "the prompt went on to the model"
    assert TITLE not in sent


def test_a_marketplace_install_keeps_the_hook_files_executable_and_recalls(
    claude_binary: Path, abcd_on_path: Path, tmp_path: Path
) -> None:
    market = tmp_path / "market"
    (market / ".claude-plugin").mkdir(parents=True)
    (market / "abcd").symlink_to(plugin_dir())
    listing = {
        "name": "abcd-local",
        "owner": {"name": "me"},
        "plugins": [{"name": "abcd", "source": "./abcd", "description": "abcd memory"}],
    }
    (market / ".claude-plugin" / "marketplace.json").write_text(json.dumps(listing))
    mock = MockApi().start()
    try:
        claude = host(claude_binary, tmp_path, mock, abcd_on_path, None)
        for argv in (["marketplace", "add", str(market)], ["install", "abcd@abcd-local"]):
            done = subprocess.run(
                [str(claude_binary), "plugin", *argv],
                cwd=claude.project,
                env=claude.env(),
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            assert done.returncode == 0, done.stdout + done.stderr
        add_the_note(claude)

        sent = ask_with_commands_in_it(claude, tmp_path / "marks")
    finally:
        mock.stop()

    copies = [p for p in (claude.home / ".claude" / "plugins").rglob("hooks") if p.is_dir()]
    (copy,) = copies
    assert copy.resolve() != (plugin_dir() / "hooks").resolve(), "the host's own copy"
    for name in HOOK_FILES:
        assert os.access(copy / name, os.X_OK), f"{name} lost its executable bit in the copy"
    assert TITLE in sent

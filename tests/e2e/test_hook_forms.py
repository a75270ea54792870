"""The hooks as each real host starts them: exec form where the host knows it, `/bin/sh -c` before.

`hooks.json` names each hook's own file (`${CLAUDE_PLUGIN_ROOT}/hooks/prompt-router`)
with `"args": ["--exec-form"]`. Claude Code 2.1.139 and later read that as exec form and spawn the
file with no shell; 2.1.138, the last host before it, drops the `args` it does not know
and runs the same path through `/bin/sh -c`. On both hosts the note comes back, and
what a person types is never run as a command: the prompt reaches the hook only on its
stdin. (The obvious exec form, `"command": "sh"` with the launcher in `args`, is the
one this file guards against: 2.1.138 runs `sh` with the payload as its script, and
a prompt's `$(...)` runs.)

On the pinned host a plugin folder whose name holds a space, a `$(...)` and quotes
works (an older host cannot start hooks from there: docs/host.md), and the copy a
marketplace install makes keeps the files the host spawns executable. A person's
CLAUDE_CODE_SHELL_PREFIX wraps the hooks on both hosts.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from tests.conftest import shell_prefix
from tests.e2e.claude_cli import BEFORE_EXEC_FORM, Claude, InstallFailed, install, skip_without_node
from tests.e2e.conftest import SHIPPED, plugin_host
from tests.e2e.lesson import BODY, RECALL, TITLE, WRITER

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
    claude.tool(
        "abcd", "memory", "add", "--title", TITLE, "--recall", RECALL, "--by", WRITER, stdin=BODY
    )


def asked(
    binary: Path,
    root: Path,
    abcd_on_path: Path,
    plugin: Path | None = SHIPPED,
    first: Callable[[Claude], None] | None = None,
    env: Mapping[str, str] | None = None,
) -> str:
    """In a host with `plugin` loaded (after `first`, if given), a note added and a matching prompt
    that holds a command substitution and backticks: the text the model was sent. Either would
    leave a file in `root/marks` if any shell ran it. `env` is added to the host's."""
    marks = root / "marks"
    marks.mkdir()
    with plugin_host(root, binary, abcd_on_path, plugin) as claude:
        if first is not None:
            first(claude)
        add_the_note(claude)
        prompt = f"how do I run the tests $(touch {marks}/dollar) `touch {marks}/backtick`"
        (request,) = claude.run(prompt, extra_env=env).agent_requests()
    return request.text()


def copied(root: Path, folder: str) -> Path:
    """A copy of the shipped plugin in `root/folder/plugin`."""
    copy = root / folder / "plugin"
    shutil.copytree(SHIPPED, copy)
    return copy


@pytest.fixture(params=["pinned", "older"])
def each_host(request: pytest.FixtureRequest, claude_binary: Path) -> Path:
    """The pinned host, then the last one before exec form."""
    return claude_binary if request.param == "pinned" else request.getfixturevalue("older_host")


def test_the_note_comes_back_and_no_shell_runs_the_prompt_on_each_host(
    each_host: Path, abcd_on_path: Path, tmp_path: Path
) -> None:
    sent = asked(each_host, tmp_path, abcd_on_path)

    assert list((tmp_path / "marks").iterdir()) == [], "a shell ran the prompt"
    assert TITLE in sent, f"with {each_host}, the prompt hook brought the note back"


def test_a_persons_shell_prefix_wraps_the_hooks_on_each_host(
    each_host: Path, abcd_on_path: Path, tmp_path: Path
) -> None:
    """The older host puts CLAUDE_CODE_SHELL_PREFIX in front of the hook's command string; the
    pinned one starts an exec-form hook without it, and the launcher puts it back."""
    wrapper = shell_prefix(tmp_path / "wrapper")

    sent = asked(each_host, tmp_path, abcd_on_path, env={"CLAUDE_CODE_SHELL_PREFIX": str(wrapper)})

    wrapped = (wrapper.parent / "log").read_text().splitlines()
    assert [line.rsplit("/", 2)[1:] for line in wrapped] == [
        ["hooks", "session-start"],
        ["hooks", "prompt-router"],
    ]
    assert TITLE in sent


def test_a_plugin_folder_whose_name_a_shell_would_split_or_run_works_on_the_pinned_host(
    claude_binary: Path, abcd_on_path: Path, tmp_path: Path
) -> None:
    odd = copied(tmp_path, f"a b $(touch {tmp_path}/ran) 'q\" dir")

    sent = asked(claude_binary, tmp_path, abcd_on_path, odd)

    assert TITLE in sent
    assert not (tmp_path / "ran").exists()


@pytest.mark.parametrize("name", ["a b", "a$b"])
def test_on_the_older_host_a_folder_name_its_shell_splits_loses_recall_but_never_the_prompt(
    older_host: Path, abcd_on_path: Path, tmp_path: Path, name: str
) -> None:
    """The limit docs/host.md states: the older host puts the path into `/bin/sh -c` unquoted."""
    sent = asked(older_host, tmp_path, abcd_on_path, copied(tmp_path, name))

    assert list((tmp_path / "marks").iterdir()) == []
    assert "how do I run the tests" in sent, "the prompt went on to the model"
    assert TITLE not in sent


def test_a_marketplace_install_keeps_the_hook_files_executable_and_recalls(
    claude_binary: Path, abcd_on_path: Path, tmp_path: Path
) -> None:
    market = tmp_path / "market"
    (market / ".claude-plugin").mkdir(parents=True)
    (market / "abcd").symlink_to(SHIPPED)
    listing = {
        "name": "abcd-local",
        "owner": {"name": "me"},
        "plugins": [{"name": "abcd", "source": "./abcd", "description": "abcd memory"}],
    }
    (market / ".claude-plugin" / "marketplace.json").write_text(json.dumps(listing))

    def install_from_the_marketplace(claude: Claude) -> None:
        claude.tool(str(claude_binary), "plugin", "marketplace", "add", str(market))
        claude.tool(str(claude_binary), "plugin", "install", "abcd@abcd-local")

    sent = asked(claude_binary, tmp_path, abcd_on_path, None, install_from_the_marketplace)

    copies = [p for p in (tmp_path / "home" / ".claude" / "plugins").rglob("hooks") if p.is_dir()]
    (copy,) = copies
    assert copy.resolve() != (SHIPPED / "hooks").resolve(), "the host's own copy"
    for name in HOOK_FILES:
        assert os.access(copy / name, os.X_OK), f"{name} lost its executable bit in the copy"
    assert TITLE in sent

"""The shipped plugin in the real host: it validates, and `/abcd:memory` hands the agent its page.

The page also pre-approves `abcd memory add` and `list` (its `allowed-tools`), so
an agent following it writes its note without a permission prompt, and nothing
more: removing a note still waits for the person.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from abcd.cli.plugin_cmd import plugin_dir
from tests.e2e.claude_cli import Claude, skip_without_node
from tests.e2e.lesson import ADD_NOTE, printed_id
from tests.e2e.mock_api import AgentScript, RunBash, Text
from tests.e2e.workspace import abcd_hooks_ready, plugin_without_hooks

skip_without_node()

pytestmark = pytest.mark.e2e


def loaded_plugin(scratch: Path) -> Path:
    """The shipped plugin, or, while `abcd hook` lacks the hooks it wires, a copy without them."""
    return plugin_dir() if abcd_hooks_ready() else plugin_without_hooks(scratch / "plugin")


def validate(claude_binary: Path, plugin: Path, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(claude_binary), "plugin", "validate", "--strict", str(plugin)],
        env={"HOME": str(home), "PATH": "/usr/bin:/bin", "DISABLE_AUTOUPDATER": "1"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_plugin_passes_the_hosts_own_strict_validation(
    claude_binary: Path, tmp_path: Path
) -> None:
    out = validate(claude_binary, plugin_dir(), tmp_path)

    assert out.returncode == 0, out.stdout + out.stderr
    assert "Validation passed" in out.stdout
    assert "warning" not in out.stdout


def test_that_validation_reads_the_hooks_so_a_misnamed_event_would_fail_it(
    claude_binary: Path, tmp_path: Path
) -> None:
    broken = tmp_path / "plugin"
    shutil.copytree(plugin_dir(), broken)
    hooks_file = broken / "hooks" / "hooks.json"
    hooks_file.write_text(hooks_file.read_text().replace('"UserPromptSubmit"', '"PromptSubmit"'))

    out = validate(claude_binary, broken, tmp_path)

    assert out.returncode == 1
    assert "hooks.PromptSubmit" in out.stdout


def test_slash_abcd_memory_hands_the_model_the_page_with_the_persons_words(
    claude: Claude, tmp_path: Path
) -> None:
    page = (plugin_dir() / "commands" / "memory.md").read_text()
    heading = next(line for line in page.splitlines() if line.startswith("# "))
    with_plugin = replace(claude, plugin_dir=loaded_plugin(tmp_path))

    turn = with_plugin.run("/abcd:memory the linter reads ruff.toml, not pyproject.toml")

    (request,) = turn.agent_requests()
    sent = request.text()
    assert heading.removeprefix("# ") in sent
    assert "The person's words: the linter reads ruff.toml, not pyproject.toml" in sent
    assert "abcd memory add --title" in sent


def test_under_slash_abcd_memory_the_agent_writes_its_note_without_a_permission_prompt(
    claude: Claude, tmp_path: Path
) -> None:
    with_plugin = replace(claude, plugin_dir=loaded_plugin(tmp_path))
    claude.mock.script = AgentScript(RunBash(ADD_NOTE), Text("Noted."))

    turn = with_plugin.run("/abcd:memory the tests need the no-randomly flag")

    assert turn.result["permission_denials"] == []
    (result,) = turn.agent_requests()[-1].tool_results()
    assert printed_id(result), result


def test_outside_the_page_and_without_the_plugins_hooks_the_same_command_needs_approval(
    claude: Claude, tmp_path: Path
) -> None:
    # With its hooks, the plugin lets this command run unasked anywhere (test_notes_need_no_yes).
    with_plugin = replace(claude, plugin_dir=plugin_without_hooks(tmp_path / "plugin"))
    claude.mock.script = AgentScript(RunBash(ADD_NOTE), Text("Not noted."))

    turn = with_plugin.run("the tests need the no-randomly flag")

    (denied,) = turn.result["permission_denials"]
    assert denied["tool_input"]["command"] == ADD_NOTE


def test_the_page_does_not_grant_removing_a_note(claude: Claude, tmp_path: Path) -> None:
    with_plugin = replace(claude, plugin_dir=loaded_plugin(tmp_path))
    remove = "abcd memory remove mem-0000000000000000 --by Claude:claude-opus-4-8"
    claude.mock.script = AgentScript(RunBash(remove), Text("Not removed."))

    turn = with_plugin.run("/abcd:memory forget the flaky test note")

    (denied,) = turn.result["permission_denials"]
    assert denied["tool_input"]["command"] == remove

"""The real host in its default permission mode, no allow-list: the agent's notes land unasked, nothing else runs.

One run of `claude -p` with the shipped plugin loaded (its PreToolUse hook)
and no `--allowedTools`. The mock plays an agent that asks Claude Code to run,
in turn: a note written with `printf ... | abcd memory add` (what agents write
today), a note written with a quoted heredoc (what `/abcd:memory` teaches), a
plain `touch`, a note-writing command chained to a `touch` with `&&`, and
`abcd memory remove`. In `-p` mode a command the person was not asked about
is denied, so the run shows exactly which commands the hook let through.

These are also the host's facts the plugin stands on (docs/host.md): that a
PreToolUse hook's `allow` lets one Bash call run in the default mode, and
that without it the call waits for the person. A newer host that changed
either fails here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from abcd.cli.plugin_cmd import plugin_dir
from tests.e2e.claude_cli import Claude, Turn, skip_without_node
from tests.e2e.conftest import listed_notes, plugin_host
from tests.e2e.lesson import ADD_NOTE, TITLE, WRITER, printed_id
from tests.e2e.mock_api import AgentScript, RunBash, Text
from tests.e2e.workspace import HOOKS_MISSING, abcd_hooks_ready

skip_without_node()

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not abcd_hooks_ready(), reason=f"e2e pre-tool-use {HOOKS_MISSING}"),
]

PRINTED_TITLE = "Lint before push"
PRINTED_NOTE = (
    "printf 'Run the linter before pushing: CI rejects unformatted code.' | "
    f"abcd memory add --title '{PRINTED_TITLE}' --recall lint --by {WRITER}"
)
TOUCH = "touch untouched"
CHAINED_TITLE = "A note chained to another command"
CHAINED = (
    f"printf 'Never lands.' | abcd memory add --title '{CHAINED_TITLE}' --recall chain "
    f"--by {WRITER} && touch chained"
)
REMOVE = f"abcd memory remove mem-0000000000000000 --by {WRITER}"


def listed_titles(claude: Claude) -> set[str]:
    return {str(note["title"]) for note in listed_notes(claude)}


@dataclass(frozen=True)
class Run:
    claude: Claude
    turn: Turn


@pytest.fixture(scope="module")
def run(
    claude_binary: Path, abcd_on_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Run]:
    """The one `claude -p` run the module reads (each run of the real CLI costs seconds)."""
    with plugin_host(tmp_path_factory.mktemp("unasked"), claude_binary, abcd_on_path) as claude:
        claude.mock.script = AgentScript(
            RunBash(PRINTED_NOTE),
            RunBash(ADD_NOTE),
            RunBash(TOUCH),
            RunBash(CHAINED),
            RunBash(REMOVE),
            Text("Done."),
        )
        yield Run(claude, claude.run("keep what we learned about linting and the tests"))


def test_only_the_note_writing_commands_ran_unasked(run: Run) -> None:
    denied = [d["tool_input"]["command"] for d in run.turn.result["permission_denials"]]

    assert denied == [TOUCH, CHAINED, REMOVE]


def test_both_taught_shapes_wrote_their_note_and_the_agent_saw_its_id(run: Run) -> None:
    loop = run.turn.agent_requests()
    assert len(loop) == 6, "five commands asked for, one reply after the last result"
    for request in loop[1:3]:
        (result,) = request.tool_results()
        assert printed_id(result), result
    assert listed_titles(run.claude) == {PRINTED_TITLE, TITLE}


def test_a_plain_touch_and_a_chained_note_did_not_run(run: Run) -> None:
    assert run.turn.result["permission_denials"], "the run happened"
    assert not (run.claude.project / "untouched").exists()
    assert not (run.claude.project / "chained").exists()


def test_the_chained_note_was_not_written_either(run: Run) -> None:
    assert CHAINED_TITLE not in listed_titles(run.claude)


def test_a_person_who_wants_to_be_asked_for_notes_too_says_so_with_an_ask_rule(
    claude: Claude,
) -> None:
    settings = claude.project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"permissions": {"ask": ["Bash(abcd memory add:*)"]}}))
    claude.mock.script = AgentScript(RunBash(ADD_NOTE), Text("Not noted."))

    turn = replace(claude, plugin_dir=plugin_dir()).run("remember how the tests run")

    (denied,) = turn.result["permission_denials"]
    assert denied["tool_input"]["command"] == ADD_NOTE
    assert listed_titles(claude) == set()

"""Session 1 with the real host: the agent writes a note with its Bash tool, stamped by the host.

The mock plays the model: its first answer asks Claude Code to run `abcd memory
add` (body on stdin, no `--session`), its second ends the turn. The note must
carry the session id the host reports, which only the host's environment
(`CLAUDE_CODE_SESSION_ID`) can have given it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.claude_cli import Claude, skip_without_node
from tests.e2e.conftest import listed_notes
from tests.e2e.lesson import ADD_NOTE, BODY, NOTE_ID, RECALL, TITLE, WRITER
from tests.e2e.mock_api import AgentScript, RunBash, Text
from tests.e2e.workspace import git

skip_without_node()

pytestmark = pytest.mark.e2e


def test_a_note_the_agent_writes_is_stamped_with_the_hosts_session(
    claude: Claude, project: Path
) -> None:
    claude.mock.script = AgentScript(RunBash(ADD_NOTE, "Keep a note"), Text("Noted."))

    turn = claude.run("remember how the tests run", allowed_tools=["Bash"])

    loop = turn.agent_requests()
    assert len(loop) == 2, "one request asks for the command, one carries its result"
    (result,) = loop[1].tool_results()
    printed = sorted(set(NOTE_ID.findall(result)))
    assert len(printed) == 1, f"the tool result shows the new id: {result!r}"
    assert "session unknown" not in result
    # A note of one recall word lands, and the agent is told, in the tool result, how to give more.
    assert f"{printed[0]} has 1 recall word(s)" in result
    (note,) = listed_notes(claude)
    assert note["id"] == printed[0]
    assert note["session"] == turn.session_id
    assert note["written_by"] == WRITER
    assert note["origin"] == "agent"
    assert (note["title"], note["body"], note["recall"]) == (TITLE, BODY, [RECALL])
    assert note["root"] == git(project, "rev-list", "--max-parents=0", "HEAD")


def test_the_host_gives_the_agents_commands_the_same_session_id_it_reports(
    claude: Claude,
) -> None:
    claude.mock.script = AgentScript(RunBash("echo session=$CLAUDE_CODE_SESSION_ID"))

    turn = claude.run("which session is this", allowed_tools=["Bash"])

    (result,) = turn.agent_requests()[1].tool_results()
    assert result.strip() == f"session={turn.session_id}"

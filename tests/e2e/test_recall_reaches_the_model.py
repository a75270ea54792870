"""Sessions 1 and 2 with the real host and the plugin loaded: a note comes back, once, labelled.

One story, told once for the module, then checked sentence by sentence:

1. a session where the agent writes a note (recall word `test`) with its Bash tool;
2. a new session: "how do I run the tests" (the note must reach the model, once,
   labelled with its id and layer), then in the same session (`--resume`) a
   second matching prompt (not sent again), a prompt that matches nothing
   (nothing from abcd), `/compact`, and a matching prompt after it (sent again).

Everything is read from the mock's log of request bodies: what the model saw.
Skipped until `abcd hook` has every subcommand the plugin wires.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.e2e.claude_cli import Turn, skip_without_node
from tests.e2e.conftest import plugin_host
from tests.e2e.lesson import ADD_NOTE, BODY, TITLE, printed_id
from tests.e2e.mock_api import AgentScript, Request, RunBash, Text, strings
from tests.e2e.workspace import HOOKS_MISSING, abcd_hooks_ready

skip_without_node()

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not abcd_hooks_ready(), reason=f"e2e recall {HOOKS_MISSING}"),
]

UNMATCHED = "what is the capital of France"
HOOK_CONTEXT = "UserPromptSubmit hook"


@dataclass(frozen=True)
class Story:
    note_id: str
    written: Turn
    first: Turn
    again: Turn
    unmatched: Turn
    compacted: Turn
    after_compact: Turn


@pytest.fixture(scope="module")
def story(
    claude_binary: Path, abcd_on_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Story]:
    with plugin_host(tmp_path_factory.mktemp("story"), claude_binary, abcd_on_path) as claude:
        claude.mock.script = AgentScript(RunBash(ADD_NOTE, "Keep a note"), Text("Noted."))
        written = claude.run("remember how the tests run", allowed_tools=["Bash"])
        (result,) = written.agent_requests()[-1].tool_results()
        note_id = printed_id(result)
        assert note_id is not None, result
        claude.mock.script = AgentScript()
        first = claude.run("how do I run the tests")
        session = first.session_id
        yield Story(
            note_id=note_id,
            written=written,
            first=first,
            again=claude.run("and how do I run the tests with coverage", resume=session),
            unmatched=claude.run(UNMATCHED, resume=session),
            compacted=claude.run("/compact", resume=session),
            after_compact=claude.run("run the tests again", resume=session),
        )


def the_request(turn: Turn) -> Request:
    (request,) = turn.agent_requests()
    return request


def turn_tail(request: Request) -> str:
    """What this turn added: the text after the conversation's last assistant message."""
    messages = request.messages
    last_reply = max(
        (i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1
    )
    return "\n".join(strings(messages[last_reply + 1 :]))


def label_of(text: str) -> str:
    """The hook output that brought the note's title, from the hook's header up to the title."""
    at = text.index(TITLE)
    start = text.rfind(HOOK_CONTEXT, 0, at)
    assert start != -1, "the note arrived as hook output"
    return text[start:at]


def test_the_story_stays_in_one_session_after_the_note_was_written(story: Story) -> None:
    assert story.first.session_id != story.written.session_id
    later = [story.again, story.unmatched, story.compacted, story.after_compact]
    assert {turn.session_id for turn in later} == {story.first.session_id}


def test_the_note_reaches_the_next_sessions_model_once_labelled_with_its_id_and_layer(
    story: Story,
) -> None:
    sent = the_request(story.first).text()

    assert sent.count(TITLE) == 1
    label = label_of(sent)
    assert story.note_id in label
    assert "personal note" in label


def test_a_second_matching_prompt_in_the_same_session_does_not_send_it_again(
    story: Story,
) -> None:
    request = the_request(story.again)

    assert request.text().count(TITLE) == 1, "only the copy the first prompt left in the history"
    assert TITLE not in turn_tail(request)


def test_a_prompt_that_matches_nothing_adds_nothing_from_abcd(story: Story) -> None:
    tail = turn_tail(the_request(story.unmatched))

    assert UNMATCHED in tail
    assert HOOK_CONTEXT not in tail
    assert story.note_id not in tail


def test_after_compact_the_next_matching_prompt_sends_the_note_again(story: Story) -> None:
    request = the_request(story.after_compact)

    assert UNMATCHED not in request.text(), "the compaction replaced the earlier history"
    assert request.text().count(TITLE) == 1
    assert TITLE in turn_tail(request)
    assert story.note_id in label_of(request.text())


def test_once_the_transcript_shows_how_full_the_window_is_the_note_arrives_in_full(
    story: Story,
) -> None:
    # The first prompt of a `claude -p` session has no status line and no reply in its
    # transcript yet, so the fill is unknown and the note may go as one line. By the
    # prompt after the compaction the transcript holds replies whose usage (a few
    # thousand tokens) leaves the window fresh: every candidate goes in full.
    tail = turn_tail(the_request(story.after_compact))

    assert BODY in tail

"""No output a person reads carries a terminal escape from a note: it is shown escaped.

The note is written through the real command (the gate judges its text with
the escapes removed, so it passes); every person-facing reader then shows
`\\x1b` where the note holds ESC. The hook's stdout goes to the model, not a
terminal, and keeps the note's text as written.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from abcd.host.payload import say
from abcd.terminal import escaped
from tests.conftest import BY, Run

ESC = "\x1b"
TITLE = f"Clear{ESC}[2J the screen"
BODY = f"Deploy with the flag.{ESC}]52;c;cGFzdGU={chr(7)} Then\bcheck\u202e the log."


@pytest.fixture
def noted(abcd: Run, repo: Path) -> Path:
    result = abcd(
        "memory",
        "add",
        "--title",
        TITLE,
        "--recall",
        "deploy",
        "--by",
        BY,
        "--session",
        "s-1",
        stdin=BODY,
    )
    assert result.code == 0, result.err
    return repo


def assert_shown_escaped(text: str) -> None:
    assert ESC not in text and "\x07" not in text and "\u202e" not in text and "\b" not in text
    assert "\\x1b[2J" in text


def test_memory_list_shows_a_notes_control_characters_escaped(abcd: Run, noted: Path) -> None:
    out = abcd("memory", "list").out
    assert_shown_escaped(out)
    assert "\\x1b]52;c;cGFzdGU=\\x07" in out and "\\x08" in out and "\\u202e" in out


def test_journal_audit_shows_a_titles_control_characters_escaped(abcd: Run, noted: Path) -> None:
    result = abcd("journal", "audit")
    assert result.code == 0, result.err
    assert_shown_escaped(result.out)


def test_journal_replay_shows_a_titles_control_characters_escaped(abcd: Run, noted: Path) -> None:
    result = abcd("journal", "replay", "--as-of", "1")
    assert result.code == 0, result.err
    assert ESC not in result.out and "Clear\\x1b[2J the screen" in result.out


def test_rules_prompt_shows_the_notes_text_escaped(abcd: Run, noted: Path) -> None:
    result = abcd("rules", "--prompt", "how do we deploy", "--fill", "10")
    assert result.code == 0, result.err
    assert_shown_escaped(result.out)
    assert "\\x1b]52;c;cGFzdGU=\\x07" in result.out


def test_the_hook_sends_the_model_the_note_as_written_and_its_stderr_holds_no_escape(
    abcd: Run, noted: Path
) -> None:
    payload = {"session_id": "s1", "cwd": str(noted), "prompt": "how do we deploy"}
    result = abcd("hook", "prompt-router", stdin=json.dumps(payload))
    assert result.code == 0
    assert TITLE in result.out  # the model's text is not a terminal's
    assert ESC not in result.err and "recalled 1 note(s)" in result.err


def test_the_hooks_stderr_line_shows_control_characters_escaped_and_stays_one_line() -> None:
    stream = io.StringIO()
    say(stream, f"page {ESC}[31mred{ESC}[0m\nsecond line")
    assert stream.getvalue() == "abcd memory: page \\x1b[31mred\\x1b[0m\\nsecond line\n"


def test_escaped_keeps_printable_text_and_chosen_whitespace_and_escapes_the_rest() -> None:
    plain = "plain text, café, 日本語"
    assert escaped(plain) is plain
    assert escaped("a\tb\nc") == "a\tb\nc"
    assert escaped("a\tb\nc", keep="") == "a\\tb\\nc"
    assert escaped("\x9b2J\x7f\u2028\u2066x") == "\\x9b2J\\x7f\\u2028\\u2066x"

"""`abcd journal` through the real command: verify, audit, replay, rebuild."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.conftest import BY, Run


def add(abcd: Run, title: str, *extra: str, session: str = "s-one") -> str:
    result = abcd(
        "memory",
        "add",
        "--title",
        title,
        "--recall",
        "w",
        "--by",
        BY,
        "--everywhere",
        "--session",
        session,
        *extra,
        stdin=f"body of {title}",
    )
    assert result.code == 0, result.err
    return result.out.strip()


def test_verify_passes_an_intact_journal_and_prints_nothing_on_stderr_off_a_terminal(
    abcd: Run,
) -> None:
    add(abcd, "one")
    add(abcd, "two")
    result = abcd("journal", "verify")
    assert result.code == 0 and "2 event(s)" in result.out
    assert result.err == ""


def test_verify_names_the_first_bad_seq_and_exits_1(abcd: Run, abcd_home: Path) -> None:
    for title in ("one", "two", "three"):
        add(abcd, title)
    seg = abcd_home / "journal" / "000001.jsonl"
    seg.write_bytes(seg.read_bytes().replace(b"body of two", b"body of 2wo"))
    result = abcd("journal", "verify")
    assert result.code == 1
    assert "seq 2" in result.err and "edited" in result.err


def test_audit_lists_every_event_with_its_provenance_and_filters(abcd: Run) -> None:
    first = add(abcd, "one", session="s-one")
    add(abcd, "two", session="s-two")
    assert abcd("memory", "remove", first, "--by", "person").code == 0
    events = json.loads(abcd("journal", "audit", "--json").out)["events"]
    assert [e["seq"] for e in events] == [1, 2, 3]
    assert set(events[0]) >= {"seq", "at", "type", "note", "by", "session", "origin"}
    assert events[0]["origin"] == "agent" and events[2]["type"] == "note.removed"
    assert events[2]["title"] == events[0]["title"]  # what was removed, without a `show` per id
    by_note = json.loads(abcd("journal", "audit", "--note", first, "--json").out)["events"]
    assert [e["seq"] for e in by_note] == [1, 3]
    by_session = json.loads(abcd("journal", "audit", "--session", "s-two", "--json").out)["events"]
    assert [e["seq"] for e in by_session] == [2]
    by_writer = json.loads(abcd("journal", "audit", "--by", "Claude", "--json").out)["events"]
    assert [e["seq"] for e in by_writer] == [1, 2]
    for typed in ("claude", "CLAUDE"):  # in any case, as --search is
        any_case = json.loads(abcd("journal", "audit", "--by", typed, "--json").out)["events"]
        assert [e["seq"] for e in any_case] == [1, 2]
    by_person = json.loads(abcd("journal", "audit", "--by", "Person", "--json").out)["events"]
    assert [e["seq"] for e in by_person] == [3]
    later = json.loads(abcd("journal", "audit", "--since", events[1]["at"], "--json").out)["events"]
    assert [e["seq"] for e in later] == [2, 3]
    text = abcd("journal", "audit").out
    assert "note.removed" in text and "s-two" in text
    (removal,) = [line for line in text.splitlines() if "note.removed" in line]
    assert removal.endswith(f"  {events[0]['title']}")


def test_audit_refuses_a_time_it_cannot_read(abcd: Run) -> None:
    add(abcd, "one")
    result = abcd("journal", "audit", "--since", "yesterday-ish")
    assert result.code == 2 and "not a time" in result.err
    # An offset past the calendar's ends was a traceback (OverflowError); a week date and digits
    # run together are Python's forms, not RFC 3339's.
    for since in ("0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00", "2026-W49", "20261203"):
        for args in (("journal", "audit"), ("memory", "removed"), ("journal", "replay", "--as-of")):
            flag = () if args[-1] == "--as-of" else ("--since",)
            if not flag and since.isdigit():
                continue  # a replay's point in digits is a seq
            result = abcd(*args, *flag, since)
            assert result.code == 2, (args, since, result.err)
            assert len(result.err.splitlines()) == 1 and "not a time" in result.err, result.err
    offsetless = abcd("journal", "audit", "--since", "2000-01-01T00:00", "--json")
    assert offsetless.code == 0 and len(json.loads(offsetless.out)["events"]) == 1  # UTC
    # A year before 1000 was written unpadded (`999-...`), so it sorted after every event.
    early = abcd("journal", "audit", "--since", "0999-01-01", "--json")
    assert early.code == 0 and len(json.loads(early.out)["events"]) == 1


@pytest.mark.parametrize("command", [("journal", "audit"), ("memory", "list")])
def test_an_empty_by_is_a_usage_error_not_a_filter_of_everything_or_nothing(
    abcd: Run, command: tuple[str, ...]
) -> None:
    """`audit --by ""` listed every event where `list --by ""` listed no note."""
    add(abcd, "one")
    result = abcd(*command, "--by", "")
    assert (result.code, result.out) == (2, "")
    assert result.err == "abcd: --by is empty: give a writer (Claude, Claude:MODEL or person)\n"


def test_audit_refuses_a_note_id_that_is_none_as_memory_show_does(abcd: Run) -> None:
    """Not "no events" and exit 0: a mistyped id would read as a note with no history."""
    add(abcd, "one")
    audited = abcd("journal", "audit", "--note", "mem-26120215")
    shown = abcd("memory", "show", "mem-26120215")
    assert (audited.code, audited.out, audited.err) == (shown.code, shown.out, shown.err)
    assert audited.code == 1
    assert audited.err == "abcd: refused: id 'mem-26120215' is not a note id (mem- and 16 digits)\n"
    # A well-formed id no event and no layer knows (one digit off): refused too, as `show` does.
    for args in ((), ("--json",)):
        audited = abcd("journal", "audit", "--note", "mem-0000000000000001", *args)
        shown = abcd("memory", "show", "mem-0000000000000001")
        assert (audited.code, audited.out, audited.err) == (shown.code, shown.out, shown.err)
        assert audited.err == "abcd: refused: no note mem-0000000000000001\n"


def test_replay_shows_the_view_as_of_a_seq_and_as_of_a_time(abcd: Run) -> None:
    first = add(abcd, "one")
    time.sleep(0.01)
    add(abcd, "two")
    abcd("memory", "remove", first)
    at_two = json.loads(abcd("journal", "replay", "--as-of", "2", "--json").out)
    assert [n["title"] for n in at_two["notes"]] == ["one", "two"]
    now = json.loads(abcd("journal", "replay", "--as-of", "3", "--json").out)
    assert [n["title"] for n in now["notes"]] == ["two"]
    stamp = json.loads(abcd("journal", "audit", "--json").out)["events"][0]["at"]
    then = json.loads(abcd("journal", "replay", "--as-of", stamp, "--json").out)
    assert [n["title"] for n in then["notes"]] == ["one"]
    assert "as of seq 1" in abcd("journal", "replay", "--as-of", stamp).out


def test_replay_past_the_journals_end_says_so(abcd: Run) -> None:
    add(abcd, "one")
    result = abcd("journal", "replay", "--as-of", "999")
    assert result.code == 0 and result.out.startswith("as of seq 1: 1 note(s)")
    assert (
        result.err
        == "abcd: seq 999 is past the journal's end: this is the view as of its last event\n"
    )


def test_replay_refuses_a_point_that_is_neither_a_seq_nor_a_time_in_one_line(abcd: Run) -> None:
    """`²` and `١` pass `str.isdigit`: `²` once ended in `int`'s traceback."""
    add(abcd, "one")
    for point in ("\u00b2", "\u0661", "9" * 5000, "-1"):
        result = abcd("journal", "replay", "--as-of", point)
        assert result.code == 2, point
        assert len(result.err.splitlines()) == 1, result.err
        assert "not a time nor a seq" in result.err, result.err  # the option takes either


def test_rebuild_reprojects_the_view_and_says_what_changed(abcd: Run, abcd_home: Path) -> None:
    add(abcd, "one")
    add(abcd, "two")
    assert "up to date" in abcd("journal", "rebuild").out
    view = json.loads((abcd_home / "memory.json").read_text())
    view["notes"][0]["title"] = "tampered"
    (abcd_home / "memory.json").write_text(json.dumps(view))
    result = abcd("journal", "rebuild")
    assert result.code == 0 and "changed" in result.out
    assert json.loads((abcd_home / "memory.json").read_text())["notes"][0]["title"] == "one"


def test_verify_names_the_head_line_ahead_of_the_journal_when_it_is_the_witness(
    abcd: Run, abcd_home: Path
) -> None:
    add(abcd, "one")
    add(abcd, "two")
    seg = abcd_home / "journal" / "000001.jsonl"
    seg.write_bytes(seg.read_bytes().splitlines(keepends=True)[0])
    result = abcd("journal", "verify")
    assert result.code == 1 and "head line ahead of journal" in result.err
    assert "names seq 2" in result.err and "(memory.head)" in result.err


def test_verify_names_a_view_ahead_of_the_journal_when_the_view_is_the_witness(
    abcd: Run, abcd_home: Path
) -> None:
    add(abcd, "one")
    add(abcd, "two")
    assert abcd("journal", "rebuild").code == 0
    (abcd_home / "memory.head").unlink()  # the view alone witnesses the journal's end now
    seg = abcd_home / "journal" / "000001.jsonl"
    seg.write_bytes(seg.read_bytes().splitlines(keepends=True)[0])
    result = abcd("journal", "verify")
    assert result.code == 1 and "view ahead of journal" in result.err
    assert "folded to seq 2" in result.err and "(memory.json)" in result.err


def test_verify_and_audit_of_no_journal_say_so(abcd: Run, abcd_home: Path) -> None:
    assert "nothing to verify" in abcd("journal", "verify").out
    assert "no events" in abcd("journal", "audit").out
    assert not abcd_home.exists()


def test_long_work_draws_a_progress_bar_on_a_terminal_only(abcd: Run, abcd_home: Path) -> None:
    import os
    import pty
    import subprocess
    import sys

    add(abcd, "one")
    master, slave = pty.openpty()
    proc = subprocess.run(
        [sys.executable, "-m", "abcd", "journal", "verify"],
        stderr=slave,
        capture_output=False,
        stdout=subprocess.PIPE,
        text=True,
        timeout=60,
    )
    os.close(slave)
    drawn = os.read(master, 4096).decode()
    os.close(master)
    assert proc.returncode == 0
    assert "verify [" in drawn and "100%" in drawn
    assert abcd("journal", "verify").err == ""

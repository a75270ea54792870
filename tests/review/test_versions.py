"""Readers and the journal's versions: the review events are written at v2 so an abcd built
before them refuses the line by name, and a line from a newer abcd is named, never folded as
if it changed nothing, never set aside as damage."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from abcd.constants import JOURNAL_VERSION
from tests.conftest import BY, Run
from tests.hook.conftest import Host
from tests.review.test_desk_cli import keep


def add(abcd: Run) -> str:
    result = abcd(
        "memory", "add", "--title", "Race", "--recall", "race", "--by", BY, stdin="Use -race."
    )
    assert result.code == 0, result.err
    return result.out.strip()


def lines(home: Path) -> list[bytes]:
    return (home / "journal" / "000001.jsonl").read_bytes().splitlines()


def test_a_journal_without_review_events_stays_at_v1_and_review_lines_are_v2(
    abcd: Run, repo: Path, abcd_home: Path
) -> None:
    note_id = add(abcd)
    assert abcd("memory", "remove", note_id).code == 0
    assert {json.loads(line)["v"] for line in lines(abcd_home)} == {1}
    assert json.loads((abcd_home / "memory.json").read_text())["schema_version"] == 1
    other = abcd(
        "memory", "add", "--title", "Deploy", "--recall", "deploy", "--by", BY, stdin="Tuesdays."
    ).out.strip()
    assert keep(other, repo)[0] == 0
    assert [json.loads(line)["v"] for line in lines(abcd_home)] == [1, 1, 1, 2]
    # The view trails the journal (an append writes lines, not the view): it holds no review
    # stamp yet, so it stays v1; the v2 line past it is what an older reader meets first.
    assert json.loads((abcd_home / "memory.json").read_text())["schema_version"] == 1
    assert abcd("journal", "rebuild").code == 0
    assert json.loads((abcd_home / "memory.json").read_text())["schema_version"] == 2


def _append_newer(home: Path, v: int = JOURNAL_VERSION + 1) -> None:
    last = lines(home)[-1]
    line = json.dumps(
        {
            "v": v,
            "seq": json.loads(last)["seq"] + 1,
            "at": "2099-01-01T00:00:00.000000Z",
            "type": "note.pinned",
            "prev": hashlib.sha256(last).hexdigest(),
            "data": {"id": "mem-0000000000000001"},
        },
        separators=(",", ":"),
    ).encode()
    with (home / "journal" / "000001.jsonl").open("ab") as handle:
        handle.write(line + b"\n")


def test_a_line_from_a_newer_abcd_is_named_with_upgrade_and_recover_refuses_to_set_it_aside(
    abcd: Run, repo: Path, abcd_home: Path, host: Host
) -> None:
    add(abcd)
    _append_newer(abcd_home)
    listed = abcd("memory", "list")
    assert listed.code == 1
    assert "written by a newer abcd" in listed.err and "upgrade abcd" in listed.err
    verified = abcd("journal", "verify")
    assert verified.code == 1 and "upgrade abcd" in verified.err
    from tests.review.test_desk_cli import at_a_terminal

    code, out = at_a_terminal(["journal", "recover"], None, repo)
    assert code == 1 and "nothing was set aside" in out, out
    assert "Type yes" not in out  # refused before it asks
    assert not (abcd_home / "recovered").exists()
    host.start("s1")
    envelope = host.prompt("the race flag")
    assert "written by a newer abcd" in envelope["stderr"]
    assert "Use -race." not in json.dumps(envelope.get("hookSpecificOutput", {}))


def test_a_review_event_written_below_its_version_is_refused(
    abcd: Run, repo: Path, abcd_home: Path
) -> None:
    note_id = add(abcd)
    assert keep(note_id, repo)[0] == 0
    segment = abcd_home / "journal" / "000001.jsonl"
    segment.write_bytes(segment.read_bytes().replace(b'{"v":2,', b'{"v":1,'))
    (abcd_home / "memory.json").unlink()
    verified = abcd("journal", "verify")
    assert verified.code == 1 and "note.reviewed at v1, below its v2" in verified.err


def test_a_kind_no_abcd_wrote_at_a_version_this_one_reads_is_named_by_every_reader(
    abcd: Run, repo: Path, abcd_home: Path, host: Host
) -> None:
    add(abcd)
    host.start("s1")
    _append_newer(abcd_home, v=JOURNAL_VERSION)  # a hand-made line: no abcd writes this kind
    listed = abcd("memory", "list")
    assert listed.code == 1 and "unknown event type 'note.pinned'" in listed.err
    envelope = host.prompt("the race flag")
    assert "unknown event type 'note.pinned'" in envelope["stderr"]
    assert "Use -race." not in json.dumps(envelope.get("hookSpecificOutput", {}))


def test_the_hooks_lean_reader_knows_every_kind_the_journal_writes() -> None:
    from abcd.journal import lean
    from abcd.journal.events import EVENT_TYPES

    # `machine.read_line` refuses a kind `lean.SINCE` does not name, and reads each at its version.
    assert {kind: cls.SINCE for kind, cls in EVENT_TYPES.items()} == lean.SINCE

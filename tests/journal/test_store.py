"""Appending and reading: torn tails, segment rolls, the view as a checked cache."""

from __future__ import annotations

import errno
import json
import os
import re
from pathlib import Path

import pytest

from abcd.errors import JournalBroken, Refused, TrustError
from abcd.journal import segments, store
from abcd.journal.view import decode_view
from abcd.trust import Home
from tests.oscalls import patch_os

from .helpers import added, append, append_adds, note_id, removed, segment


def read_view(home: Path):  # type: ignore[no-untyped-def]
    return decode_view((home / "memory.json").read_bytes())


def current(home_path: Path):  # type: ignore[no-untyped-def]
    with Home.open(home_path) as home:  # type: ignore[union-attr]
        return store.load(home)


def test_an_append_writes_the_journal_and_the_view_with_its_checkpoint(abcd_home: Path) -> None:
    append(added(note_id(1)))
    view = read_view(abcd_home)
    assert [n.id for n in view.notes] == [note_id(1)]
    assert view.journal.seq == 1
    assert view.journal.offset == segment(abcd_home).stat().st_size
    assert oct(abcd_home.stat().st_mode & 0o777) == "0o700"
    assert oct((abcd_home / "memory.json").stat().st_mode & 0o777) == "0o600"
    assert oct(segment(abcd_home).stat().st_mode & 0o777) == "0o600"


def test_a_reader_of_an_absent_home_creates_nothing(abcd_home: Path) -> None:
    assert store.load_view().notes == ()
    assert not abcd_home.exists()


def test_a_torn_last_line_is_ignored_and_repaired(abcd_home: Path) -> None:
    append_adds(3)
    with segment(abcd_home).open("ab") as handle:
        handle.write(b'{"v":1,"seq":4,"at":"2026')  # a crash mid-append
    loaded = current(abcd_home)
    assert loaded.view.journal.seq == 3
    append(added(note_id(9)))
    lines = segment(abcd_home).read_bytes().splitlines()
    assert len(lines) == 4 and json.loads(lines[-1])["seq"] == 4
    assert [n.id for n in current(abcd_home).view.notes][-1] == note_id(9)


def test_a_reader_folds_lines_past_the_checkpoint_without_writing(abcd_home: Path) -> None:
    append_adds(2)
    stored = (abcd_home / "memory.json").read_bytes()
    append(added(note_id(7)))
    (abcd_home / "memory.json").write_bytes(stored)  # the view is now behind the journal
    loaded = current(abcd_home)
    assert [n.id for n in loaded.view.notes] == [note_id(0), note_id(1), note_id(7)]
    assert loaded.stale and loaded.refolded is None
    assert (abcd_home / "memory.json").read_bytes() == stored


def test_a_view_edited_by_hand_is_refolded_not_believed(abcd_home: Path) -> None:
    append_adds(2)
    data = json.loads((abcd_home / "memory.json").read_bytes())
    data["notes"][0]["title"] = "forged"
    data["journal"]["head"] = "f" * 64
    (abcd_home / "memory.json").write_text(json.dumps(data))
    loaded = current(abcd_home)
    assert loaded.refolded and "changed outside abcd" in loaded.refolded
    assert [n.title for n in loaded.view.notes] == ["lesson 0", "lesson 1"]


def test_a_note_spliced_into_the_view_with_its_checkpoint_kept_is_not_believed(
    abcd_home: Path,
) -> None:
    append_adds(2)
    raw = (abcd_home / "memory.json").read_bytes()
    forged = raw.replace(b'"title":"lesson 0"', b'"title":"forged 0"')
    assert forged != raw and len(forged) == len(raw)
    (abcd_home / "memory.json").write_bytes(forged)
    loaded = current(abcd_home)
    assert [n.title for n in loaded.view.notes] == ["lesson 0", "lesson 1"]


def test_a_journal_cut_back_under_the_view_is_a_break_not_a_refold(abcd_home: Path) -> None:
    append_adds(3)
    lines = segment(abcd_home).read_bytes().splitlines(keepends=True)
    segment(abcd_home).write_bytes(b"".join(lines[:2]))
    with pytest.raises(JournalBroken, match="seq 3: truncated"):
        current(abcd_home)
    with pytest.raises(JournalBroken, match="seq 3: truncated"):
        append(added(note_id(9)))  # a writer never chains onto it
    assert segment(abcd_home).read_bytes() == b"".join(lines[:2])


def test_undecodable_view_is_refolded(abcd_home: Path) -> None:
    append_adds(2)
    (abcd_home / "memory.json").write_text("{not json")
    assert len(current(abcd_home).view.notes) == 2
    append(added(note_id(5)))
    assert len(read_view(abcd_home).notes) == 3


def test_segments_roll_at_the_fixed_size_and_the_chain_runs_across_them(
    abcd_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store, "SEGMENT_MAX_BYTES", 1500)
    append_adds(12)
    with Home.open(abcd_home) as home, segments.Segments(home) as segs:  # type: ignore[union-attr]
        numbers = segs.numbers()
    assert len(numbers) > 2
    assert all(segment(abcd_home, n).stat().st_size <= 1500 for n in numbers)
    (abcd_home / "memory.json").unlink()
    loaded = current(abcd_home)
    assert [n.id for n in loaded.view.notes] == [note_id(i) for i in range(12)]
    assert loaded.view.journal.segment == numbers[-1]


def test_a_removed_note_leaves_the_view_and_stays_in_the_journal(abcd_home: Path) -> None:
    append_adds(2)
    append(removed(note_id(0)))
    view = current(abcd_home).view
    assert [n.id for n in view.notes] == [note_id(1)]
    assert view.removed == (note_id(0),)
    assert len(segment(abcd_home).read_bytes().splitlines()) == 3


def test_a_refusal_inside_the_plan_writes_nothing(abcd_home: Path) -> None:
    append_adds(1)
    before = segment(abcd_home).read_bytes(), (abcd_home / "memory.json").read_bytes()

    def plan(_view: object) -> list[object]:
        raise Refused("no")

    with pytest.raises(Refused):
        store.append(plan)  # type: ignore[arg-type]
    assert (segment(abcd_home).read_bytes(), (abcd_home / "memory.json").read_bytes()) == before


def test_time_stamps_never_go_backwards(abcd_home: Path) -> None:
    append_adds(5)
    stamps = [json.loads(line)["at"] for line in segment(abcd_home).read_bytes().splitlines()]
    assert stamps == sorted(stamps)
    assert all(s.endswith("Z") and len(s) == len("2026-11-29T12:00:00.000000Z") for s in stamps)


def test_a_broken_chain_is_refused_when_the_view_must_be_refolded(abcd_home: Path) -> None:
    append_adds(3)
    lines = segment(abcd_home).read_bytes().splitlines(keepends=True)
    lines[0] = lines[0].replace(b"lesson 0", b"lesson X")
    segment(abcd_home).write_bytes(b"".join(lines))
    (abcd_home / "memory.json").unlink()
    with pytest.raises(JournalBroken, match="seq 1: edited"):  # as verify names it
        current(abcd_home)


def test_the_lock_file_and_folders_are_private(abcd_home: Path) -> None:
    append_adds(1)
    assert oct((abcd_home / "journal").stat().st_mode & 0o777) == "0o700"
    assert oct((abcd_home / "journal" / ".lock").stat().st_mode & 0o777) == "0o600"
    assert not [p for p in (abcd_home).rglob("*.tmp")]


def test_a_lock_file_that_is_a_link_or_a_fifo_is_refused_by_name_and_nothing_is_written(
    abcd_home: Path, tmp_path: Path
) -> None:
    append_adds(1)
    lock = abcd_home / "journal" / ".lock"
    before = segment(abcd_home).read_bytes()
    for plant, said in (
        (lambda: lock.symlink_to(tmp_path / "elsewhere"), "is a symlink (refused"),
        (lambda: os.mkfifo(lock), "is not a regular file"),
    ):
        lock.unlink()
        plant()
        with pytest.raises(TrustError, match=re.escape(f"{lock}: {said}")) as refused:
            append_adds(1)
        assert str(refused.value).endswith(
            "; the journal lock was not taken, so nothing was written"
        )
        assert segment(abcd_home).read_bytes() == before
    assert not (tmp_path / "elsewhere").exists()


def test_a_read_only_home_says_the_lock_was_not_taken_and_nothing_was_written(
    abcd_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`abcd: <home>/journal/.lock: Read-only file system` named a file, not what failed."""
    append_adds(1)
    before = segment(abcd_home).read_bytes()
    real_open = os.open

    def read_only(path: object, flags: int, *args: object, **kwargs: object) -> int:
        if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS))
        return real_open(path, flags, *args, **kwargs)  # type: ignore[arg-type]

    with monkeypatch.context() as patched:  # (`undo` would undo the suite's ABCD_HOME too)
        patch_os(patched, "open", read_only)
        with pytest.raises(TrustError) as refused:
            append_adds(1)
    assert str(refused.value) == (
        f"{abcd_home}/journal/.lock: Read-only file system; the journal lock was not taken, "
        "so nothing was written"
    )
    assert segment(abcd_home).read_bytes() == before

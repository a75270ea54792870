"""`verify` catches every single-line edit, deletion, swap and truncation of a 50-event journal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from abcd.journal.verify import Report, verify
from abcd.trust import Home
from tests.conftest import Run

from .helpers import append, append_adds, note_id, removed, segment

N = 50


@pytest.fixture
def journal(abcd_home: Path) -> bytes:
    append_adds(N - 5)
    for n in range(5):
        append(removed(note_id(n)))
    return segment(abcd_home).read_bytes()


def check(abcd_home: Path) -> Report:
    with Home.open(abcd_home) as home:  # type: ignore[union-attr]
        return verify(home)


def write_lines(abcd_home: Path, lines: list[bytes]) -> None:
    segment(abcd_home).write_bytes(b"".join(lines))


def test_an_intact_journal_verifies(abcd_home: Path, journal: bytes) -> None:
    report = check(abcd_home)
    assert report.ok and report.events == N


@pytest.mark.parametrize("k", range(N))
def test_editing_any_line_content_is_caught_at_its_seq(
    abcd_home: Path, journal: bytes, k: int
) -> None:
    lines = journal.splitlines(keepends=True)
    event = json.loads(lines[k])
    event["data"]["id"] = "mem-1111111111111111"
    lines[k] = json.dumps(event, separators=(",", ":")).encode() + b"\n"
    write_lines(abcd_home, lines)
    report = check(abcd_home)
    assert not report.ok
    assert report.breaks[0].seq == k + 1 and "edited" in report.breaks[0].what


@pytest.mark.parametrize("k", range(N))
def test_editing_any_line_prev_is_caught_at_its_seq(
    abcd_home: Path, journal: bytes, k: int
) -> None:
    lines = journal.splitlines(keepends=True)
    event = json.loads(lines[k])
    event["prev"] = "1" * 64
    lines[k] = json.dumps(event, separators=(",", ":")).encode() + b"\n"
    write_lines(abcd_home, lines)
    report = check(abcd_home)
    assert report.breaks[0].seq == k + 1 and "edited" in report.breaks[0].what


@pytest.mark.parametrize("k", range(N))
def test_deleting_any_line_is_caught(abcd_home: Path, journal: bytes, k: int) -> None:
    lines = journal.splitlines(keepends=True)
    del lines[k]
    write_lines(abcd_home, lines)
    report = check(abcd_home)
    assert not report.ok
    assert report.breaks[0].seq == k + 1
    assert "missing" in report.breaks[0].what or "truncated" in report.breaks[0].what


@pytest.mark.parametrize("k", range(N - 1))
def test_swapping_any_two_neighbours_is_caught(abcd_home: Path, journal: bytes, k: int) -> None:
    lines = journal.splitlines(keepends=True)
    lines[k], lines[k + 1] = lines[k + 1], lines[k]
    write_lines(abcd_home, lines)
    report = check(abcd_home)
    assert report.breaks[0].seq == k + 1 and "reordered" in report.breaks[0].what


@pytest.mark.parametrize("k", range(N))
def test_truncating_inside_or_after_any_line_is_caught(
    abcd_home: Path, journal: bytes, k: int
) -> None:
    lines = journal.splitlines(keepends=True)
    kept = b"".join(lines[:k])
    for cut in (kept, kept + lines[k][: len(lines[k]) // 2]):
        segment(abcd_home).write_bytes(cut)
        report = check(abcd_home)
        assert not report.ok
        assert "truncated" in report.breaks[0].what and report.breaks[0].seq == k + 1


def test_a_torn_tail_past_the_checkpoint_is_noted_not_failed(
    abcd_home: Path, journal: bytes
) -> None:
    segment(abcd_home).write_bytes(journal + b'{"v":1,"seq":51')
    report = check(abcd_home)
    assert report.ok and any("torn" in n for n in report.notes)


def test_a_writer_between_the_lines_and_the_witnesses_is_no_break(
    abcd_home: Path, journal: bytes, abcd: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Verify read the journal's lines, then the head line, the view and the index: a writer's
    append in between (a real `abcd memory add`) left a witness of a line it had not read, and
    an intact journal was called broken ("head line ahead of journal"), pointing the person at
    `journal recover`. The witnesses are read first now, and the journal only grows."""
    from abcd.journal import verify as verify_module

    read = verify_module.read_links

    def and_a_writer(*args: object, **kwargs: object) -> object:
        links = read(*args, **kwargs)  # type: ignore[arg-type]
        added = abcd("memory", "add", "--title", "t", "--recall", "x", "--by", "person", stdin="b")
        assert added.code == 0, added.err
        return links

    with monkeypatch.context() as patched:  # (`undo` would undo the suite's ABCD_HOME too)
        patched.setattr(verify_module, "read_links", and_a_writer)
        report = check(abcd_home)
    assert report.ok and not report.breaks, report.breaks
    assert report.events == N  # the lines it read; the add's line came after them
    assert check(abcd_home).events == N + 1

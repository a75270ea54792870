"""The fill fold: the last status line reading after the last reset, else the transcript, else unknown."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from abcd.errors import TrustError
from abcd.session.events import FillRead, SessionRecord, SessionReset
from abcd.session.files import FILL_DIR, SESSIONS_DIR, append_events
from abcd.session.fill import (
    Fill,
    current_fill,
    ensure_fill_folder,
    reading_after_last_reset,
)
from abcd.trust import Home, guarded

from .helpers import (
    SESSION,
    assistant,
    at,
    boundary,
    fill_file,
    make_home,
    transcript,
    user,
    write_stamped,
)


def reading(second: int, used: float) -> SessionRecord:
    return SessionRecord(at(second), FillRead(used_percentage=used))


def reset(second: int) -> SessionRecord:
    return SessionRecord(at(second), SessionReset(reason="pre-compact"))


# --- the pure fold ------------------------------------------------------------


def test_without_a_reset_the_last_reading_is_the_fill() -> None:
    assert reading_after_last_reset([reading(1, 7), reading(2, 12)], []) == 12


def test_a_reading_after_the_last_reset_wins_over_one_before_it() -> None:
    readings = [reading(1, 64), reading(5, 3)]
    assert reading_after_last_reset(readings, [reset(2), reset(4)]) == 3


def test_a_reset_after_the_last_reading_leaves_no_reading() -> None:
    assert reading_after_last_reset([reading(1, 64), reading(2, 65)], [reset(3)]) is None


def test_a_reading_stamped_at_the_same_instant_as_the_reset_does_not_count() -> None:
    assert reading_after_last_reset([reading(3, 64)], [reset(3)]) is None


# --- current_fill over the real files ---------------------------------------------


def test_a_status_line_reading_after_the_reset_is_the_fill(abcd_home: Path) -> None:
    write_stamped(abcd_home, SESSIONS_DIR, SESSION, [(at(2), SessionReset(reason="pre-compact"))])
    write_stamped(
        abcd_home,
        FILL_DIR,
        SESSION,
        [(at(1), FillRead(used_percentage=64)), (at(3), FillRead(used_percentage=2))],
    )
    with make_home(abcd_home) as home:
        assert current_fill(home, SESSION, None) == Fill(2.0, "statusline")


def test_a_reset_after_the_last_reading_falls_back_to_the_transcript(
    abcd_home: Path, tmp_path: Path
) -> None:
    write_stamped(abcd_home, FILL_DIR, SESSION, [(at(1), FillRead(used_percentage=64))])
    write_stamped(abcd_home, SESSIONS_DIR, SESSION, [(at(2), SessionReset(reason="backstop"))])
    path = transcript(tmp_path, user("hi"), assistant(1000, 2000, 7000))
    with make_home(abcd_home) as home:
        assert current_fill(home, SESSION, str(path)) == Fill(5.0, "transcript")


def test_a_reset_after_the_last_reading_and_no_transcript_leaves_the_fill_unknown(
    abcd_home: Path,
) -> None:
    write_stamped(abcd_home, FILL_DIR, SESSION, [(at(1), FillRead(used_percentage=64))])
    write_stamped(abcd_home, SESSIONS_DIR, SESSION, [(at(2), SessionReset(reason="backstop"))])
    with make_home(abcd_home) as home:
        assert current_fill(home, SESSION, None) == Fill(None, "unknown")


def test_a_compaction_is_never_followed_by_the_figure_from_before_it(
    abcd_home: Path, tmp_path: Path
) -> None:
    with make_home(abcd_home) as home:
        append_events(home, FILL_DIR, SESSION, [FillRead(used_percentage=81)])
        append_events(home, SESSIONS_DIR, SESSION, [SessionReset(reason="pre-compact")])
        path = transcript(tmp_path, assistant(150_000, 2000, 10_000), boundary(), user("go on"))
        fill = current_fill(home, SESSION, str(path))
    assert fill == Fill(0.0, "transcript")


def test_session_records_the_caller_already_read_are_used_instead_of_the_file(
    abcd_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_stamped(abcd_home, FILL_DIR, SESSION, [(at(1), FillRead(used_percentage=64))])
    opened: list[str] = []
    real_open = guarded.open_at

    def recording_open(path: str, flags: int, mode: int = 0o600, dir_fd: int | None = None) -> int:
        opened.append(path)
        return real_open(path, flags, mode, dir_fd)

    with make_home(abcd_home) as home:
        monkeypatch.setattr(guarded, "open_at", recording_open)
        fill = current_fill(home, SESSION, None, session_records=[reset(2)])
    assert fill == Fill(None, "unknown")
    assert SESSIONS_DIR not in opened


def test_without_a_home_the_transcript_still_gives_the_fill(tmp_path: Path) -> None:
    path = transcript(tmp_path, assistant(50_000))
    assert current_fill(None, SESSION, str(path)) == Fill(25.0, "transcript")


def test_with_nothing_to_go_on_the_fill_is_unknown(abcd_home: Path) -> None:
    assert current_fill(None, None, None) == Fill(None, "unknown")
    with make_home(abcd_home) as home:
        assert current_fill(home, SESSION, None) == Fill(None, "unknown")
        assert current_fill(home, SESSION, "") == Fill(None, "unknown")


def test_a_symlinked_fill_file_is_not_read_and_is_named_as_the_problem(
    abcd_home: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "planted.jsonl"
    elsewhere.write_bytes(b"")
    with make_home(abcd_home) as home:
        fill_file(abcd_home).symlink_to(elsewhere)
        fill = current_fill(home, SESSION, None)
    assert (fill.used_percentage, fill.source) == (None, "unknown")
    assert fill.problem is not None and "symlink" in fill.problem
    assert SESSION not in fill.problem


def test_a_reading_past_one_hundred_is_taken_as_full(abcd_home: Path) -> None:
    write_stamped(abcd_home, FILL_DIR, SESSION, [(at(1), FillRead(used_percentage=140))])
    with make_home(abcd_home) as home:
        assert current_fill(home, SESSION, None) == Fill(100.0, "statusline")


# --- the folder the session-start hook makes --------------------------------------


def test_ensure_fill_folder_creates_a_private_folder_once(abcd_home: Path) -> None:
    with make_home(abcd_home, fill_folder=False) as home:
        ensure_fill_folder(home)
        ensure_fill_folder(home)
    mode = os.stat(abcd_home / FILL_DIR, follow_symlinks=False).st_mode
    assert stat.S_ISDIR(mode) and stat.S_IMODE(mode) == 0o700


def test_ensure_fill_folder_refuses_a_symlinked_fill_folder_and_creates_nothing_through_it(
    abcd_home: Path, tmp_path: Path
) -> None:
    target = tmp_path / "target"
    target.mkdir(mode=0o700)
    with make_home(abcd_home, fill_folder=False) as home:
        (abcd_home / FILL_DIR).symlink_to(target)
        with pytest.raises(TrustError, match="symlink"):
            ensure_fill_folder(home)
    assert list(target.iterdir()) == []


def test_a_symlinked_home_is_refused_before_any_fill_folder_is_made(
    abcd_home: Path, tmp_path: Path
) -> None:
    target = tmp_path / "real-home"
    target.mkdir(mode=0o700)
    abcd_home.symlink_to(target)
    with pytest.raises(TrustError, match="symlink"):
        Home.open(abcd_home, create=True)
    assert list(target.iterdir()) == []


def test_an_append_the_disk_cut_short_says_so_and_the_next_one_ends_its_line(
    abcd_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk writes part of the lines and returns how much: the short count was not read,
    so the hook took its sends as recorded."""
    from abcd.errors import StorageError
    from abcd.session import files

    with make_home(abcd_home) as home:
        real_write = os.write
        monkeypatch.setattr(files.os, "write", lambda fd, data: real_write(fd, data[:7]))
        with pytest.raises(StorageError, match=r"cannot append: wrote 7 of \d+ bytes"):
            append_events(home, FILL_DIR, SESSION, [FillRead(used_percentage=81)])
        monkeypatch.setattr(files.os, "write", real_write)
        append_events(home, FILL_DIR, SESSION, [FillRead(used_percentage=64)])
    lines = (abcd_home / FILL_DIR).glob("*.jsonl").__next__().read_bytes().splitlines()
    assert len(lines) == 2 and len(lines[0]) == 7 and b'"used_percentage":64' in lines[1]

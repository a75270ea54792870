"""Building journal events for tests without going through the CLI."""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from abcd.journal import history, store
from abcd.journal.envelope import Record
from abcd.journal.events import Event, NoteAdded, NoteRemoved
from abcd.journal.fold import fold
from abcd.journal.view import EMPTY_VIEW, View
from abcd.trust import Home

BY = "Claude:claude-opus-4-8"


def added(note_id: str, title: str = "a lesson", root: str | None = None) -> NoteAdded:
    return NoteAdded(
        id=note_id,
        title=title,
        body=f"body of {title}",
        recall=("test", "lesson"),
        root=root,
        origin="agent",
        written_by=BY,
        session="s-1",
    )


def removed(note_id: str) -> NoteRemoved:
    return NoteRemoved(id=note_id, removed_by="person", session=None)


def note_id(n: int) -> str:
    return f"mem-{n:016d}"


def append(*events: Event) -> View:
    view, _ = store.append(lambda _view: list(events))
    return view


def append_adds(count: int, start: int = 0) -> View:
    view = View()
    for n in range(start, start + count):
        view = append(added(note_id(n), f"lesson {n}"))
    return view


def segment(home: Path, number: int = 1) -> Path:
    return home / "journal" / f"{number:06d}.jsonl"


def in_home(abcd_home: Path) -> Home:
    """The home, opened through its trust checks (a test's own)."""
    home = Home.open(abcd_home)
    assert home is not None
    return home


def stored_seq(abcd_home: Path) -> int:
    """How far the view on disk goes: its checkpoint's seq (it may trail the journal)."""
    with in_home(abcd_home) as home:
        data = home.read("memory.json", 1 << 30)
    assert data is not None
    return store.decode_view(data).journal.seq


def as_records(evs: list[Event]) -> list[Record]:
    """The events as the journal would stamp them (seq from 1, a second apart), unchained."""
    return [
        Record(i + 1, f"2026-11-29T12:00:{i:02d}.000000Z", "0" * 64, e) for i, e in enumerate(evs)
    ]


def folded_in_pieces(records: list[Record], cuts: list[int]) -> View:
    """The fold of `records`, cut wherever `cuts` say (those within them), piece by piece."""
    bounds = sorted({0, len(records), *(c for c in cuts if c <= len(records))})
    view = EMPTY_VIEW
    for start, end in itertools.pairwise(bounds):
        view = fold(view, records[start:end])
    return view


def writable(written: list[Event], event: Event) -> bool:
    """What the writer lets through: an act on a live note, an add of a new id."""
    live = {n.id for n in fold(EMPTY_VIEW, as_records(written)).notes}
    return (event.id not in live) if isinstance(event, NoteAdded) else (event.id in live)


@contextmanager
def written_home(evs: list[Event]) -> Iterator[tuple[Path, Home, list[Record]] | None]:
    """A home of its own (a property test's example) holding those of `evs` the writer lets
    through, one append each: its folder, the open home and its records; `None` when none was."""
    home_dir = Path(tempfile.mkdtemp()) / "home"
    before = os.environ.get("ABCD_HOME")
    try:
        os.environ["ABCD_HOME"] = str(home_dir)
        written: list[Event] = []
        for event in evs:
            if writable(written, event):
                store.append(lambda _v, e=event: [e])
                written.append(event)
        if not written:
            yield None
            return
        home = Home.open(home_dir)
        assert home is not None
        with home:
            yield home_dir, home, list(history.records(home))
    finally:
        if before is not None:
            os.environ["ABCD_HOME"] = before
        shutil.rmtree(home_dir.parent, ignore_errors=True)

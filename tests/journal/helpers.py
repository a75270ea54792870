"""Building journal events for tests without going through the CLI."""

from __future__ import annotations

from pathlib import Path

from abcd.journal import store
from abcd.journal.events import Event, NoteAdded, NoteRemoved
from abcd.journal.view import View
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

"""The pure projection of journal records into the view: no I/O, input never mutated.

`fold(view, records)` == folding the same records one by one (a property
test holds it). The fold is tolerant: a removal of a note that is not there
changes nothing (the writer refuses it under the lock, so only a hand-made
journal holds one, and `journal verify` walks the chain, not the semantics).
"""

from __future__ import annotations

from collections.abc import Iterable

from abcd.journal.envelope import Record
from abcd.journal.events import Event, NoteAdded, NoteRemoved
from abcd.journal.view import Checkpoint, Note, View


class Projection:
    """A mutable working copy of a view, used inside one fold and never shared.

    A note added during the fold is kept as its event and time and turned into
    a `Note` only when the view is taken, so notes added and removed within one
    fold (most of a long journal) cost no `Note` at all.
    """

    def __init__(self, view: View) -> None:
        self.notes: dict[str, Note | tuple[NoteAdded, str]] = {n.id: n for n in view.notes}
        self.removed: dict[str, None] = dict.fromkeys(view.removed)

    def apply(self, record: Record) -> None:
        self.apply_event(record.event, record.at)

    def apply_event(self, event: Event, at: str) -> None:
        if type(event) is NoteAdded:
            self.notes[event.id] = (event, at)
        elif type(event) is NoteRemoved and self.notes.pop(event.id, None) is not None:
            self.removed[event.id] = None
        # JournalRecovered changes no note: the tail it set aside is simply not folded.

    def view(self, checkpoint: Checkpoint) -> View:
        notes = tuple(n if isinstance(n, Note) else _note(*n) for n in self.notes.values())
        return View(journal=checkpoint, notes=notes, removed=tuple(self.removed))


def _note(ev: NoteAdded, at: str) -> Note:
    return Note(
        id=ev.id,
        title=ev.title,
        body=ev.body,
        recall=ev.recall,
        root=ev.root,
        origin=ev.origin,
        written_by=ev.written_by,
        written_at=at,
        session=ev.session,
    )


def fold(view: View, records: Iterable[Record], checkpoint: Checkpoint | None = None) -> View:
    """The view after `records`; `checkpoint` is where they end (kept as it was when omitted)."""
    projection = Projection(view)
    for record in records:
        projection.apply(record)
    return projection.view(checkpoint if checkpoint is not None else view.journal)

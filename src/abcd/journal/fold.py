"""The pure projection of journal records into the view: no I/O, input never mutated.

`fold(view, records)` == folding the same records one by one (a property
test holds it). The fold is tolerant: a removal of a note that is not there
changes nothing (the writer refuses it under the lock, so only a hand-made
journal holds one, and `journal verify` walks the chain, not the semantics).
"""

from __future__ import annotations

from collections.abc import Iterable

from abcd.journal.envelope import Record
from abcd.journal.events import NoteAdded, NoteRemoved
from abcd.journal.view import Checkpoint, Note, View


class Projection:
    """A mutable working copy of a view, used inside one fold and never shared."""

    def __init__(self, view: View) -> None:
        self.notes: dict[str, Note] = {n.id: n for n in view.notes}
        self.removed: dict[str, None] = dict.fromkeys(view.removed)
        self.checkpoint = view.journal

    def apply(self, record: Record) -> None:
        match record.event:
            case NoteAdded() as ev:
                self.notes[ev.id] = Note(
                    id=ev.id,
                    title=ev.title,
                    body=ev.body,
                    recall=ev.recall,
                    root=ev.root,
                    origin=ev.origin,
                    written_by=ev.written_by,
                    written_at=record.at,
                    session=ev.session,
                )
            case NoteRemoved(id=note_id):
                if self.notes.pop(note_id, None) is not None:
                    self.removed[note_id] = None

    def view(self, checkpoint: Checkpoint) -> View:
        return View(
            journal=checkpoint, notes=tuple(self.notes.values()), removed=tuple(self.removed)
        )


def fold(view: View, records: Iterable[Record], checkpoint: Checkpoint | None = None) -> View:
    """The view after `records`; `checkpoint` is where they end (kept as it was when omitted)."""
    projection = Projection(view)
    for record in records:
        projection.apply(record)
    return projection.view(checkpoint if checkpoint is not None else view.journal)

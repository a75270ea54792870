"""The pure projection of journal records into the view: no I/O, input never mutated.

`fold(view, records)` == folding the same records one by one (a property
test holds it). The fold is tolerant: a removal, revision, review or
promotion of a note that is not there changes nothing, nor does a restore
of a note that is, and so does a review or promotion of a revision that is
no longer the note's (the writer refuses
each under the lock, so only a hand-made journal holds one, and `journal
verify` walks the chain, not the semantics).
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from abcd.constants import VIEW_SCHEMA_PLAIN, VIEW_SCHEMA_VERSION
from abcd.journal.envelope import Record
from abcd.journal.events import (
    Event,
    JournalRecovered,
    NoteAdded,
    NotePromoted,
    NoteRemoved,
    NoteRestored,
    NoteReviewed,
    NoteRevised,
)
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
            return
        if type(event) is NoteRemoved:
            if self.notes.pop(event.id, None) is not None:
                self.removed[event.id] = None
            return
        if type(event) is NoteRestored:
            if event.id not in self.notes:  # back as it stood, under the id it had
                self.notes[event.id] = msgspec.structs.replace(event.note, id=event.id)
                self.removed.pop(event.id, None)
            return
        # JournalRecovered changes no note: the tail it set aside is simply not folded.
        note = self.note(event.id) if not isinstance(event, JournalRecovered) else None
        if note is None:
            return
        if type(event) is NoteRevised:
            self.notes[event.id] = msgspec.structs.replace(
                note,
                title=event.title,
                body=event.body,
                recall=event.recall,
                revision=note.revision + 1,
                revised_by=event.revised_by,
                revised_at=at,
                reviewed_by=None,
                reviewed_at=None,
            )
        elif type(event) is NoteReviewed and note.revision == event.revision:
            self.notes[event.id] = msgspec.structs.replace(
                note, reviewed_by=event.reviewed_by, reviewed_at=at
            )
        elif type(event) is NotePromoted and note.revision == event.revision:
            self.notes[event.id] = msgspec.structs.replace(
                note, promoted_by=event.promoted_by, promoted_at=at
            )

    def note(self, note_id: str) -> Note | None:
        """The live note `note_id` as folded so far, or `None`."""
        held = self.notes.get(note_id)
        return held if held is None or isinstance(held, Note) else _note(*held)

    def view(self, checkpoint: Checkpoint) -> View:
        notes = tuple(n if isinstance(n, Note) else _note(*n) for n in self.notes.values())
        # Review stamps need schema 2, which a reader built before them refuses (constants).
        schema = VIEW_SCHEMA_VERSION if any(n.stamped for n in notes) else VIEW_SCHEMA_PLAIN
        return View(
            schema_version=schema, journal=checkpoint, notes=notes, removed=tuple(self.removed)
        )


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

"""The journal's events: immutable facts, named in the past tense, with explicit string tags.

An event holds what happened and nothing about where it is stored: the
envelope (`abcd.journal.envelope`) wraps it with seq, time and the hash chain.
Schema evolution follows msgspec's rules: a new field gets a default, a field
is never retyped or renamed, and a tag is never renamed.
"""

from __future__ import annotations

from typing import ClassVar, Literal

import msgspec

# "person": written with `--by person`, by a person rather than an agent (issue 15).
Origin = Literal["agent", "host-memory-move", "person"]


class NoteAdded(msgspec.Struct, frozen=True, kw_only=True):
    """A note was written. Its time is the envelope's `at`, taken from the clock."""

    TYPE: ClassVar[str] = "note.added"

    id: str
    title: str
    body: str
    recall: tuple[str, ...]
    root: str | None
    origin: Origin
    written_by: str
    session: str | None


class NoteRemoved(msgspec.Struct, frozen=True, kw_only=True):
    """A note was removed from the view; its `NoteAdded` stays in the journal for ever."""

    TYPE: ClassVar[str] = "note.removed"

    id: str
    removed_by: str
    session: str | None


class JournalRecovered(msgspec.Struct, frozen=True, kw_only=True):
    """A person set aside the journal's tail from the first event the chain no longer vouched
    for (`abcd journal recover`). Nothing was deleted: the tail's bytes are in `set_aside`
    (a folder under the home), with their count and SHA-256 here. Notes are not changed by
    this event; the ones the tail held are simply no longer in the journal's fold."""

    TYPE: ClassVar[str] = "journal.recovered"

    from_seq: int  # the seq the break was named at
    what: str  # the break, as `journal verify` named it
    set_aside: str  # the folder, relative to the home, holding what was set aside
    lines: int  # complete journal lines set aside
    bytes: int  # bytes set aside from the journal's segments
    sha256: str  # of those bytes, in journal order
    recovered_by: str
    session: str | None


Event = NoteAdded | NoteRemoved | JournalRecovered

# The tag written in the envelope's `type`, mapped to the Struct that decodes `data`.
EVENT_TYPES: dict[str, type[NoteAdded] | type[NoteRemoved] | type[JournalRecovered]] = {
    NoteAdded.TYPE: NoteAdded,
    NoteRemoved.TYPE: NoteRemoved,
    JournalRecovered.TYPE: JournalRecovered,
}

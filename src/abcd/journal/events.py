"""The journal's events: immutable facts, named in the past tense, with explicit string tags.

An event holds what happened and nothing about where it is stored: the
envelope (`abcd.journal.envelope`) wraps it with seq, time and the hash chain.
Schema evolution follows msgspec's rules: a new field gets a default, a field
is never retyped or renamed, and a tag is never renamed.

Each event names the journal version its lines are written at (`SINCE`): a
new kind of event gets a new version, so a reader built before it meets a
line whose `v` it does not read and refuses it by name ("written by a newer
abcd"), rather than skipping an event it cannot fold (docs/journal.md).
"""

from __future__ import annotations

from typing import ClassVar

import msgspec

from abcd.journal.note import Note, Origin

__all__ = [
    "EVENT_TYPES",
    "Event",
    "EventType",
    "JournalRecovered",
    "NoteAdded",
    "NotePromoted",
    "NoteRemoved",
    "NoteRestored",
    "NoteReviewed",
    "NoteRevised",
    "Origin",
]


class NoteAdded(msgspec.Struct, frozen=True, kw_only=True):
    """A note was written. Its time is the envelope's `at`, taken from the clock."""

    TYPE: ClassVar[str] = "note.added"
    SINCE: ClassVar[int] = 1

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
    SINCE: ClassVar[int] = 1

    id: str
    removed_by: str
    session: str | None


class JournalRecovered(msgspec.Struct, frozen=True, kw_only=True):
    """A person set aside the journal's tail from the first event the chain no longer vouched
    for (`abcd journal recover`). Nothing was deleted: the tail's bytes are in `set_aside`
    (a folder under the home), with their count and SHA-256 here. Notes are not changed by
    this event; the ones the tail held are simply no longer in the journal's fold."""

    TYPE: ClassVar[str] = "journal.recovered"
    SINCE: ClassVar[int] = 1

    from_seq: int  # the seq the break was named at
    what: str  # the break, as `journal verify` named it
    set_aside: str  # the folder, relative to the home, holding what was set aside
    lines: int  # complete journal lines set aside
    bytes: int  # bytes set aside from the journal's segments
    sha256: str  # of those bytes, in journal order
    recovered_by: str
    session: str | None


class NoteRevised(msgspec.Struct, frozen=True, kw_only=True):
    """A note's text was replaced: its whole new title, body and recall words (issue 14).

    The note keeps its id, reach and first stamps; the text it had stays in
    the journal in the event that wrote it. The gate judged the new text as
    it judges an add.
    """

    TYPE: ClassVar[str] = "note.revised"
    SINCE: ClassVar[int] = 2

    id: str
    title: str
    body: str
    recall: tuple[str, ...]
    revised_by: str
    session: str | None


class NoteReviewed(msgspec.Struct, frozen=True, kw_only=True):
    """A person kept a note as it stood at `revision` (0: as added; n: after its n-th revision).

    A later revision makes the note unreviewed again; a review of a revision
    that is no longer the note's changes nothing.
    """

    TYPE: ClassVar[str] = "note.reviewed"
    SINCE: ClassVar[int] = 2

    id: str
    revision: int
    reviewed_by: str
    session: str | None


class NotePromoted(msgspec.Struct, frozen=True, kw_only=True):
    """A person copied a note, as it stood at `revision`, into a checkout's `.abcd/memory.json`.

    `root` is the root commit of the checkout it went into (`None` when it
    has no commit). The personal note stays; the project's note of the same
    id suppresses it in recall.
    """

    TYPE: ClassVar[str] = "note.promoted"
    SINCE: ClassVar[int] = 2

    id: str
    revision: int
    root: str | None
    promoted_by: str
    session: str | None


class NoteRestored(msgspec.Struct, frozen=True, kw_only=True):
    """A person brought a removed note back, as it stood when it was last removed.

    `note` is that note whole (text, first stamps, revision, keep and
    promotion), so the fold puts it back from this line alone; the gate
    judged its text again, as it judges an add, before it was written.
    """

    TYPE: ClassVar[str] = "note.restored"
    SINCE: ClassVar[int] = 3

    id: str
    note: Note
    restored_by: str
    session: str | None


Event = (
    NoteAdded
    | NoteRemoved
    | JournalRecovered
    | NoteRevised
    | NoteReviewed
    | NotePromoted
    | NoteRestored
)

EventType = (
    type[NoteAdded]
    | type[NoteRemoved]
    | type[JournalRecovered]
    | type[NoteRevised]
    | type[NoteReviewed]
    | type[NotePromoted]
    | type[NoteRestored]
)

# The tag written in the envelope's `type`, mapped to the Struct that decodes `data`.
EVENT_TYPES: dict[str, EventType] = {
    cls.TYPE: cls
    for cls in (
        NoteAdded,
        NoteRemoved,
        JournalRecovered,
        NoteRevised,
        NoteReviewed,
        NotePromoted,
        NoteRestored,
    )
}

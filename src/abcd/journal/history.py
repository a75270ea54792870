"""Reading history: `audit` lists every event with its provenance; `replay` folds a prefix.

Both walk the chain (a broken journal is named, never shown as if whole).
`replay --as-of` takes a seq or a time: the view after the last event at or
before it. `at` never goes backwards (the writer clamps it to the previous
event's), so a time names one prefix.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import NamedTuple

import msgspec

from abcd.errors import JournalBroken, UsageError
from abcd.journal.envelope import Record, line_hash
from abcd.journal.events import (
    JournalRecovered,
    NoteAdded,
    NotePromoted,
    NoteRemoved,
    NoteRestored,
    NoteReviewed,
    NoteRevised,
)
from abcd.journal.fold import Projection
from abcd.journal.segments import RawLine, Segments
from abcd.journal.store import SameText, locate_break, same_text, walk
from abcd.journal.view import EMPTY_VIEW, Checkpoint, Note, View
from abcd.shapes import count_of
from abcd.trust import Home


class AuditRow(msgspec.Struct, frozen=True):
    """One event as a reviewer reads it: `title` is the note's, where the event carries it;
    `what` says what a review or a recovery did (`kept as of revision 1`)."""

    seq: int
    at: str
    type: str
    note: str | None  # None for `journal.recovered`, which is on no note
    by: str
    session: str | None
    origin: str | None
    title: str | None
    what: str | None = None

    @property
    def said(self) -> str | None:
        """The row's words in one: what it did, then the note's title."""
        if self.what is None:
            return self.title
        return f"{self.what}: {self.title}" if self.title is not None else self.what


def records(home: Home, on_bytes: Callable[[int], None] | None = None) -> Iterator[Record]:
    """Every record, oldest first; a break raises as every command names it (after the prefix)."""
    with Segments(home) as segs:
        # A record is yielded only once the next line's `prev` vouches for it (or it is the
        # last): an edited line is never shown as history, only the break that names it.
        last: Record | None = None
        try:
            for _, record in walk(segs.lines(on_bytes=on_bytes)):
                if last is not None:
                    yield last
                last = record
        except JournalBroken:
            raise locate_break(home, segs) from None
        if last is not None:
            found = locate_break(home, segs) if _last_unvouched(home, segs) else None
            if found is not None:
                raise found
            yield last


def _last_unvouched(home: Home, segs: Segments) -> bool:
    """Whether the view, folded to the last line, recorded another hash for it (an edit)."""
    from abcd.journal.store import stored_checkpoint

    cp = stored_checkpoint(home)
    if cp is None or not cp[2]:
        return False
    return not segs.holds(cp[0], cp[1], cp[3])


def audit_row(record: Record) -> AuditRow:
    match record.event:
        case NoteAdded() as ev:
            return AuditRow(
                record.seq,
                record.at,
                ev.TYPE,
                ev.id,
                ev.written_by,
                ev.session,
                ev.origin,
                ev.title,
            )
        case NoteRemoved() as ev:
            return AuditRow(
                record.seq, record.at, ev.TYPE, ev.id, ev.removed_by, ev.session, None, None
            )
        case NoteRevised() as ev:
            return AuditRow(
                record.seq, record.at, ev.TYPE, ev.id, ev.revised_by, ev.session, None, ev.title
            )
        case NoteReviewed() as ev:
            what = f"kept as of revision {ev.revision}"
            return AuditRow(
                record.seq, record.at, ev.TYPE, ev.id, ev.reviewed_by, ev.session, None, None, what
            )
        case NotePromoted() as ev:
            into = (  # a repository is named by its first commit (docs/files.md)
                f"the repository whose first commit is {ev.root[:12]}"
                if ev.root
                else "a checkout with no commit"
            )
            what = f"promoted as of revision {ev.revision} into {into}"
            return AuditRow(
                record.seq, record.at, ev.TYPE, ev.id, ev.promoted_by, ev.session, None, None, what
            )
        case NoteRestored() as ev:
            what = f"restored as of revision {ev.note.revision}"
            return AuditRow(
                record.seq,
                record.at,
                ev.TYPE,
                ev.id,
                ev.restored_by,
                ev.session,
                None,
                ev.note.title,
                what,
            )
        case JournalRecovered() as ev:
            what = f"set aside from seq {ev.from_seq} ({ev.lines} line(s)) into {ev.set_aside}"
            return AuditRow(
                record.seq, record.at, ev.TYPE, None, ev.recovered_by, ev.session, None, None, what
            )


def parse_time(text: str) -> str:
    """A time as the journal writes it (UTC, µs, `Z`), from RFC 3339 or a bare date."""
    value = text.strip()
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        value += "T00:00:00+00:00"
    try:
        # RFC 3339's shape only (Python also reads week dates and digits run together); a
        # time without an offset is UTC, as the desk's box says.
        if not _TIME.fullmatch(value):
            raise ValueError(value)
        moment = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        moment = moment.astimezone(UTC)  # the year padded by hand: glibc's %Y does not pad
        return f"{moment.year:04d}" + moment.strftime("-%m-%dT%H:%M:%S.%fZ")
    except (ValueError, OverflowError):  # OverflowError: an offset past year 1 or 9999
        raise UsageError(
            f"not a time: {text!r} (use RFC 3339, e.g. 2026-11-29T12:00:00Z, or a date; "
            "a time without an offset is UTC)"
        ) from None


_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:\d{2})?")


def check_by(wanted: str | None) -> None:
    """A usage error for an empty `--by`, which would match nothing in one command and
    everything in another."""
    if wanted is not None and not wanted.strip():
        raise UsageError("--by is empty: give a writer (Claude, Claude:MODEL or person)")


def matches_by(row_by: str, wanted: str) -> bool:
    """`--by Claude` matches every Claude model; `--by Claude:claude-opus-4-8` one model; in any
    case (`--by claude`, `--by Person`), as `--search` is."""
    row_by, wanted = row_by.casefold(), wanted.casefold()
    return row_by == wanted or (":" not in wanted and row_by.split(":", 1)[0] == wanted)


def audit(
    home: Home,
    *,
    note: str | None = None,
    by: str | None = None,
    session: str | None = None,
    since: str | None = None,
    on_bytes: Callable[[int], None] | None = None,
    rows: list[AuditRow] | None = None,
) -> list[AuditRow]:
    """The matching rows, oldest first; a removal's row carries the title the note had. A break
    raises after `rows` (when given) holds the intact prefix, so a reviewer still reads the
    history that led to it."""
    since_at = parse_time(since) if since else None
    rows = [] if rows is None else rows
    titles: dict[str, str] = {}  # each note's title as it stands, for the row of its removal
    for record in records(home, on_bytes):
        row = audit_row(record)
        event = record.event
        if isinstance(event, (NoteAdded, NoteRevised)):
            titles[event.id] = event.title
        elif isinstance(event, NoteRestored):
            titles[event.id] = event.note.title
        elif isinstance(event, NoteRemoved) and event.id in titles:
            row = msgspec.structs.replace(row, title=titles.pop(event.id))
        if note and row.note != note:
            continue
        if by and not matches_by(row.by, by):
            continue
        if session and row.session != session:
            continue
        if since_at and row.at < since_at:
            continue
        rows.append(row)
    return rows


class Removal(NamedTuple):
    """A note's last removal: the note as it stood just before it, and the removal's stamps;
    `twin`, when the note is removed now, the live note holding its text and reach (added
    again since: there is nothing to bring back)."""

    note: Note
    seq: int
    at: str
    by: str
    session: str | None
    twin: str | None = None


def fold_removals(home: Home) -> tuple[Projection, dict[str, Removal]]:
    """The journal folded, and each removed note's last removal, with the note as it stood
    just before it (a restored note's too)."""
    projection = Projection(EMPTY_VIEW)
    last: dict[str, Removal] = {}
    for record in records(home):
        event = record.event
        if type(event) is NoteRemoved:
            before = projection.note(event.id)
            if before is not None:
                last[event.id] = Removal(
                    before, record.seq, record.at, event.removed_by, event.session
                )
        projection.apply(record)
    return projection, last


def now_and_as_removed(home: Home, note_id: str) -> tuple[Note | None, Removal | None]:
    """The note as it stands now (`None` unless live) and its last removal (`None` if never),
    with the live note holding its text now (`Removal.twin`) when it is removed."""
    projection, last = fold_removals(home)
    now, removal = projection.note(note_id), last.get(note_id)
    if now is not None or removal is None:
        return now, removal
    return None, _with_twins(projection, [removal])[0]


def removed_notes(home: Home) -> list[Removal]:
    """Every note removed now, as it stood at its last removal, the newest removal first, each
    with the live note holding its text now (`Removal.twin`), if one does."""
    projection, last = fold_removals(home)
    gone = [r for note_id, r in last.items() if projection.note(note_id) is None]
    return sorted(_with_twins(projection, gone), key=lambda r: r.seq, reverse=True)


def _with_twins(projection: Projection, removals: list[Removal]) -> list[Removal]:
    """`removals` with `twin` set where a live note holds the same text and reach."""
    if not removals:
        return removals
    live: dict[SameText, str] = {}
    for note_id in projection.notes:
        note = projection.note(note_id)
        if note is not None:
            live.setdefault(same_text(note.title, note.body, note.recall, note.root), note_id)
    return [
        r._replace(twin=live.get(same_text(r.note.title, r.note.body, r.note.recall, r.note.root)))
        for r in removals
    ]


def as_of_point(as_of: str) -> tuple[int | None, str | None]:
    """A replay's point: a seq (ASCII digits) or else a time (RFC 3339, else a usage error)."""
    seq = count_of(as_of)
    if seq is not None:
        return seq, None
    try:
        return None, parse_time(as_of)
    except UsageError:
        raise UsageError(
            f"not a time nor a seq: {as_of!r} (a time is RFC 3339, e.g. 2026-11-29T12:00:00Z, "
            "or a date; a seq is an event's number, or 0 for before the first)"
        ) from None


def replay(home: Home, as_of: str, on_bytes: Callable[[int], None] | None = None) -> View:
    """The view as it was after seq `as_of`, or at time `as_of`."""
    stop_seq, stop_at = as_of_point(as_of)
    projection = Projection(EMPTY_VIEW)
    checkpoint = Checkpoint()
    with Segments(home) as segs:
        # A line is folded only once the next line's `prev` vouches for it (or it is the last):
        # an edited line just before the replay's end is a break, never shown as history.
        last: tuple[RawLine, Record] | None = None
        try:
            for raw, record in walk(segs.lines(on_bytes=on_bytes)):
                if last is not None:
                    projection.apply(last[1])
                    checkpoint = _checkpoint_of(*last)
                    last = None
                if stop_seq is not None and record.seq > stop_seq:
                    break
                if stop_at is not None and record.at > stop_at:
                    break
                last = (raw, record)
        except JournalBroken:
            raise locate_break(home, segs) from None
        if last is not None:
            projection.apply(last[1])
            checkpoint = _checkpoint_of(*last)
    return projection.view(checkpoint)


def _checkpoint_of(raw: RawLine, record: Record) -> Checkpoint:
    return Checkpoint(raw.segment, raw.end, record.seq, line_hash(raw.data))

"""`abcd journal verify`: walk the whole chain and name the first seq where it breaks.

Why re-derive every hash rather than trust the view: the view is a cache and
the journal is the record; a line edited, deleted, swapped or cut away shows
only as a link whose stored `prev` no longer matches the recomputed hash, a
seq out of its place, or a view whose checkpoint the journal no longer holds.

How an edit is told from its neighbours: editing line k's content breaks
the link k -> k+1 only; editing line k's `prev` breaks k-1 -> k and k -> k+1.
The last line has no successor, so its edit is caught by the view's
checkpoint head.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from abcd.constants import VIEW_MAX_BYTES, ZERO_HASH
from abcd.errors import TrustError
from abcd.journal.envelope import BadLine, decode_envelope, line_hash
from abcd.journal.segments import RawLine, Scan, Segments, segment_name
from abcd.journal.store import VIEW_FILE
from abcd.journal.view import Checkpoint, decode_view
from abcd.trust import Home


@dataclass(frozen=True)
class Break:
    seq: int
    what: str
    where: str


@dataclass
class Report:
    events: int = 0
    segments: int = 0
    breaks: list[Break] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.breaks


@dataclass(frozen=True)
class _Line:
    raw: RawLine
    seq: int | None  # None when the line does not decode
    prev: str
    error: str


def _diagnose(lines: list[_Line], last_head: str | None) -> Break | None:
    """The first break in the chain; `last_head` is the view's head when it names the last line."""
    expected_seq = 1
    expected_prev = ZERO_HASH
    for index, line in enumerate(lines):
        where = f"journal/{segment_name(line.raw.segment)}"
        if line.seq is None:
            return Break(expected_seq, f"edited: the line does not decode ({line.error})", where)
        if line.seq != expected_seq:
            if any(other.seq == expected_seq for other in lines[index + 1 :]):
                what = f"reordered: seq {line.seq} stands where {expected_seq} belongs"
            elif line.seq > expected_seq:
                gap = (
                    f"{expected_seq}"
                    if line.seq == expected_seq + 1
                    else f"{expected_seq} to {line.seq - 1}"
                )
                what = f"missing: seq {gap} deleted"
            else:
                what = f"reordered: seq {line.seq} appears again"
            return Break(expected_seq, what, where)
        if line.prev != expected_prev:
            if index == 0:
                return Break(line.seq, "edited: the first event's prev is not 64 zeros", where)
            # Editing the line before changed its hash; editing this line's prev changed this
            # line's hash too, so the link out of it breaks as well.
            mine = line_hash(line.raw.data)
            out_ok = (
                lines[index + 1].prev == mine
                if index + 1 < len(lines)
                else last_head in (None, mine)
            )
            if out_ok:
                return Break(
                    line.seq - 1, "edited: its hash no longer matches the next event's prev", where
                )
            return Break(line.seq, "edited: its prev does not match the event before it", where)
        expected_prev = line_hash(line.raw.data)
        expected_seq = line.seq + 1
    return None


def _check_view(lines: list[_Line], cp: Checkpoint) -> Break | None:
    """The view's checkpoint must name a line the journal holds, with the same hash."""
    last_seq = lines[-1].seq or 0 if lines else 0
    for line in lines:
        if line.seq == cp.seq:
            where = f"journal/{segment_name(line.raw.segment)}"
            if line_hash(line.raw.data) != cp.head:
                return Break(
                    cp.seq, "edited: its hash is not the head the view was folded to", where
                )
            if (line.raw.segment, line.raw.end) != (cp.segment, cp.offset):
                return Break(
                    cp.seq,
                    "the view's checkpoint names the wrong place; rebuild the view",
                    VIEW_FILE,
                )
            return None
    return Break(
        last_seq + 1,
        f"truncated: view ahead of journal (the view was folded to seq {cp.seq}; "
        f"the journal ends at seq {last_seq})",
        VIEW_FILE,
    )


def verify(home: Home, *, on_bytes: Callable[[int], None] | None = None) -> Report:
    """Check every link of the chain and the view's checkpoint against the journal."""
    report = Report()
    scan = Scan()
    lines: list[_Line] = []
    segments: set[int] = set()
    with Segments(home) as segs:
        raws = list(segs.lines(scan=scan, on_bytes=on_bytes))
    for raw in raws:
        segments.add(raw.segment)
        try:
            env = decode_envelope(raw.data)
            lines.append(_Line(raw, env.seq, env.prev, ""))
        except BadLine as err:
            lines.append(_Line(raw, None, "", str(err)))
    report.events = len(lines)
    report.segments = len(segments)

    checkpoint: Checkpoint | None = None
    try:
        data = home.read(VIEW_FILE, VIEW_MAX_BYTES)
        if data is not None:
            checkpoint = decode_view(data).journal
    except TrustError as err:
        report.notes.append(f"the view cannot be read: {err}; `abcd journal rebuild` replaces it")
    except ValueError as err:
        report.notes.append(f"the view does not decode ({err}); `abcd journal rebuild` replaces it")

    last_head = None
    if checkpoint is not None and lines and checkpoint.seq == lines[-1].seq:
        last_head = checkpoint.head
    found = _diagnose(lines, last_head)
    if found is not None:
        report.breaks.append(found)
    if scan.torn_inside is not None:
        where = f"journal/{segment_name(scan.torn_inside)}"
        report.breaks.append(
            Break(0, "truncated: a segment before the last ends inside a line", where)
        )
    if checkpoint is not None and checkpoint.seq and not report.breaks:
        view_break = _check_view(lines, checkpoint)
        if view_break is not None:
            report.breaks.append(view_break)
    if scan.torn_tail:
        report.notes.append(
            "the last line is torn (an interrupted append); the next write cuts it away"
        )
    return report

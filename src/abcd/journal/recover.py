"""`abcd journal recover`: set the broken tail aside, keep it, and go on from the intact prefix.

The way back from a break that `journal verify` names. Under the journal
lock: find the break by the one rule every command uses
(`abcd.journal.chain`); move every byte from the first line the chain no
longer vouches for to the end of the journal into a new folder,
`<home>/recovered/<time>-seq-<N>/` (a partial segment is copied, whole
segments are moved; nothing is deleted); cut the journal back to its intact
prefix; append a `journal.recovered` event that names the break, the folder,
and the count and SHA-256 of what was set aside; re-project the view and the
index from zero. When no line is at fault (the journal was cut back under
the view, or the view's checkpoint names the wrong place) the old view is
what is set aside: it holds the text of the notes the journal lost.

Order, so a crash loses nothing: the copies are written and synced first,
the journal is cut second, the event appended third. A crash between the
second and the third leaves a journal the old view no longer finds, which
`verify` names and a second `recover` finishes.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

from abcd.clock import now_rfc3339
from abcd.constants import SEGMENT_MAX_BYTES
from abcd.errors import NEWER_ABCD, Refused, StorageError
from abcd.journal.chain import Break, Link, first_break
from abcd.journal.envelope import BadLine, decode_envelope, decode_line, encode_line
from abcd.journal.events import JournalRecovered, NoteRestored
from abcd.journal.segments import Scan, Segments, segment_name
from abcd.journal.store import (
    LANDED,
    VIEW_FILE,
    Projection_,
    append_lines,
    fold_from,
    index_checkpoint,
    journal_lock,
    read_links,
    recovered_rel,
    repair_pending,
    repair_torn_tail,
    stored_witness,
    write_view,
)
from abcd.journal.view import EMPTY_VIEW, View
from abcd.trust import Home
from abcd.trust.guarded import create_synced


@dataclass(frozen=True)
class Recovered:
    """What a recovery did: the break, the folder set aside, and the event that says so."""

    brk: Break
    set_aside: str  # relative to the home
    lines: int
    bytes: int
    seq: int  # the journal.recovered event's
    view: View


def _find(home: Home, segs: Segments) -> tuple[list[Link], Scan, Break | None]:
    """The journal's lines, what reading them met, and its first break (`None`: intact); a
    line from a newer abcd is refused, never a break to set aside."""
    scan = Scan()
    # The witnesses before the lines, as `verify` reads them: lines read after a witness hold
    # its line, though a writer appends meanwhile (unlocked, `preview` may run beside writers).
    cp, witness = stored_witness(home) or (None, VIEW_FILE)
    index_cp = index_checkpoint(home)
    links = read_links(segs, scan)
    found = first_break(links, cp, torn_inside=scan.torn_inside, witness_file=witness)
    if found is None and index_cp is not None:
        found = first_break(links, index_cp, witness_file="memory.idx")
    if found is not None and NEWER_ABCD in found.what:
        raise Refused(
            "newer journal",
            message=f"refused: seq {found.seq} was {NEWER_ABCD}: upgrade abcd to read it; "
            "nothing is broken, so nothing was set aside",
        )
    return links, scan, found


def _start(link: Link) -> int:
    return link.end - len(link.data) - 1


@dataclass(frozen=True)
class Tail:
    """What a recovery would set aside, read before the person is asked (nothing written)."""

    brk: Break
    events: tuple[str, ...]  # each complete line from the break on, as one line of text
    digest: str  # of those lines' bytes: what the person agrees to set aside


def preview(home: Home) -> Tail | None:
    """The break and the lines a recovery would set aside now; `None` when nothing is broken.
    Read without the journal lock, so a person can be asked while writers go on; `recover`'s
    `seen` then holds the act to the break they were shown."""
    with Segments(home) as segs:
        links, _, found = _find(home, segs)
    if found is None:
        return None
    tail = _tail(links, found)
    return Tail(found, tuple(_described(link) for link in tail), _digest(tail))


def _tail(links: list[Link], found: Break) -> list[Link]:
    """The complete lines a recovery from `found` sets aside (none when no line is at fault)."""
    return links[found.cut :] if found.cut is not None else []


def _digest(tail: list[Link]) -> str:
    digest = hashlib.sha256()
    for link in tail:
        digest.update(link.data + b"\n")
    return digest.hexdigest()


def _described(link: Link) -> str:
    """A line from the tail as the person is shown it: its seq, kind, note and title."""
    try:
        record = decode_line(link.data)
    except BadLine as err:
        return f"a line that does not decode ({err})"
    event = record.event
    title = getattr(event, "title", None)
    if isinstance(event, NoteRestored):
        title = event.note.title
    note = getattr(event, "id", "")
    return (
        f"seq {record.seq} {event.TYPE}"
        + (f" {note}" if note else "")
        + (f": {title}" if title else "")
    )


def recover(
    home: Home,
    *,
    by: str,
    session: str | None,
    projections: tuple[Projection_, ...] = (),
    seen: Tail | None = None,
) -> Recovered | None:
    """Set the broken tail aside and append `journal.recovered`; `None` when nothing is broken.

    `seen`: the break and the lines the person was shown (`preview`); refused, with nothing
    set aside, when the break is now elsewhere or its lines are not those.
    """
    with Segments(home, create=True) as segs, journal_lock(segs):
        repair_pending(segs)
        repair_torn_tail(segs)
        links, scan, found = _find(home, segs)
        if found is None:
            return None
        if seen is not None and found.seq != seen.brk.seq:
            raise Refused(
                "changed",
                message=f"refused: the journal now breaks at seq {found.seq}, not at seq "
                f"{seen.brk.seq} as you were shown; nothing was set aside: run abcd journal "
                "recover again",
            )
        tail = _tail(links, found)
        if seen is not None and _digest(tail) != seen.digest:
            raise Refused(
                "changed",
                message=f"refused: the {len(tail)} line(s) from seq {found.seq} are not the "
                f"{len(seen.events)} you were shown; nothing was set aside: run abcd journal "
                "recover again",
            )
        rel = recovered_rel(f"seq-{found.seq}")
        moved = _set_aside(home, segs, links, found, scan, rel)
        kept = links[: found.cut] if found.cut is not None else links
        view, last_at, _ = fold_from(segs, EMPTY_VIEW)
        if kept and view.journal.seq != (kept[-1].seq or 0):
            raise StorageError("the journal changed while it was recovered; run recover again")
        event = JournalRecovered(
            from_seq=found.seq,
            what=found.what,
            set_aside=rel,
            lines=moved[0],
            bytes=moved[1],
            sha256=moved[2],
            recovered_by=by,
            session=session,
        )
        cp = view.journal
        numbers = segs.numbers()
        number = numbers[-1] if numbers else 1
        offset = max(segs.size(number), 0)
        if offset and offset >= SEGMENT_MAX_BYTES:
            number, offset = number + 1, 0
        at = max(now_rfc3339(), last_at)
        line = encode_line(cp.seq + 1, at, cp.head, event)
        append_lines(segs, number, line + b"\n", offset)
        LANDED.append(cp.seq + 1)
        view, _, _ = fold_from(segs, EMPTY_VIEW)
        for project in projections:
            project(home, view)
        write_view(home, view)
        return Recovered(found, rel, moved[0], moved[1], decode_envelope(line).seq, view)


def _set_aside(
    home: Home, segs: Segments, links: list[Link], found: Break, scan: Scan, rel: str
) -> tuple[int, int, str]:
    """Move the tail into `rel`; return the complete lines, the bytes and their SHA-256."""
    digest = hashlib.sha256()
    count = lines = 0
    with home.folder(rel, create=True) as dfd:
        assert dfd is not None and segs.dfd is not None
        if found.cut is not None:
            first = links[found.cut]
            number, start = first.segment, _start(first)
        elif scan.torn_inside is not None and found.where.endswith(segment_name(scan.torn_inside)):
            number = scan.torn_inside
            held = [link for link in links if link.segment == number]
            start = held[-1].end if held else 0
            data = segs.read(number, start)
            _write(dfd, f"{segment_name(number)}.from-{start}", data, home, rel)
            digest.update(data)
            _cut(segs, number, start, home)
            os.fsync(segs.dfd)
            return 0, len(data), digest.hexdigest()
        else:
            # No line is at fault: the journal lost lines the view still holds. Keep the view.
            view_data = home.read(VIEW_FILE, 1 << 40)
            if view_data is not None:
                _write(dfd, VIEW_FILE, view_data, home, rel)
            os.fsync(dfd)
            return 0, 0, digest.hexdigest()
        later = [n for n in segs.numbers() if n > number]
        if start:
            data = segs.read(number, start)
            _write(dfd, f"{segment_name(number)}.from-{start}", data, home, rel)
            digest.update(data)
            count += len(data)
            lines += data.count(b"\n")
        else:
            later.insert(0, number)
        for n in later:
            data = segs.read(n)
            digest.update(data)
            count += len(data)
            lines += data.count(b"\n")
            os.rename(segment_name(n), segment_name(n), src_dir_fd=segs.dfd, dst_dir_fd=dfd)
        os.fsync(dfd)
        if start:
            _cut(segs, number, start, home)
        os.fsync(segs.dfd)
    return lines, count, digest.hexdigest()


def _write(dfd: int, name: str, data: bytes, home: Home, rel: str) -> None:
    try:
        create_synced(name, data, dfd)
    except OSError as err:
        raise StorageError(f"{home.shown(rel)}/{name}: cannot set aside: {err.strerror}") from err


def _cut(segs: Segments, number: int, start: int, home: Home) -> None:
    opened = segs.open(number, os.O_RDWR)
    if opened is None:
        return
    fd, _ = opened
    try:
        os.ftruncate(fd, start)
        os.fsync(fd)
    except OSError as err:
        shown = home.shown(f"journal/{segment_name(number)}")
        raise StorageError(f"{shown}: cannot cut the journal back: {err.strerror}") from err
    finally:
        os.close(fd)

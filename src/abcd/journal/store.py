"""Reading the journal into a current view, and appending to it under the lock.

Append, in order: take the exclusive lock; cut a torn tail away; bring the
view up to the journal's end; let the caller plan its events against that
view (a refusal here writes nothing); append the lines with `O_APPEND` in one
write and `fsync` (and the folder, for a new segment); write the view
atomically; release. A reader never takes the lock: it trusts `memory.json`
only as far as its checkpoint matches the journal, folds any newer lines in
memory, and re-folds from zero when the checkpoint is wrong.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from abcd.clock import now_rfc3339
from abcd.constants import FILE_MODE, LINE_MAX_BYTES, SEGMENT_MAX_BYTES, VIEW_MAX_BYTES, ZERO_HASH
from abcd.errors import JournalBroken, StorageError, TrustError
from abcd.journal.envelope import (
    BadLine,
    Record,
    decode_envelope,
    decode_line,
    decode_typed,
    encode_line,
    line_hash,
)
from abcd.journal.events import Event
from abcd.journal.fold import Projection
from abcd.journal.segments import (
    JOURNAL_DIR,
    LOCK_NAME,
    RawLine,
    Segments,
    segment_name,
    segment_rel,
)
from abcd.journal.view import EMPTY_VIEW, Checkpoint, View, decode_view, encode_view
from abcd.trust import Home
from abcd.trust.guarded import open_at

VIEW_FILE = "memory.json"
_APPEND_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC


def walk(
    lines: Iterator[RawLine], head: str = ZERO_HASH, seq: int = 0
) -> Iterator[tuple[RawLine, Record]]:
    """Decode lines and check each link of the chain; `JournalBroken` at the first bad one."""
    for raw in lines:
        where = f"{JOURNAL_DIR}/{segment_name(raw.segment)}"
        try:
            record = decode_line(raw.data)
        except BadLine as err:
            raise JournalBroken(seq + 1, str(err), where) from None
        if record.seq != seq + 1:
            raise JournalBroken(seq + 1, f"found seq {record.seq} where {seq + 1} belongs", where)
        if record.prev != head:
            raise JournalBroken(record.seq, f"its prev is not the hash of seq {seq}", where)
        head = line_hash(raw.data)
        seq = record.seq
        yield raw, record


@dataclass(frozen=True)
class Loaded:
    """The view brought up to the journal's end, and whether `memory.json` needs rewriting."""

    view: View
    last_at: str
    stale: bool
    refolded: str | None  # why the view was folded from zero, when it was


def _trusted_base(home: Home, segs: Segments) -> tuple[View, str, str | None]:
    """The stored view if its checkpoint matches the journal, else the empty view and why."""
    data = home.read(VIEW_FILE, VIEW_MAX_BYTES)
    if data is None:
        return EMPTY_VIEW, "", "memory.json is absent"
    try:
        view = decode_view(data)
    except ValueError as err:
        return EMPTY_VIEW, "", f"memory.json: {err}"
    cp = view.journal
    if cp.seq == 0:
        return (
            (view, "", None)
            if cp == Checkpoint() and not view.notes
            else (
                EMPTY_VIEW,
                "",
                "memory.json has notes but no checkpoint",
            )
        )
    line = segs.line_ending_at(cp.segment, cp.offset)
    if line is None or line_hash(line) != cp.head:
        return EMPTY_VIEW, "", f"memory.json's checkpoint (seq {cp.seq}) is not in the journal"
    try:
        at = decode_envelope(line).at
    except BadLine:
        return EMPTY_VIEW, "", f"memory.json's checkpoint (seq {cp.seq}) is not in the journal"
    return view, at, None


def fold_from(
    segs: Segments, base: View, *, on_bytes: Callable[[int], None] | None = None
) -> tuple[View, str, int]:
    """`base` with every journal line after its checkpoint folded in; the last `at`; lines read.

    The chain is checked link by link as it is folded (`JournalBroken` at the
    first bad one). This loop is the rebuild's hot path, so it works on each
    segment's list of lines directly rather than through `walk`.
    """
    cp = base.journal
    start_segment, start_offset = (cp.segment, cp.offset) if cp.seq else (1, 0)
    projection = Projection(base)
    apply = projection.apply_event
    sha256 = hashlib.sha256
    head, seq, at = cp.head, cp.seq, ""
    count = 0
    segment, offset = cp.segment, cp.offset
    for number, start, lines in segs.chunks(start_segment, start_offset, on_bytes=on_bytes):
        for line in lines:
            try:
                record = decode_typed(line)
            except BadLine as err:
                raise JournalBroken(seq + 1, str(err), segment_rel(number)) from None
            if record.seq != seq + 1:
                raise JournalBroken(
                    seq + 1, f"found seq {record.seq} where {seq + 1} belongs", segment_rel(number)
                )
            if record.prev != head:
                raise JournalBroken(
                    record.seq, f"its prev is not the hash of seq {seq}", segment_rel(number)
                )
            head = sha256(line).hexdigest()
            seq = record.seq
            apply(record.data, record.at)
        if lines:
            count += len(lines)
            segment, offset = number, start + sum(map(len, lines)) + len(lines)
            at = record.at
    if not count:
        return base, "", 0
    return projection.view(Checkpoint(segment, offset, seq, head)), at, count


def load(home: Home, *, on_bytes: Callable[[int], None] | None = None) -> Loaded:
    """The current view: the stored one, checked and brought forward, or re-folded from zero."""
    with Segments(home) as segs:
        return _load(home, segs, on_bytes)


def _load(home: Home, segs: Segments, on_bytes: Callable[[int], None] | None = None) -> Loaded:
    base, at, why = _trusted_base(home, segs)
    try:
        view, new_at, count = fold_from(segs, base, on_bytes=on_bytes)
    except JournalBroken:
        if base is EMPTY_VIEW:
            raise
        # The stored checkpoint matched but what follows does not chain on: trust nothing.
        why = "the journal after memory.json's checkpoint does not chain on"
        base, at = EMPTY_VIEW, ""
        view, new_at, count = fold_from(segs, base, on_bytes=on_bytes)
    stale = why is not None or count > 0
    if why == "memory.json is absent" and view.journal.seq == 0:
        stale = False  # no journal and no view: nothing to write
    return Loaded(view, new_at or at, stale, why)


def load_view(home_path: str | os.PathLike[str] | None = None) -> View:
    """The current personal notes for a reader; the empty view when there is no home."""
    home = Home.open(home_path)
    if home is None:
        return EMPTY_VIEW
    with home:
        return load(home).view


# --- writing -----------------------------------------------------------------


@contextmanager
def journal_lock(segs: Segments) -> Iterator[None]:
    """The exclusive journal lock (portalocker on `journal/.lock`), held for the whole append."""
    import portalocker  # imported here: only writers pay for it

    assert segs.dfd is not None
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = open_at(LOCK_NAME, flags, FILE_MODE, segs.dfd)
    except OSError as err:
        raise TrustError(segs.home.shown(f"{JOURNAL_DIR}/{LOCK_NAME}"), str(err)) from err
    handle = os.fdopen(fd, "r+b")
    try:
        portalocker.lock(handle, portalocker.LOCK_EX)
        yield
    finally:
        handle.close()  # closing the descriptor releases the lock


def repair_torn_tail(segs: Segments) -> bool:
    """Cut a last line that lacks its newline (a crashed append); call under the lock only."""
    segments = segs.numbers()
    if not segments:
        return False
    number = segments[-1]
    rel = segment_rel(number)
    home = segs.home
    opened = segs.open(number, os.O_RDWR)
    if opened is None:
        return False
    fd, st = opened
    try:
        if st.st_size == 0 or os.pread(fd, 1, st.st_size - 1) == b"\n":
            return False
        window = min(st.st_size, LINE_MAX_BYTES + 1)
        chunk = os.pread(fd, window, st.st_size - window)
        cut = chunk.rfind(b"\n")
        if cut < 0 and window < st.st_size:
            raise JournalBroken(0, "the last line is longer than any line abcd writes", rel)
        keep = st.st_size - window + cut + 1
        os.ftruncate(fd, keep)
        os.fsync(fd)
    except OSError as err:
        raise StorageError(
            f"{home.shown(rel)}: cannot repair the torn tail: {err.strerror}"
        ) from err
    finally:
        os.close(fd)
    if keep == 0 and number > 1 and segs.dfd is not None:
        os.unlink(segment_name(number), dir_fd=segs.dfd)
        os.fsync(segs.dfd)
    return True


def append_lines(segs: Segments, number: int, data: bytes, offset: int) -> None:
    """Append `data` to segment `number` in one `O_APPEND` write and fsync; undo a partial write.

    `offset` is where the caller found the segment's end under the lock; a new
    segment (offset 0) also fsyncs the folder so its name survives a crash.
    """
    rel = segment_rel(number)
    assert segs.dfd is not None
    opened = segs.home.open_in(segs.dfd, segment_name(number), rel, _APPEND_FLAGS)
    assert opened is not None  # O_CREAT
    fd, st = opened
    try:
        if st.st_size != offset:
            raise JournalBroken(0, f"segment is {st.st_size} bytes where {offset} were folded", rel)
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        except OSError as err:
            os.ftruncate(fd, offset)  # nothing half-written
            raise StorageError(f"{segs.home.shown(rel)}: cannot append: {err.strerror}") from err
    finally:
        os.close(fd)
    if offset == 0:
        os.fsync(segs.dfd)


Projection_ = Callable[[Home, View], None]


def append(
    plan: Callable[[View], Sequence[Event]],
    home_path: str | os.PathLike[str] | None = None,
    *,
    projections: Sequence[Projection_] = (),
) -> tuple[View, list[Record]]:
    """Append the events `plan` returns for the current view; return the new view and records.

    `plan` runs under the lock, so what it checks (an id is new, a note
    exists) still holds when its events land. If it raises, nothing is written.
    `projections` are further caches derived from the view (the recall index),
    written after it under the same lock.
    """
    home = Home.open(home_path, create=True)
    assert home is not None
    with home, Segments(home, create=True) as segs, journal_lock(segs):
        repair_torn_tail(segs)
        loaded = _load(home, segs)
        events = plan(loaded.view)
        if not events:
            if loaded.stale:
                home.write_atomic(VIEW_FILE, encode_view(loaded.view))
                for project in projections:
                    project(home, loaded.view)
            return loaded.view, []
        cp = loaded.view.journal
        at = max(now_rfc3339(), loaded.last_at)  # the clock, never behind the last event
        head, seq = cp.head, cp.seq
        records: list[Record] = []
        chunks: list[bytes] = []
        for event in events:
            seq += 1
            line = encode_line(seq, at, head, event)
            records.append(Record(seq, at, head, event))
            chunks.append(line + b"\n")
            head = line_hash(line)
        data = b"".join(chunks)
        number, offset = (cp.segment, cp.offset) if cp.segment else (1, 0)
        if offset and offset + len(data) > SEGMENT_MAX_BYTES:
            number, offset = number + 1, 0
        append_lines(segs, number, data, offset)
        projection = Projection(loaded.view)
        for record in records:
            projection.apply(record)
        view = projection.view(Checkpoint(number, offset + len(data), seq, head))
        home.write_atomic(VIEW_FILE, encode_view(view))
        for project in projections:
            project(home, view)
        return view, records


def refresh(
    home_path: str | os.PathLike[str] | None = None, *, projections: Sequence[Projection_]
) -> None:
    """Under the lock, bring the view up to the journal and write the projections again."""
    home = Home.open(home_path)
    if home is None:
        return
    with home:
        with Segments(home) as probe:
            if probe.dfd is None:
                return  # no journal: nothing to project
        with Segments(home, create=True) as segs, journal_lock(segs):
            repair_torn_tail(segs)
            loaded = _load(home, segs)
            if loaded.stale:
                home.write_atomic(VIEW_FILE, encode_view(loaded.view))
            for project in projections:
                project(home, loaded.view)


def rebuild(
    home_path: str | os.PathLike[str] | None = None,
    *,
    on_bytes: Callable[[int], None] | None = None,
    projections: Sequence[Projection_] = (),
) -> tuple[View | None, View]:
    """Re-project `memory.json` from zero under the lock; return (the old view if readable, the new)."""
    home = Home.open(home_path, create=True)
    assert home is not None
    with home, Segments(home, create=True) as segs, journal_lock(segs):
        repair_torn_tail(segs)
        try:
            data = home.read(VIEW_FILE, VIEW_MAX_BYTES)
            old = decode_view(data) if data is not None else None
        except (TrustError, ValueError):
            old = None  # an untrusted view is replaced, never believed
        view, _, _ = fold_from(segs, EMPTY_VIEW, on_bytes=on_bytes)
        home.write_atomic(VIEW_FILE, encode_view(view))
        for project in projections:
            project(home, view)
        return old, view

"""Reading the journal into a current view, and appending to it under the lock.

Append, in order: take the exclusive lock; cut away a torn tail or a batch
whose writer died; hold the journal to its witnesses (the checkpoints the
view and the recall index recorded must still be lines of the journal, or
the writer refuses: it never chains onto an edited or cut journal); bring the
view up to the journal's end; let the caller plan its events against that
view (a refusal here writes nothing); encode the new view and refuse if it
would pass its readers' bound; append the lines with `O_APPEND` in one write
and `fsync` (and the folder, for a new segment); write the view atomically;
release. Once the lines are durable the append has happened: a view or index
that cannot be written after that is a warning, never a failure (readers
fold what the view lacks).

A reader never takes the lock: it trusts `memory.json` only as far as its
checkpoint matches the journal and its digest matches its notes, folds any
newer lines in memory, and re-folds from zero when the view is merely stale
or was changed by hand. A checkpoint the journal no longer holds is not
staleness but a break: every reader and writer names it as `journal verify`
does (`abcd.journal.chain`).
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from abcd.clock import now_rfc3339
from abcd.constants import FILE_MODE, LINE_MAX_BYTES, SEGMENT_MAX_BYTES, VIEW_MAX_BYTES, ZERO_HASH
from abcd.digest import VIEW_HEAD_BYTES, file_stamp, view_digest_span, view_segments_stamp
from abcd.errors import (
    AbcdError,
    CorruptFile,
    JournalBroken,
    LockHeld,
    Refused,
    StorageError,
    TrustError,
    hint_for,
)
from abcd.journal.chain import Break, Link, first_break
from abcd.journal.envelope import (
    BadLine,
    Record,
    decode_envelope,
    decode_line,
    decode_typed,
    encode_line,
    line_hash,
)
from abcd.journal.events import Event, NoteAdded, NoteRemoved, NoteRestored, NoteRevised
from abcd.journal.fold import Projection
from abcd.journal.head import (
    COMPACT_AFTER,
    HEAD_FILE,
    Head,
    beside,
    head_beside,
    read_head,
    view_checkpoint,
    write_head,
)
from abcd.journal.segments import (
    JOURNAL_DIR,
    LOCK_NAME,
    PENDING_NAME,
    RawLine,
    Scan,
    Segments,
    segment_name,
    segment_rel,
)
from abcd.journal.view import (
    EMPTY_VIEW,
    NO_INDEX,
    Checkpoint,
    View,
    decode_view,
    digest_matches,
    encode_view,
    restamp,
)
from abcd.trust import Home
from abcd.trust.guarded import create_synced, open_at

TYPE_CHECKING = False
if TYPE_CHECKING:
    from abcd.recall.index import Index

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


def read_links(
    segs: Segments, scan: Scan | None = None, on_bytes: Callable[[int], None] | None = None
) -> list[Link]:
    """Every complete line of the journal as a `Link` (seq and prev, or why it does not decode:
    its data too, so a line no fold can read is the break, never a link that holds)."""
    links = []
    for raw in segs.lines(scan=scan, on_bytes=on_bytes):
        try:
            typed = decode_typed(raw.data)
            links.append(Link(raw.segment, raw.end, raw.data, typed.seq, typed.prev))
        except BadLine as err:
            links.append(Link(raw.segment, raw.end, raw.data, None, "", str(err)))
    return links


def broken(brk: Break) -> JournalBroken:
    return JournalBroken(brk.seq, brk.what, brk.where, hint=hint_for(brk.what))


def stored_checkpoint(home: Home) -> tuple[int, int, int, str] | None:
    """The last line a writer witnessed (`stored_witness`'s checkpoint)."""
    witnessed = stored_witness(home)
    return None if witnessed is None else witnessed[0]


def stored_witness(home: Home) -> tuple[tuple[int, int, int, str], str] | None:
    """The last line a writer witnessed and the file that says so: the head line's checkpoint when
    it is at or past the view's (the lines past the view's checkpoint are witnessed there), else
    the view's checkpoint as a tuple, when the view decodes (whatever its digest says)."""
    try:
        data = home.read(VIEW_FILE, VIEW_MAX_BYTES)
        cp = decode_view(data).journal if data is not None else None
    except (TrustError, ValueError):
        cp = None
    view_cp = None if cp is None else (cp.segment, cp.offset, cp.seq, cp.head)
    return last_witnessed(read_head(home), view_cp)


def last_witnessed(
    head: Head | None, view_cp: tuple[int, int, int, str] | None
) -> tuple[tuple[int, int, int, str], str] | None:
    """Of the head line and the view's checkpoint, the one furthest along and the file it is in:
    the head line when it is at or past the view (the lines past the view are witnessed there)."""
    if head is not None and (view_cp is None or head.checkpoint[2] >= view_cp[2]):
        return head.checkpoint, HEAD_FILE
    return None if view_cp is None else (view_cp, VIEW_FILE)


def locate_break(home: Home, segs: Segments) -> JournalBroken:
    """The break as `journal verify` names it (an error path: it reads the whole journal)."""
    scan = Scan()
    links = read_links(segs, scan)
    cp, witness = stored_witness(home) or (None, VIEW_FILE)
    found = first_break(links, cp, torn_inside=scan.torn_inside, witness_file=witness)
    if found is None:
        index_cp = index_checkpoint(home)
        if index_cp is not None:
            found = first_break(links, index_cp, witness_file="memory.idx")
            if found is not None:
                found = Break(
                    found.seq, f"the recall index's checkpoint: {found.what}", "memory.idx"
                )
    return broken(found or Break(0, "the journal changed while it was read", JOURNAL_DIR))


# The checkpoint of the last recall index this process read, by the index file's identity.
_index_seen: tuple[tuple[str, int, str], tuple[int, int, int, str]] | None = None


def index_checkpoint(home: Home) -> tuple[int, int, int, str] | None:
    """The recall index's checkpoint, or `None` without a usable index.

    A writer asks on every append; a process that appends again and again
    finds the same file (its inode, size and change time, which every write,
    rename or chmod moves and the account cannot set back) and is answered
    from what it read there the last time, for one `stat`.
    """
    global _index_seen
    from abcd.recall.index import INDEX_FILE, Index, IndexUnusable

    try:
        st = os.stat(INDEX_FILE, dir_fd=home.fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    except OSError:
        st = None  # Index.open names the trouble
    key = None if st is None else (home.path, st.st_dev, file_stamp(st))
    if _index_seen is not None and key is not None and _index_seen[0] == key:
        return _index_seen[1]
    try:
        index = Index.open(home)
    except (IndexUnusable, TrustError, OSError, ValueError, EOFError):
        return None
    try:
        checkpoint: tuple[int, int, int, str] = tuple(index.checkpoint)  # type: ignore[assignment]
        if key is not None and file_stamp(os.fstat(index.fd)) == key[2]:
            _index_seen = (key, checkpoint)  # the very file stat'ed above
        return checkpoint
    finally:
        index.close()


def hold_to_witnesses(home: Home, segs: Segments, head: Head | None = None) -> int | None:
    """Refuse a journal that no longer holds the checkpoint the recall index or the head line
    recorded; return the index's seq (`None` without a usable index).

    Each writer records where it folded to, in the view and in the index; a
    checkpoint whose line is gone or hashes otherwise means the journal was
    edited or cut after it was written. A writer that chained onto it would
    make `verify` clean again and launder the edit, so it names the break
    instead (`JournalBroken`). The view's checkpoint is held where the view
    is read; the index is the second witness, for a view deleted or replaced
    along with the edit, and the head line (`abcd.journal.head`) witnesses
    the lines past the view's checkpoint, the last of which nothing else does.
    """
    head = head or read_head(home)
    if head is not None and head.checkpoint[2]:
        segment, offset, _, hashed = head.checkpoint
        if not segs.holds(segment, offset, hashed):
            raise locate_break(home, segs)
    cp = index_checkpoint(home)
    if cp is None or not cp[2]:
        return None
    if not segs.holds(cp[0], cp[1], cp[3]):
        raise locate_break(home, segs)
    return cp[2]


def _trusted_base(
    home: Home, segs: Segments, *, writer: bool = False
) -> tuple[View, str, str | None]:
    """The stored view if it holds and matches the journal, else the empty view and why.

    A view that is absent, does not decode or predates digests is a stale
    cache: the empty view is returned and the caller folds from zero. A view
    whose digest does not match was changed outside abcd: a reader folds from
    zero, but a writer refuses (`CorruptFile`), since that view can no longer
    witness the journal and chaining on would launder an edit made with it;
    `journal verify` compares it and `journal rebuild`, a person's act,
    replaces it. A view as abcd wrote it whose checkpoint the journal no
    longer holds means the journal changed under it: a break (raised).
    """
    read = home.read_stat(VIEW_FILE, VIEW_MAX_BYTES)
    if read is None:
        return EMPTY_VIEW, "", "memory.json is absent"
    data, st = read
    try:
        view = decode_view(data)
    except ValueError as err:
        return EMPTY_VIEW, "", f"memory.json: {err}"
    cp = view.journal
    if cp.seq == 0:
        return (
            (view, "", None)
            if not view.notes and not view.removed
            else (EMPTY_VIEW, "", "memory.json has notes but no checkpoint")
        )
    if not digest_matches(data):
        if writer and view_digest_span(data) is not None:
            raise CorruptFile(
                home.shown(VIEW_FILE),
                "changed outside abcd (its digest does not match), so it no longer witnesses "
                "the journal; `abcd journal verify` compares it, `abcd journal rebuild` replaces it",
            )
        # The view itself was changed (or predates digests): a stale cache, not a witness.
        return EMPTY_VIEW, "", "memory.json was changed outside abcd (its digest does not match)"
    line = segs.line_ending_at(cp.segment, cp.offset)
    if line is None or line_hash(line) != cp.head:
        raise locate_break(home, segs)  # the view is as abcd wrote it: the journal changed
    head = head_beside(home, file_stamp(st), cp.seq)
    witness = (cp.segment, cp.offset, cp.seq, cp.head) if head is None else head.checkpoint
    if head is not None and not segs.holds(witness[0], witness[1], witness[3]):
        raise locate_break(home, segs)  # a line past the view's checkpoint was edited or cut
    if head is None:
        hold_to_segments(segs, view_segments_stamp(data), witness, VIEW_FILE)
    else:
        hold_to_segments(segs, head.segments, witness, HEAD_FILE)
    try:
        at = decode_envelope(line).at
    except BadLine:
        raise locate_break(home, segs) from None
    return view, at, None


def hold_to_segments(
    segs: Segments, stamp: str | None, witness: tuple[int, int, int, str], witness_file: str
) -> None:
    """Walk the whole chain when a segment changed since `stamp` was taken; raise a break.

    An edit before the checkpoint shows nowhere else: a segment's change time
    moves on every write, so only then is the journal read whole.
    """
    if stamp == segs.stamp():
        return
    scan = Scan()
    found = first_break(
        read_links(segs, scan), witness, torn_inside=scan.torn_inside, witness_file=witness_file
    )
    if found is not None:
        raise broken(found)


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


def _load(
    home: Home,
    segs: Segments,
    on_bytes: Callable[[int], None] | None = None,
    *,
    writer: bool = False,
) -> Loaded:
    base, at, why = _trusted_base(home, segs, writer=writer)
    try:
        view, new_at, count = fold_from(segs, base, on_bytes=on_bytes)
    except JournalBroken:
        raise locate_break(home, segs) from None  # named as verify names it
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
def journal_lock(segs: Segments, *, wait: bool = True) -> Iterator[None]:
    """The exclusive journal lock, held for the whole append: portalocker on `journal/.lock`
    (what every abcd before this one takes) and on the journal folder itself. A person who
    deletes `.lock` as a stale file (or a process that swaps it) let a second writer lock a new
    one while the first wrote, and two lines took one seq; the folder cannot be deleted while it
    holds the journal. Without `wait`, `LockHeld` when another process holds it (a hook, which
    must never wait on a writer, a stopped one included)."""
    import portalocker  # imported here: only writers pay for it

    assert segs.dfd is not None
    rel = f"{JOURNAL_DIR}/{LOCK_NAME}"
    # Every check a home file gets (a link or a FIFO in its place is refused by name).
    try:
        opened = segs.home.open_in(segs.dfd, LOCK_NAME, rel, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK)
    except TrustError as err:  # a read-only home, a link planted: say what did not happen
        raise TrustError(
            err.shown_path, f"{err.reason}; the journal lock was not taken, so nothing was written"
        ) from err
    assert opened is not None  # O_CREAT
    held = [opened[0]]
    try:
        held.append(os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=segs.dfd))
        for fd in held:  # always in this order: two writers never wait on each other's second
            try:  # the descriptor itself: no file object
                portalocker.lock(fd, portalocker.LOCK_EX | portalocker.LOCK_NB)
                continue
            except portalocker.AlreadyLocked:
                if not wait:
                    raise LockHeld() from None
            with _said_after(LOCK_NOTICE_SECONDS, _Waiting(segs.home.shown(rel), fd)):
                portalocker.lock(fd, portalocker.LOCK_EX)
        yield
    finally:
        for fd in held:
            os.close(fd)  # closing a descriptor releases its lock


# How long a writer waits on another's journal lock before it says so on stderr.
LOCK_NOTICE_SECONDS = 1.0


@contextmanager
def _said_after(seconds: float, say: Callable[[], str]) -> Iterator[None]:
    """Write `say()` on stderr once if the block runs past `seconds`: a timer signal, so a
    blocked `flock` is interrupted, says it, and is taken up again (PEP 475). Outside the
    main thread (the desk's server) no signal can be set, and the block runs without a word;
    so it does when the caller's own timer runs (a watchdog's `alarm`: the process has one
    real-time timer, and setting ours would clear theirs), or its handler is not Python's."""
    import signal

    def notice(signum: int, frame: object) -> None:
        try:
            os.write(2, say().encode("utf-8", "backslashreplace"))
        except OSError:
            pass  # no stderr to say it on: the wait goes on

    before = signal.getsignal(signal.SIGALRM)
    if before is None or signal.getitimer(signal.ITIMER_REAL)[0] > 0:
        yield
        return
    try:
        signal.signal(signal.SIGALRM, notice)
    except ValueError:  # not the main thread
        before = None
    if before is None:
        yield
        return
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)


@dataclass(frozen=True)
class _Waiting:
    """What a writer says while another process holds the journal lock on `fd`'s file."""

    shown: str
    fd: int

    def __call__(self) -> str:
        holder = _lock_holder(self.fd)
        by = f"process {holder}" if holder is not None else "another process"
        return (
            f"abcd: waiting for the journal lock ({self.shown}), which {by} holds; this write "
            "goes on when it is free (Ctrl-C stops it, writing nothing)\n"
        )


def _lock_holder(fd: int) -> int | None:
    """The process holding a `flock` on `fd`'s file, from Linux's `/proc/locks`; else `None`."""
    try:
        st = os.fstat(fd)
        with open("/proc/locks", encoding="ascii", errors="replace") as table:
            lines = table.read().splitlines()
    except OSError:
        return None
    # `1: FLOCK  ADVISORY  WRITE 4242 08:01:1234567 0 EOF`: the device's major and minor in hex.
    file = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    for line in lines:
        parts = line.split()  # a waiter's line (`1: -> FLOCK ...`) has `->` where FLOCK stands
        if len(parts) >= 6 and parts[1:2] == ["FLOCK"] and parts[5] == file and parts[4].isdigit():
            pid = int(parts[4])
            if 0 < pid != os.getpid():
                return pid
    return None


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
        segs.renumbered()
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
            if offset == 0:  # nor a new segment left empty
                os.unlink(segment_name(number), dir_fd=segs.dfd)
            raise StorageError(f"{segs.home.shown(rel)}: cannot append: {err.strerror}") from err
    finally:
        os.close(fd)
    if offset == 0:
        segs.renumbered()  # a new segment
        os.fsync(segs.dfd)


def _write_pending(segs: Segments, number: int, offset: int, data: bytes) -> None:
    """Record, durably, where a batch starts and ends before writing it (readers stop there)."""
    assert segs.dfd is not None
    last = data[:-1].rsplit(b"\n", 1)[-1]
    intent = f"{number} {offset} {offset + len(data)} {line_hash(last)}\n".encode()
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = open_at(PENDING_NAME, flags, FILE_MODE, segs.dfd)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError(errno.EINVAL, "not a regular file")
            os.write(fd, intent)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.fsync(segs.dfd)
    except OSError as err:
        try:  # an intent cut short would stay at rest until the next writer
            os.unlink(PENDING_NAME, dir_fd=segs.dfd)
        except OSError:
            pass
        shown = segs.home.shown(f"{JOURNAL_DIR}/{PENDING_NAME}")
        raise StorageError(f"{shown}: cannot write the batch's intent: {err.strerror}") from err
    segs.stop = (number, offset)


def _clear_pending(segs: Segments) -> None:
    assert segs.dfd is not None
    try:
        os.unlink(PENDING_NAME, dir_fd=segs.dfd)
    except FileNotFoundError:
        pass
    segs.stop = None


def repair_pending(segs: Segments) -> bool:
    """Cut away a batch whose writer died before it was whole; call under the lock only.

    A batch that did land whole (its writer died before removing the intent)
    is kept: its last line is where the intent says, with the hash it says.
    What is cut is set aside first, never deleted (`_set_aside_unfinished`):
    its writer said nothing of it, but an abcd too old to know the intent may
    have chained a line of its own onto it, and printed that line's id.
    """
    pending = segs.pending()
    if pending is None:
        if segs.intent:
            _clear_pending(segs)  # an intent cut short: its batch never began
        # The stop `Segments` took when it was opened, before the lock, may be another writer's
        # batch that has landed whole since: read to where the journal now ends, or this
        # writer's checks (ids, twins, the note acted on) would not see that batch.
        segs.stop = None
        return False
    number, start, end, last = pending
    if _witnessed_past(segs, number, start):
        _clear_pending(segs)
        segs.stop = None  # read to where the journal ends, as with no intent
        return False
    opened = segs.open(number, os.O_RDWR)
    if opened is None:
        _clear_pending(segs)
        return False
    fd = opened[0]
    try:
        whole = segs.holds(number, end, last)
        if not whole:
            if os.fstat(fd).st_size > start:
                _set_aside_unfinished(segs, number, start, last)
            os.ftruncate(fd, start)
            os.fsync(fd)
    except OSError as err:
        shown = segs.home.shown(segment_rel(number))
        raise StorageError(f"{shown}: cannot cut away an unfinished batch: {err.strerror}") from err
    finally:
        os.close(fd)
    if not whole and start == 0 and number > 1 and segs.dfd is not None:
        os.unlink(segment_name(number), dir_fd=segs.dfd)
    _clear_pending(segs)
    if segs.dfd is not None:
        os.fsync(segs.dfd)
    return not whole


def _witnessed_past(segs: Segments, number: int, start: int) -> bool:
    """Whether an intent's batch would start inside what the head line witnesses
    (`Segments.witnessing`), said on stderr when it would: no writer's batch. A `.pending`
    edited or damaged so was taken as one, and the acknowledged lines after its start were cut
    out of the journal."""
    seq = segs.witnessing((number, start))
    if seq is None:
        return False
    shown = segs.home.shown(f"{JOURNAL_DIR}/{PENDING_NAME}")
    print(
        f"abcd: {shown} named a batch from byte {start} of {segment_rel(number)}, inside what "
        f"{HEAD_FILE} witnesses (to seq {seq}): no writer's batch, so nothing was cut; it is "
        "cleared",
        file=sys.stderr,
    )
    return True


# Where what is cut from the journal is kept (`journal recover`, an unfinished batch).
RECOVERED_DIR = "recovered"


def recovered_rel(what: str) -> str:
    """A new folder's path, relative to the home, for what is set aside now: `recovered/`, the
    time to the second, then `what` (`seq-12`, `unfinished-<hash>`)."""
    stamp = now_rfc3339().replace(":", "").replace("-", "")[:15]
    return f"{RECOVERED_DIR}/{stamp}-{what}"


def _set_aside_unfinished(segs: Segments, number: int, start: int, last: str) -> None:
    """Copy what an unfinished batch left in segment `number` from `start` into
    `<home>/recovered/<time>-unfinished-<its last line's hash>/`, synced, and say so on stderr."""
    data = segs.read(number, start)
    rel = recovered_rel(f"unfinished-{last[:12]}")
    with segs.home.folder(rel, create=True) as dfd:
        assert dfd is not None
        for copy in range(1, 100):
            # A writer before this one may have died copying it (before the cut): keep both.
            name = f"{segment_name(number)}.from-{start}" + (f".{copy}" if copy > 1 else "")
            try:
                create_synced(name, data, dfd)
                break
            except FileExistsError:
                continue
        else:
            raise StorageError(f"{segs.home.shown(rel)}: cannot set the unfinished batch aside")
        os.fsync(dfd)
    lines = data.count(b"\n")
    print(
        f"abcd: a writer died before its batch was whole: its {lines} complete line(s) are cut "
        f"from the journal and kept in {segs.home.shown(rel)}/{name}",
        file=sys.stderr,
    )


Projection_ = Callable[[Home, View], None]


def write_view(
    home: Home,
    view: View,
    encoded: bytes | None = None,
    end: tuple[int, int, int, str] | None = None,
) -> None:
    """Write `memory.json`, stamped with the recall index now beside it (write the index first),
    then the head line beside both: the journal's `end` (the view's checkpoint unless given)."""
    from abcd.recall.index import INDEX_FILE

    stamp = NO_INDEX
    try:
        opened = home.open_file(INDEX_FILE)
    except (TrustError, OSError):
        opened = None  # an index the hook would refuse is not named as this view's
    if opened is not None:
        os.close(opened[0])
        stamp = file_stamp(opened[1])
    data = encoded if encoded is not None else encode_view(view)
    with Segments(home) as segs:
        segments = segs.stamp()
    home.write_atomic(VIEW_FILE, restamp(data, stamp, segments))
    written = home.open_file(VIEW_FILE)
    assert written is not None  # just renamed into place, under the lock
    os.close(written[0])
    cp = view.journal
    end = end or (cp.segment, cp.offset, cp.seq, cp.head)
    put_head(home, Head(end, segments, file_stamp(written[1]), stamp))


def put_head(home: Home, head: Head) -> None:
    """Write the head line; `StorageError` naming it when it cannot be written."""
    try:
        write_head(home, head)
    except OSError as err:
        raise StorageError(f"{home.shown(HEAD_FILE)}: cannot write: {err.strerror}") from err


def _project(
    home: Home,
    view: View,
    encoded: bytes | None,
    projections: Sequence[Projection_],
    warnings: list[str] | None,
) -> None:
    """Write the caches derived from the view, then the view stamped with them; after a
    durable append, failures only warn."""
    for project in projections:
        try:
            project(home, view)
        except (AbcdError, OSError) as err:
            if warnings is None:
                raise
            warnings.append(f"recall index not written ({err}); the hook folds the view instead")
    try:
        write_view(home, view, encoded)
    except (AbcdError, OSError) as err:
        if warnings is None:
            raise
        # The error names the file (the view, or the head line written after it).
        warnings.append(f"{err}; readers fold the journal instead")


def bounded(view: View) -> bytes:
    """The view's bytes, refused before anything is written if its readers would refuse them."""
    encoded = encode_view(view)
    if len(encoded) > VIEW_MAX_BYTES:
        raise Refused(
            "too many notes",
            message=f"refused: memory.json would be {len(encoded)} bytes with these notes, past "
            f"the {VIEW_MAX_BYTES} its readers accept ({len(view.notes)} notes); nothing was "
            "written; remove notes first",
        )
    return encoded


def open_for_write(home: Home, segs: Segments) -> tuple[int | None, Head | None]:
    """Under the lock: cut what a dead writer left, and hold the journal to its witnesses;
    return the recall index's seq (`None` without a usable index) and the head line."""
    repair_pending(segs)
    segs.remember()  # from here on only this writer changes the journal
    repair_torn_tail(segs)
    head = read_head(home)
    return hold_to_witnesses(home, segs, head), head


class Known:
    """What a plan checks its events against: the ids ever used and the live notes' titles.

    Asked of the recall index (its id buckets hold every live and removed id
    at its checkpoint) and of the journal lines past it, so a plan in a big
    home reads a bucket, not the whole view. Where the index cannot answer
    (absent, from another version, not the one the head line names), the
    view is loaded whole: `view`, which a plan may also ask for outright.
    """

    def __init__(self, home: Home, segs: Segments, index_stamp: str | None) -> None:
        self._home = home
        self._segs = segs
        self._index_stamp = index_stamp
        self._view: View | None = None
        self._lookup: _IndexLookup | None = None
        self._tried = False

    @classmethod
    def of_view(cls, home: Home, segs: Segments, view: View) -> Known:
        """What a plan knows when the writer has read the view whole anyway."""
        known = cls(home, segs, None)
        known._view = view
        return known

    @property
    def home(self) -> Home:
        """The home the plan appends to (under its lock)."""
        return self._home

    @property
    def view(self) -> View:
        """The whole current view (a full read: for plans that need every note)."""
        if self._view is None:
            self._view = _load(self._home, self._segs, writer=True).view
        return self._view

    def _open(self) -> _IndexLookup:
        if not self._tried:
            self._tried = True
            if self._view is None and self._index_stamp is not None:
                self._lookup = _IndexLookup.open(self._home, self._segs, self._index_stamp)
            if self._lookup is None:  # the view, read once into a table
                view = self.view
                trail: dict[str, str | bool] = dict.fromkeys(view.removed, False)
                trail.update((n.id, n.title) for n in view.notes)
                texts = {same_text(n.title, n.body, n.recall, n.root): n.id for n in view.notes}
                self._lookup = _IndexLookup(None, trail, texts)
        assert self._lookup is not None
        return self._lookup

    def _state(self, note_id: str) -> str | bool | None:
        """The live note's title, `False` for a removed id, `None` for an id never used."""
        return self._open().state(note_id)

    def twin(self, text: SameText) -> str | None:
        """The id of a live note with this title, body, recall words (in any order) and reach."""
        return self._open().twin(text)

    def used(self, note_id: str) -> bool:
        """Whether the id names a note, live or removed, anywhere in the journal."""
        return self._state(note_id) is not None

    def title(self, note_id: str) -> str | None:
        """The title of the live note with this id, or `None`."""
        state = self._state(note_id)
        return state if isinstance(state, str) else None

    def removed(self, note_id: str) -> bool:
        """Whether the id named a note that was removed."""
        return self._state(note_id) is False


class _IndexLookup:
    """Ids through the recall index (when there is one) and a table of the rest."""

    def __init__(
        self, index: Index | None, table: dict[str, str | bool], texts: dict[SameText, str]
    ) -> None:
        self.index = index
        self.table = table  # id -> title (live) or False (removed), past the index
        self.texts = texts  # the live notes' texts past the index (every one's, without it)

    @classmethod
    def open(cls, home: Home, segs: Segments, stamp: str) -> _IndexLookup | None:
        """Through the index the head line names and the journal lines past its checkpoint."""
        from abcd.recall.index import Index, IndexUnusable

        try:
            index = Index.open(home)
        except (IndexUnusable, TrustError, OSError, ValueError, EOFError):
            return None
        if file_stamp(os.fstat(index.fd)) != stamp:
            index.close()
            return None
        segment, offset, seq, head = index.checkpoint
        table: dict[str, str | bool] = {}
        texts: dict[str, SameText] = {}  # by id, the live text of each note changed past the index
        try:
            lines = segs.lines(segment, offset) if seq else segs.lines()
            for _, record in walk(lines, head if seq else ZERO_HASH, seq):
                event = record.event
                if isinstance(event, NoteAdded):
                    table[event.id] = event.title
                    texts[event.id] = same_text(event.title, event.body, event.recall, event.root)
                elif isinstance(event, NoteRemoved):
                    table[event.id] = False
                    texts.pop(event.id, None)
                elif isinstance(event, NoteRevised) and table.get(event.id) is not False:
                    root = texts[event.id][3] if event.id in texts else _root_in(index, event.id)
                    table[event.id] = event.title
                    texts[event.id] = same_text(event.title, event.body, event.recall, root)
                elif isinstance(event, NoteRestored) and not _live_in(index, table, event.id):
                    note = event.note  # back as it stood (a live note stays as it is)
                    table[event.id] = note.title
                    texts[event.id] = same_text(note.title, note.body, note.recall, note.root)
        except JournalBroken:
            index.close()
            raise locate_break(home, segs) from None
        return cls(index, table, {text: note_id for note_id, text in texts.items()})

    def state(self, note_id: str) -> str | bool | None:
        if note_id in self.table or self.index is None:
            return self.table.get(note_id)
        no = self.index.knows((note_id,)).get(note_id)
        if no is None:
            return None
        if no < 0:
            return False
        title: str = self.index.record(no)[1]
        return title

    def twin(self, text: SameText) -> str | None:
        """The live note whose text is `text`: past the index, else among the index's notes
        holding every one of its recall words (their postings, never every record)."""
        if text in self.texts:
            return self.texts[text]
        if self.index is None or not text[2]:
            return None
        from abcd.recall.bitset import numbers
        from abcd.recall.index import EVERYWHERE
        from abcd.recall.terms import Prompt

        group = {text[3] or EVERYWHERE}
        held: int | None = None
        for word in sorted(text[2]):
            asked = Prompt(word)
            if not asked.stems:  # a word the recall rule reads as none (an older note's)
                continue
            found = self.index.candidates(asked, group)
            held = found if held is None else held & found
            if not held:
                return None
        for no in numbers(held or 0):
            record = self.index.record(no)
            if record[0] not in self.table and same_text(*record[1:5]) == text:
                return record[0]
        return None


SameText = tuple[str, str, frozenset[str], "str | None"]
"""What makes two notes the same note: title, body, recall words (in any order and case), reach."""


def same_text(title: str, body: str, recall: Sequence[str], root: str | None) -> SameText:
    """The text two notes must share to be the same note (`SameText`). Recall words in any
    case: the recall rule reads them in lower case, and a note may not hold one twice so."""
    return (title, body, frozenset(word.casefold() for word in recall), root)


def _root_in(index: Index, note_id: str) -> str | None:
    """The reach of a note the index holds (a revision keeps it)."""
    no = index.numbers_of((note_id,)).get(note_id)
    root: str | None = index.record(no)[4] if no is not None else None
    return root


def _live_in(index: Index, table: dict[str, str | bool], note_id: str) -> bool:
    """Whether `note_id` is live after the lines folded into `table`, past `index`."""
    if note_id in table:
        return table[note_id] is not False
    return bool(index.numbers_of((note_id,)))


@dataclass(frozen=True)
class _Base:
    """What a writer needs to chain on without reading the view: the journal's end and the
    stamps the last writer left (`abcd.journal.head`)."""

    view_cp: tuple[int, int, int, str]
    view_bytes: int
    head: Head
    end: tuple[int, int, int, str]
    last_at: str


def _fast_base(home: Home, segs: Segments, line: Head | None) -> _Base | None:
    """The journal's end, held to its witnesses, when the head line names the view on disk;
    `None` when it does not (the view is then read whole)."""
    opened = home.open_file(VIEW_FILE)
    if opened is None:
        return None
    fd, st = opened
    try:
        view_cp = view_checkpoint(os.pread(fd, VIEW_HEAD_BYTES, 0))
    finally:
        os.close(fd)
    if view_cp is None or not view_cp[2]:
        return None
    head = beside(line, file_stamp(st), view_cp[2])
    if head is None:
        return None
    # The view is the one a writer left (its change time says so): its digest was true then.
    if not segs.holds(view_cp[0], view_cp[1], view_cp[3]):
        raise locate_break(home, segs)
    hold_to_segments(
        segs, head.segments, head.checkpoint, HEAD_FILE
    )  # the head's own line: held above
    end, at = journal_end(home, segs, head.checkpoint)
    return _Base(view_cp, st.st_size, head, end, at)


def journal_end(
    home: Home, segs: Segments, checkpoint: tuple[int, int, int, str]
) -> tuple[tuple[int, int, int, str], str]:
    """The journal's end past a checkpoint it holds, the chain checked, and the last `at`.

    The lines past a head line are those a writer that died before
    rewriting it appended: few, and walked here.
    """
    segment, offset, seq, hashed = checkpoint
    end, at = checkpoint, ""
    try:
        for raw, record in walk(segs.lines(segment, offset), hashed, seq):
            end, at = (raw.segment, raw.end, record.seq, line_hash(raw.data)), record.at
    except JournalBroken:
        raise locate_break(home, segs) from None
    if not at:
        line = segs.line_ending_at(segment, offset)
        try:
            at = decode_envelope(line).at if line is not None else ""
        except BadLine:
            raise locate_break(home, segs) from None
    return end, at


def compact_inline(home: Home, warnings: list[str] | None) -> None:
    """Under the writer's lock, in a small home: the view and the index written whole now."""
    from abcd.recall.index import rebuild_index

    with Segments(home) as segs:
        view = _load(home, segs, writer=True).view
    _project(home, view, None, (rebuild_index,), warnings)


def _encode_lines(
    events: Sequence[Event], end: tuple[int, int, int, str], last_at: str
) -> tuple[list[Record], bytes, int, int, Checkpoint]:
    """The batch's lines chained onto `end`: records, bytes, where they go, and the new end."""
    at = max(now_rfc3339(), last_at)  # the clock, never behind the last event
    segment, offset, seq, head = end
    records: list[Record] = []
    chunks: list[bytes] = []
    for event in events:
        seq += 1
        line = encode_line(seq, at, head, event)
        records.append(Record(seq, at, head, event))
        chunks.append(line + b"\n")
        head = line_hash(line)
    data = b"".join(chunks)
    number, offset = (segment, offset) if segment else (1, 0)
    if offset and offset + len(data) > SEGMENT_MAX_BYTES:
        number, offset = number + 1, 0
    return records, data, number, offset, Checkpoint(number, offset + len(data), seq, head)


# The seqs of the events this process landed, in order: the CLI says which stand when its output
# fails after they did (`abcd.cli.main`), since a command that wrote must say so.
LANDED: list[int] = []


def _land(segs: Segments, data: bytes, number: int, offset: int, records: list[Record]) -> None:
    """Append the lines; a batch behind its intent, so it lands whole or not at all."""
    batch = len(records) > 1
    if batch:
        _write_pending(segs, number, offset, data)
    append_lines(segs, number, data, offset)
    if batch:
        _clear_pending(segs)  # the batch is whole: readers may read it
    LANDED.extend(record.seq for record in records)


def append_records(
    plan: Callable[[Known], Sequence[Event]],
    home_path: str | os.PathLike[str] | None = None,
    *,
    projections: Sequence[Projection_] = (),
    warnings: list[str] | None = None,
) -> list[Record]:
    """Append the events `plan` returns for the journal as it stands; return their records.

    `plan` runs under the lock, so what it checks (an id is new, a note
    exists) still holds when its events land. If it raises, nothing is
    written. The view and the index are not rewritten: the head line
    (`abcd.journal.head`) is, and each time they come to trail the journal by
    a multiple of `COMPACT_AFTER` events a compaction is asked for, off this path
    (`abcd.journal.compact`). Only a writer that finds no head line beside
    the view (a new home, caches lost or made by another version) writes
    the view and `projections` whole, as before. Once the lines are durable,
    a cache that cannot be written goes into `warnings` (when given) and the
    append still succeeds.
    """
    home = Home.open(home_path, create=True)
    assert home is not None
    with home, Segments(home, create=True) as segs, journal_lock(segs):
        index_seq, line = open_for_write(home, segs)
        base = _fast_base(home, segs, line)
        if base is None:
            return _append_whole(home, segs, plan, projections, warnings)
        known = Known(home, segs, base.head.index)
        events = plan(known)
        if not events:
            return []
        records, data, number, offset, cp = _encode_lines(events, base.end, base.last_at)
        # The view the compaction will write: at most its size now plus every line past it.
        if base.view_bytes + _bytes_past(segs, base) + len(data) > VIEW_MAX_BYTES:
            bounded(_fold_records(known.view, records, cp))
        _land(segs, data, number, offset, records)
        end = (cp.segment, cp.offset, cp.seq, cp.head)
        try:
            put_head(home, Head(end, segs.stamp(), base.head.view, base.head.index))
        except StorageError as err:
            if warnings is None:
                raise
            warnings.append(f"{err}; readers walk the journal's chain instead")
        view_seq = base.view_cp[2]
        trailing = cp.seq - min(view_seq, view_seq if index_seq is None else index_seq)
        if crossed_bound(trailing, len(records)):
            from abcd.journal.compact import compact_soon

            compact_soon(home, base.view_bytes, warnings)
        return records


def crossed_bound(trailing: int, appended: int) -> bool:
    """Whether an append of `appended` events that leaves the caches `trailing` crossed
    `COMPACT_AFTER` or one of its multiples: the appends that ask for a compaction.

    One append in `COMPACT_AFTER` asks, whichever process makes it, so while a
    compaction runs (or waits out its spacing) the others neither try its lock
    nor start another; one that was asked for and did not run is asked for
    again `COMPACT_AFTER` events later.
    """
    return trailing >= COMPACT_AFTER and (trailing - appended) // COMPACT_AFTER < (
        trailing // COMPACT_AFTER
    )


def _bytes_past(segs: Segments, base: _Base) -> int:
    """The journal's bytes past the view's checkpoint: a bound on what the view will gain."""
    segment, offset = base.view_cp[0], base.view_cp[1]
    end_segment, end_offset = base.end[0], base.end[1]
    if segment == end_segment:
        return end_offset - offset
    middle = sum(max(segs.size(number), 0) for number in range(segment + 1, end_segment))
    return max(segs.size(segment), 0) - offset + middle + end_offset


def _fold_records(view: View, records: Sequence[Record], cp: Checkpoint) -> View:
    projection = Projection(view)
    for record in records:
        projection.apply(record)
    return projection.view(cp)


def _append_whole(
    home: Home,
    segs: Segments,
    plan: Callable[[Known], Sequence[Event]],
    projections: Sequence[Projection_],
    warnings: list[str] | None,
) -> list[Record]:
    """The append when no head line goes with the view: the view is read and written whole."""
    loaded = _load(home, segs, writer=True)
    events = plan(Known.of_view(home, segs, loaded.view))
    if not events:
        if loaded.stale:
            _project(home, loaded.view, None, projections, warnings)
        return []
    end = loaded.view.journal
    records, data, number, offset, cp = _encode_lines(
        events, (end.segment, end.offset, end.seq, end.head), loaded.last_at
    )
    view = _fold_records(loaded.view, records, cp)
    encoded = bounded(view)
    _land(segs, data, number, offset, records)
    _project(home, view, encoded, projections, warnings)
    return records


def append(
    plan: Callable[[View], Sequence[Event]],
    home_path: str | os.PathLike[str] | None = None,
    *,
    projections: Sequence[Projection_] = (),
    warnings: list[str] | None = None,
) -> tuple[View, list[Record]]:
    """`append_records` for a plan that reads the whole view; return the view after it too
    (a full read: tests and tools, not the commands)."""
    records = append_records(
        lambda known: plan(known.view), home_path, projections=projections, warnings=warnings
    )
    return load_view(home_path), records


def refresh(
    home_path: str | os.PathLike[str] | None = None,
    *,
    projections: Sequence[Projection_],
    wait: bool = True,
) -> None:
    """Under the lock, bring the view up to the journal and write the projections again
    (`LockHeld`, nothing done, when another process holds the lock and `wait` is off)."""
    home = Home.open(home_path)
    if home is None:
        return
    with home:
        with Segments(home) as probe:
            if probe.dfd is None:
                return  # no journal: nothing to project
        with Segments(home, create=True) as segs, journal_lock(segs, wait=wait):
            open_for_write(home, segs)
            loaded = _load(home, segs, writer=True)
            for project in projections:
                project(home, loaded.view)
            if loaded.stale or projections:
                write_view(home, loaded.view)


def rebuild(
    home_path: str | os.PathLike[str] | None = None,
    *,
    on_bytes: Callable[[int], None] | None = None,
    projections: Sequence[Projection_] = (),
) -> tuple[View | None, View]:
    """Re-project `memory.json` from zero under the lock; return (the old view if readable, the new).

    It refuses a journal its witnesses no longer hold: re-projecting an
    edited journal would launder the edit (`abcd journal recover` is the way
    back from a break).
    """
    home = Home.open(home_path, create=True)
    assert home is not None
    with home, Segments(home, create=True) as segs, journal_lock(segs):
        open_for_write(home, segs)
        try:
            data = home.read(VIEW_FILE, VIEW_MAX_BYTES)
            old = decode_view(data) if data is not None else None
        except (TrustError, ValueError):
            data, old = None, None  # an untrusted view is replaced, never believed
        if old is not None and data is not None and old.journal.seq and digest_matches(data):
            # A view as abcd wrote it witnesses the journal: never re-project past an edit.
            cp = old.journal
            if not segs.holds(cp.segment, cp.offset, cp.head):
                raise locate_break(home, segs)
            try:  # what readers saw: the view with the lines past it folded in
                old, _, _ = fold_from(segs, old)
            except JournalBroken:
                raise locate_break(home, segs) from None
        try:
            view, _, _ = fold_from(segs, EMPTY_VIEW, on_bytes=on_bytes)
        except JournalBroken:
            raise locate_break(home, segs) from None
        encoded = bounded(view)
        for project in projections:
            project(home, view)
        write_view(home, view, encoded)
        return old, view

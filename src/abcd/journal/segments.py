"""The journal's segment files under `<home>/journal/`, read through the trust layer.

Segments are `000001.jsonl`, `000002.jsonl`, ...; the chain runs across them.
`Segments` opens the folder once (without following a link) and opens each
segment relative to it. Readers take complete lines only: a last line without
its newline (a torn tail left by a crash) is ignored here and cut away by the
next writer under the lock (`abcd.journal.store`). A torn line anywhere but
at the very end of the journal is damage, reported by `verify`.

A batch of several events (an import) is written with an intent beside it,
`journal/.pending`: where the batch starts and where it must end. Until the
writer removes it, readers stop where the batch starts, so a batch lands
whole or, if its writer dies, not at all: the next writer cuts it away.
"""

from __future__ import annotations

from abcd import leanos as os
from abcd.constants import IMPORT_MAX_BYTES, LINE_MAX_BYTES, SEGMENT_MAX_BYTES
from abcd.digest import sha256_hex
from abcd.errors import StorageError, TrustError
from abcd.shapes import segment_number
from abcd.trust import Home

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

JOURNAL_DIR = "journal"
LOCK_NAME = ".lock"
PENDING_NAME = ".pending"
# A segment rolls at SEGMENT_MAX_BYTES, but one batch (an import) lands whole
# in one segment, so a segment may exceed the roll size by one batch.
SEGMENT_READ_MAX = SEGMENT_MAX_BYTES + IMPORT_MAX_BYTES


def segment_name(number: int) -> str:
    return f"{number:06d}.jsonl"


def segment_rel(number: int) -> str:
    return f"{JOURNAL_DIR}/{segment_name(number)}"


# A line is looked for in the last few KiB before its end first: the whole bound only when it is
# longer (most lines are well under 1 KiB, and a segment may be megabytes).
_TAIL_READ = 4096
# How many times a reader looks again for a batch's intent when the last segment changed while it
# read (`Segments._read_settled`).
_SETTLE_TRIES = 16


def _line_before(fd: int, end: int) -> bytes | None:
    """The complete line of `fd` whose newline is the byte before `end` (at most
    `LINE_MAX_BYTES` long), or `None`."""
    window = min(end, _TAIL_READ)
    while True:
        start = end - window
        chunk = os.pread(fd, window, start)
        if not chunk.endswith(b"\n"):
            return None
        cut = chunk.rfind(b"\n", 0, len(chunk) - 1)
        if cut >= 0 or start == 0:
            return chunk[cut + 1 : -1]
        if window > LINE_MAX_BYTES:
            return None  # longer than any line abcd writes
        window = min(end, LINE_MAX_BYTES + 1)


class RawLine:
    """A complete line as stored: its segment, the offset just past its newline, its bytes.

    A plain slotted class, not a dataclass: this module is on the prompt hook's path.
    """

    __slots__ = ("data", "end", "segment")

    def __init__(self, segment: int, end: int, data: bytes) -> None:
        self.segment = segment
        self.end = end
        self.data = data


class Scan:
    """What a scan of the journal found besides its lines."""

    __slots__ = ("torn_inside", "torn_tail")

    def __init__(self) -> None:
        self.torn_tail = False  # the last segment ends in a line without its newline
        self.torn_inside: int | None = None  # a segment other than the last ends without a newline


class Segments:
    """The journal folder, held open; `dfd` is `None` when there is no journal yet."""

    def __init__(self, home: Home, *, create: bool = False) -> None:
        self.home = home
        self.dfd = home.open_dir(JOURNAL_DIR, create=create)
        # Where a batch still being written (or whose writer died) starts: readers stop there.
        self.stop: tuple[int, int] | None = None
        self.intent = False  # whether `pending` last found the intent's file, whole or not
        # Remembered only while a writer holds the lock past its repairs (`remember`): the
        # segment numbers, and the complete lines found ending at an offset.
        self._numbers: list[int] | None = None
        self._lines: dict[tuple[int, int], bytes] | None = None
        pending = self.pending()
        if pending is not None:
            self.stop = self._batch_start(pending)

    def _batch_start(self, pending: tuple[int, int, int, str]) -> tuple[int, int] | None:
        """Where readers stop for an intent: its batch's start, unless that lies inside what the
        head line witnesses (`witnessing`): no writer's batch starts there, so such a `.pending`
        (edited, or damaged) holds nothing back; the next writer clears it. Read only when an
        intent exists, which is almost never."""
        at = (pending[0], pending[1])
        return None if self.witnessing(at) is not None else at

    def witnessing(self, at: tuple[int, int]) -> int | None:
        """The seq the head line witnesses to, when (segment, offset) `at` lies inside what it
        witnesses and the journal still holds the witnessed line; else `None`. No writer's batch
        can start there: a writer writes the head line only once its batch is whole and its
        intent gone (and every abcd that writes a head line knows the intent)."""
        from abcd.journal.head import read_head

        head = read_head(self.home)
        if head is None:
            return None
        segment, end, seq, last = head.checkpoint
        return seq if at < (segment, end) and self.holds(segment, end, last) else None

    def pending(self) -> tuple[int, int, int, str] | None:
        """The intent of a batch not yet complete: (segment, start, end, hash of its last line)."""
        self.intent = False
        if self.dfd is None:
            return None
        # Every check a home file gets: a FIFO planted here is opened without waiting and
        # refused, as is a folder, so no reader (the hook among them) hangs or crashes on it.
        rel = f"{JOURNAL_DIR}/{PENDING_NAME}"
        opened = self.home.open_in(self.dfd, PENDING_NAME, rel)
        if opened is None:
            return None
        self.intent = True
        fd = opened[0]
        try:
            fields = os.read(fd, 256).split()
        except OSError as err:
            raise TrustError(self.home.shown(rel), err.strerror or str(err)) from err
        finally:
            os.close(fd)
        try:
            segment, start, end = (int(f) for f in fields[:3])
            head = fields[3].decode("ascii")
            if len(head) != 64:
                raise ValueError(head)
            return segment, start, end, head
        except (ValueError, IndexError, UnicodeDecodeError):
            # An intent cut short by a crash: its batch never began, so nothing is held back.
            return None

    def _stop_now(self) -> tuple[int, int] | None:
        """Where a batch being written now starts, read again (`stop` as of now)."""
        intent = self.intent
        pending = self.pending()
        self.intent = intent
        if pending is not None:
            self.stop = self._batch_start(pending)
        return self.stop

    def __enter__(self) -> Segments:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def remember(self) -> None:
        """Remember the listing and every complete line read from here on: call under the lock,
        after the repairs, where nothing but this writer's own appends changes the journal.

        An append only adds bytes past the lines remembered (a failed one cuts back to where it
        began; a torn tail cut away holds no complete line), and a segment this writer creates or
        removes is announced through `renumbered`.
        """
        self._lines = {}

    def renumbered(self) -> None:
        """This writer created or removed a segment: the listing is read again."""
        self._numbers = None

    def close(self) -> None:
        self._lines = self._numbers = None
        if self.dfd is not None:
            os.close(self.dfd)
            self.dfd = None

    def numbers(self) -> list[int]:
        """The segment numbers present, ascending."""
        if self.dfd is None:
            return []
        if self._numbers is not None:
            return list(self._numbers)
        try:
            names = os.listdir(self.dfd)
        except OSError as err:
            raise StorageError(f"{self.home.shown(JOURNAL_DIR)}: {err.strerror}") from err
        numbers = sorted(n for n in map(segment_number, names) if n is not None)
        if self._lines is not None:
            self._numbers = numbers
        return list(numbers)

    def open(
        self, number: int, flags: int = os.O_RDONLY | os.O_NONBLOCK
    ) -> tuple[int, os.stat_result] | None:
        if self.dfd is None:
            return None
        opened = self.home.open_in(self.dfd, segment_name(number), segment_rel(number), flags)
        if opened is not None and opened[1].st_size > SEGMENT_READ_MAX:
            os.close(opened[0])
            raise TrustError(
                self.home.shown(segment_rel(number)),
                f"larger than its bound of {SEGMENT_READ_MAX} bytes",
            )
        return opened

    def stamp(self) -> str:
        """One digest of every segment's number, inode, size and change time.

        The writer records it in the view after each append; a reader that
        finds it otherwise knows a segment changed since (an edit anywhere,
        even before the checkpoint, changes its change time, which the account
        cannot set back) and walks the whole chain before believing anything.
        """
        if self.dfd is None:
            return sha256_hex(b"")
        parts = []
        for number in self.numbers():
            try:
                st = os.stat(segment_name(number), dir_fd=self.dfd, follow_symlinks=False)
            except OSError:
                continue
            parts.append(f"{number}:{st.st_ino}:{st.st_size}:{st.st_ctime_ns}")
        return sha256_hex(";".join(parts).encode())

    def size(self, number: int) -> int:
        opened = self.open(number)
        if opened is None:
            return -1
        os.close(opened[0])
        return opened[1].st_size

    def read(self, number: int, start: int = 0) -> bytes:
        """The bytes of segment `number` from `start` to its end."""
        opened = self.open(number)
        if opened is None:
            return b""
        fd, st = opened
        try:
            chunks = []
            pos = start
            while pos < st.st_size:
                chunk = os.pread(fd, min(1 << 22, st.st_size - pos), pos)
                if not chunk:
                    break
                chunks.append(chunk)
                pos += len(chunk)
            return b"".join(chunks)
        except OSError as err:
            raise StorageError(f"{self.home.shown(segment_rel(number))}: {err.strerror}") from err
        finally:
            os.close(fd)

    def _read_settled(self, number: int, start: int) -> tuple[bytes, tuple[int, int] | None]:
        """The last segment's bytes from `start`, holding no part of a batch, and where a batch
        being written starts (`stop` as of now).

        A batch's intent is written before its first line and removed after its last, so a look
        for it after the bytes were read finds any batch they hold part of, unless that batch
        finished (or was cut back) between the read and the look. Then the segment no longer has
        the size it had when read: the bytes past it are read too (or, when it shrank, all again)
        and the look repeated, until a look finds the segment as read. Each try reads only what
        was appended since the last, and a writer's appends are fsynced under a lock, far slower
        than a try: past `_SETTLE_TRIES` the bytes are taken as the reader had them before this
        check (docs/decisions.md, "A reader takes a batch whole").
        """
        data = self.read(number, start)
        stop: tuple[int, int] | None = None
        for _ in range(_SETTLE_TRIES):
            stop = self._stop_now()
            if stop is not None or self.dfd is None:
                break
            try:
                size = os.stat(segment_name(number), dir_fd=self.dfd, follow_symlinks=False).st_size
            except OSError:
                break  # gone: the next read says so, through `open`'s checks
            read_to = start + len(data)
            if size == read_to:
                break
            data = data + self.read(number, read_to) if size > read_to else self.read(number, start)
        return data, stop

    def line_ending_at(self, number: int, end: int) -> bytes | None:
        """The complete line whose newline is the byte before `end`, or `None` if there is none."""
        if end <= 0:
            return None
        if self._lines is not None and (number, end) in self._lines:
            return self._lines[number, end]
        opened = self.open(number)
        if opened is None:
            return None
        fd, st = opened
        try:
            if st.st_size < end:
                return None
            line = _line_before(fd, end)
        finally:
            os.close(fd)
        if line is not None and self._lines is not None:
            self._lines[number, end] = line
        return line

    def holds(self, number: int, end: int, head: str) -> bool:
        """Whether the line ending at `end` in segment `number` hashes to `head` (a checkpoint or
        a batch's intent is still true of the journal)."""
        line = self.line_ending_at(number, end)
        return line is not None and sha256_hex(line) == head

    def total_bytes(self) -> int:
        return sum(max(self.size(n), 0) for n in self.numbers())

    def chunks(
        self,
        from_segment: int = 1,
        from_offset: int = 0,
        scan: Scan | None = None,
        on_bytes: Callable[[int], None] | None = None,
    ) -> Iterator[tuple[int, int, list[bytes]]]:
        """Per segment from (`from_segment`, `from_offset`): its number, where reading began,
        and its complete lines (without newlines).

        `scan`, when given, records torn lines; `on_bytes` is called with the
        size of each segment read (a progress bar's `advance`).
        """
        numbers = [n for n in self.numbers() if n >= from_segment]
        stop = self.stop
        if stop is not None:
            numbers = [n for n in numbers if n <= stop[0]]
        for index, number in enumerate(numbers):
            start = from_offset if number == from_segment else 0
            if stop is None and index == len(numbers) - 1 and self._numbers is None:
                # A batch may have begun since this reader opened the journal (a writer past its
                # repairs holds the lock: none can): `_read_settled` reads no part of one.
                data, stop = self._read_settled(number, start)
            else:
                data = self.read(number, start)
            if stop is not None and number == stop[0]:
                data = data[: max(0, stop[1] - start)]
            if on_bytes is not None:
                on_bytes(len(data))
            complete_end = data.rfind(b"\n") + 1
            if complete_end < len(data) and scan is not None:
                if index == len(numbers) - 1:
                    scan.torn_tail = True
                elif scan.torn_inside is None:
                    scan.torn_inside = number
            yield number, start, data[: complete_end - 1].split(b"\n") if complete_end else []

    def lines(
        self,
        from_segment: int = 1,
        from_offset: int = 0,
        scan: Scan | None = None,
        on_bytes: Callable[[int], None] | None = None,
    ) -> Iterator[RawLine]:
        """Every complete line from (`from_segment`, `from_offset`) to the end of the journal."""
        for number, start, lines in self.chunks(from_segment, from_offset, scan, on_bytes):
            end = start
            for line in lines:
                end += len(line) + 1
                yield RawLine(number, end, line)

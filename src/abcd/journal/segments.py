"""The journal's segment files under `<home>/journal/`, read through the trust layer.

Segments are `000001.jsonl`, `000002.jsonl`, ...; the chain runs across them.
Readers take complete lines only: a last line without its newline (a torn
tail left by a crash) is ignored here and cut away by the next writer under
the lock (`abcd.journal.store`). A torn line anywhere but at the very end of
the journal is damage, reported by `verify`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from abcd.constants import IMPORT_MAX_BYTES, LINE_MAX_BYTES, SEGMENT_MAX_BYTES
from abcd.errors import StorageError, TrustError
from abcd.trust import Home

JOURNAL_DIR = "journal"
LOCK_NAME = ".lock"
_SEGMENT_RE = re.compile(r"^([0-9]{6})\.jsonl$")
# A segment rolls at SEGMENT_MAX_BYTES, but one batch (an import) lands whole
# in one segment, so a segment may exceed the roll size by one batch.
SEGMENT_READ_MAX = SEGMENT_MAX_BYTES + IMPORT_MAX_BYTES


def segment_name(number: int) -> str:
    return f"{number:06d}.jsonl"


def segment_rel(number: int) -> str:
    return f"{JOURNAL_DIR}/{segment_name(number)}"


def list_segments(home: Home) -> list[int]:
    """The segment numbers present, ascending; empty when there is no journal."""
    with home.folder(JOURNAL_DIR) as dfd:
        if dfd is None:
            return []
        try:
            names = os.listdir(dfd)
        except OSError as err:
            raise StorageError(f"{home.shown(JOURNAL_DIR)}: {err.strerror}") from err
    return sorted(int(m.group(1)) for m in map(_SEGMENT_RE.match, names) if m)


def segment_size(home: Home, number: int) -> int:
    opened = home.open_file(segment_rel(number))
    if opened is None:
        return -1
    fd, st = opened
    os.close(fd)
    return st.st_size


def read_segment(home: Home, number: int, start: int = 0) -> bytes:
    """The bytes of segment `number` from `start` to its end (guarded, bounded)."""
    rel = segment_rel(number)
    opened = home.open_file(rel)
    if opened is None:
        return b""
    fd, st = opened
    try:
        if st.st_size > SEGMENT_READ_MAX:
            raise TrustError(home.shown(rel), f"larger than its bound of {SEGMENT_READ_MAX} bytes")
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
        raise StorageError(f"{home.shown(rel)}: {err.strerror}") from err
    finally:
        os.close(fd)


def read_line_ending_at(home: Home, number: int, end: int) -> bytes | None:
    """The complete line whose newline is the byte before `end`, or `None` if there is none."""
    if end <= 0:
        return None
    start = max(0, end - LINE_MAX_BYTES - 1)
    opened = home.open_file(segment_rel(number))
    if opened is None:
        return None
    fd, st = opened
    try:
        if st.st_size < end:
            return None
        chunk = os.pread(fd, end - start, start)
    finally:
        os.close(fd)
    if not chunk.endswith(b"\n"):
        return None
    body = chunk[:-1]
    cut = body.rfind(b"\n")
    if cut < 0 and start > 0:
        return None
    return body[cut + 1 :]


@dataclass(frozen=True)
class RawLine:
    """A complete line as stored: its segment, the offset just past its newline, its bytes."""

    segment: int
    end: int
    data: bytes


@dataclass
class Scan:
    """What a scan of the journal found besides its lines."""

    torn_tail: bool = False  # the last segment ends in a line without its newline
    torn_inside: int | None = None  # a segment other than the last ends without a newline
    end_segment: int = 0
    end_offset: int = 0


def iter_lines(
    home: Home,
    from_segment: int = 1,
    from_offset: int = 0,
    scan: Scan | None = None,
    on_bytes: Callable[[int], None] | None = None,
) -> Iterator[RawLine]:
    """Every complete line from (`from_segment`, `from_offset`) to the end of the journal.

    `scan`, when given, records a torn tail and where the complete lines end.
    `on_bytes`, when given, is called with the size of each segment chunk read
    (a progress bar's `advance`).
    """
    numbers = [n for n in list_segments(home) if n >= from_segment]
    for index, number in enumerate(numbers):
        start = from_offset if number == from_segment else 0
        data = read_segment(home, number, start)
        if on_bytes is not None:
            on_bytes(len(data))
        last_nl = data.rfind(b"\n")
        complete_end = last_nl + 1
        if complete_end < len(data) and scan is not None:
            if index == len(numbers) - 1:
                scan.torn_tail = True
            elif scan.torn_inside is None:
                scan.torn_inside = number
        pos = 0
        while pos < complete_end:
            nl = data.index(b"\n", pos)
            yield RawLine(number, start + nl + 1, data[pos:nl])
            pos = nl + 1
        if scan is not None and (complete_end > 0 or start > 0):
            scan.end_segment = number
            scan.end_offset = start + complete_end


def total_bytes(home: Home) -> int:
    """The journal's size in bytes (for a progress bar's total)."""
    return sum(max(segment_size(home, n), 0) for n in list_segments(home))

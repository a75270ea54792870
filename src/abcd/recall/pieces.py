"""Files of checked pieces, read piece by piece: the hook's caches that a prompt reads only in part.

A file is the length of its header, its header, then its pieces. The header
is `marshal`led: the fields its writer names (a format, the interpreter, the
term rule's version, ...) and then where each piece starts and the last one
ends, counted from the end of the header. The header and every piece carry a
CRC-32 of their bytes in front of them. A reader `pread`s the header and then
only the pieces it needs (the shelves of the reach's table its stems are
on), so what a prompt reads, checks and decodes follows its own words, not
the file's size. A header that does not check, names other fields or places a
piece outside the file makes the whole file unread; a piece that does not
check reads as `None`, and the caller treats it as its own damage.
"""

from __future__ import annotations

import marshal
from zlib import crc32

from abcd import leanos as os
from abcd.errors import AbcdError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from abcd.trust.guarded import Home

# A header past this is not one this tool wrote (the reach's holds a length for each item).
HEADER_MAX_BYTES = 4 * 1024 * 1024


def checked(blob: bytes | memoryview) -> bytes:
    """`blob` behind a CRC-32 of it."""
    return crc32(blob).to_bytes(4, "little") + bytes(blob)


def unchecked(piece: bytes | memoryview) -> memoryview | None:
    """The bytes behind a piece's CRC-32, or `None` when they do not match it."""
    body = memoryview(piece)[4:]
    if len(piece) < 4 or int.from_bytes(piece[:4], "little") != crc32(body):
        return None
    return body


def loads(piece: bytes | memoryview) -> object:
    """What a piece holds, or `None` when it does not check or decode."""
    body = unchecked(piece)
    try:
        return marshal.loads(body) if body is not None else None
    except (ValueError, EOFError, TypeError):
        return None


def encode(fields: tuple[Any, ...], blobs: Sequence[bytes | memoryview]) -> bytes:
    """A whole file: `fields` in its header, each of `blobs` a piece of it."""
    pieces = [checked(blob) for blob in blobs]
    ends = [0]
    for piece in pieces:
        ends.append(ends[-1] + len(piece))
    header = checked(marshal.dumps((*fields, tuple(ends))))
    return b"".join([len(header).to_bytes(4, "little"), header, *pieces])


def _where(header: bytes | memoryview, expect: tuple[Any, ...], extra: int, count: int) -> Any:
    """The header's own fields after `expect` and where its `count` pieces lie, or `None`."""
    stored = loads(header)
    if (
        type(stored) is not tuple
        or len(stored) != len(expect) + extra + 1
        or stored[: len(expect)] != expect
    ):
        return None
    ends = stored[-1]
    if type(ends) is not tuple or len(ends) != count + 1 or ends[0] != 0:
        return None
    previous = 0
    for end in ends:
        if type(end) is not int or end < previous:
            return None
        previous = end
    return stored[len(expect) : -1], ends


def _located(
    read: Callable[[int, int], bytes | memoryview],
    size: int,
    expect: tuple[Any, ...],
    extra: int,
    count: int,
) -> tuple[int, tuple[int, ...], tuple[Any, ...]] | None:
    """Where a file's pieces start, where each lies from there, and its header's own fields, when
    its header (read with `read(length, at)`) starts with `expect` and places its pieces within
    `size` bytes; else `None`."""
    if size < 4:
        return None
    base = 4 + int.from_bytes(read(4, 0), "little")
    if base - 4 > HEADER_MAX_BYTES or base > size:
        return None
    found = _where(read(base - 4, 4), expect, extra, count)
    if found is None or base + found[1][-1] > size:
        return None
    return base, found[1], found[0]


def decode(
    data: bytes, expect: tuple[Any, ...], extra: int, count: int
) -> tuple[tuple[Any, ...], list[memoryview | None]] | None:
    """A whole file's own header fields and its pieces' bytes (`None` for one that does not
    check), or `None` when it is not a file of `count` pieces whose header starts with `expect`."""
    view = memoryview(data)
    located = _located(lambda length, at: view[at : at + length], len(data), expect, extra, count)
    if located is None:
        return None
    base, ends, fields = located
    return fields, [unchecked(view[base + ends[n] : base + ends[n + 1]]) for n in range(count)]


class Reader:
    """One open file of pieces: its header's own fields, and any piece read when asked."""

    __slots__ = ("_base", "_ends", "_fd", "fields")

    def __init__(self, fd: int, base: int, ends: tuple[int, ...], fields: tuple[Any, ...]) -> None:
        self._fd, self._base, self._ends, self.fields = fd, base, ends, fields

    @classmethod
    def open(
        cls, home: Home, rel: str, expect: tuple[Any, ...], extra: int, count: int
    ) -> Reader | None:
        """The file at `rel` when its header starts with `expect` and holds `extra` fields of its
        own and `count` pieces within the file; `None` when absent or not such a file. Raises
        what the home's checks raise (a link, a file others may write) and `OSError`."""
        opened = home.open_file(rel)
        if opened is None:
            return None
        fd, st = opened
        try:
            located = _located(
                lambda length, at: os.pread(fd, length, at), st.st_size, expect, extra, count
            )
        except BaseException:
            os.close(fd)
            raise
        if located is None:
            os.close(fd)
            return None
        return cls(fd, *located)

    def piece(self, no: int) -> memoryview | None:
        """Piece `no`'s bytes, or `None` when they do not check (or cannot be read)."""
        start, end = self._ends[no], self._ends[no + 1]
        try:
            return unchecked(os.pread(self._fd, end - start, self._base + start))
        except OSError:
            return None

    def close(self) -> None:
        os.close(self._fd)


def open_reader(
    home: Home, rel: str, expect: tuple[Any, ...], extra: int, count: int
) -> Reader | None:
    """`Reader.open`, with anything the home's checks or the disk raise read as no file."""
    try:
        return Reader.open(home, rel, expect, extra, count)
    except (AbcdError, OSError):
        return None

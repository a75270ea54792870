"""Sets of note numbers as integers, a bit a note (bit `i` set: note number `i` is in the set).

The machine's candidates at 100,000 notes are some 60,000 numbers: as a
Python `set` they cost a prompt milliseconds to gather, copy and intersect,
as an integer microseconds (union, intersection and difference are `|`, `&`
and `& ~`, each a pass in C over a few kilobytes). The index keeps a recall
term's holders as a bitmap when they are many (`abcd.recall.index`), so a
prompt's candidates are gathered with `int.from_bytes` and `|`; the few
holders of a rare term are set bit by bit. Only what is scored is ever
listed as numbers (`numbers`).

Counts per note (a note's bound in `abcd.recall.engine`) are kept as bit
planes: plane `k` holds bit `k` of every note's count, so adding a term's
counts to every note, or finding the notes whose count reaches a threshold,
is a few integer operations a plane.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable


def of(numbers: Iterable[int], size: int) -> int:
    """The set of `numbers` (each below `size`), built in a byte string and read as one integer."""
    marks = bytearray((size + 7) // 8)
    for no in numbers:
        marks[no >> 3] |= 1 << (no & 7)
    return int.from_bytes(marks, "little")


def holding(bits: int, size: int) -> bytes:
    """The set's bytes, `size` numbers long (bit `i & 7` of byte `i >> 3`), for `has`."""
    return bits.to_bytes((size + 7) // 8, "little")


def has(marks: bytes, no: int) -> bool:
    """Whether `no` (below the size `holding` was given) is in the set `marks` holds."""
    return bool(marks[no >> 3] >> (no & 7) & 1)


_NONZERO = bytes([0, *[1] * 255])  # a byte's mark: 1 when any of its bits is set
# From this share of numbers set on, `numbers` lists them by `itertools.compress` over every
# number (in C, ~30 ns a number) rather than bit by bit (~100 ns a bit set, zero bytes skipped).
_DENSE_FROM = 4
_FLAG = bytes.maketrans(b"01", b"\x00\x01")


def numbers(bits: int) -> list[int]:
    """The numbers in the set, lowest first."""
    size = bits.bit_length()
    if bits.bit_count() * _DENSE_FROM >= size and size > 64:
        from itertools import compress  # built in: no file to find or read

        marks = format(bits, "b")[::-1].encode("ascii").translate(_FLAG)
        return list(compress(range(size), marks))
    out = []
    data = bits.to_bytes((size + 7) // 8, "little")
    marks = data.translate(_NONZERO)
    at = marks.find(1)
    while at >= 0:
        byte = data[at]
        while byte:
            low = byte & -byte
            out.append(at * 8 + low.bit_length() - 1)
            byte ^= low
        at = marks.find(1, at + 1)
    return out


def add_planes(planes: list[int], addend: list[int]) -> None:
    """Add, note by note, the counts `addend` holds to those `planes` holds: bit plane `k` of
    every note's count is `planes[k]` (the bits of one integer, a bit a note)."""
    carry = 0
    for k, (plane, add) in enumerate(zip(planes, addend, strict=True)):
        if add or carry:
            planes[k] = plane ^ add ^ carry
            carry = (plane & add) | (carry & (plane ^ add))


def at_least(planes: list[int], least: int, mask: int) -> int:
    """The notes whose count (bit planes, as `add_planes` keeps them) is at least `least`."""
    greater, equal = 0, mask
    for k in range(len(planes) - 1, -1, -1):
        if least >> k & 1:
            equal &= planes[k]
        else:
            greater |= equal & planes[k]
            equal &= mask ^ planes[k]
    return greater | equal

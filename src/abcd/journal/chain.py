"""Where the hash chain breaks, said the same way by every command and by the hook.

One rule names the break, so `journal verify`, `audit`, `replay`, `rebuild`,
`recover`, `memory list`, every writer and the prompt hook name the same seq:
the first event the chain no longer vouches for. A line is vouched for by
the next line's `prev` (its hash) and the last line by the view's
checkpoint head, when the view was folded to it. So:

- a line that does not decode, or a seq out of its place, is the break;
- a link that fails (line k+1's `prev` is not the hash of line k) names k
  when line k+1 is itself vouched for by what follows it (line k was
  edited), else k+1 (line k+1's `prev` was edited, which changed its hash
  too);
- the view's checkpoint head not matching the line at its seq names that
  seq (the last line edited, the only edit no link can show).

This module imports nothing beyond the standard library's core: the hook
reads it. Callers decode lines their own way (msgspec in the CLI, `_json`
in the hook) and hand over `Link`s.
"""

from __future__ import annotations

from abcd.constants import ZERO_HASH
from abcd.digest import sha256_hex
from abcd.errors import NEWER_ABCD

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator


class Link:
    """One complete journal line as the chain sees it: its seq and prev (when it decodes)."""

    __slots__ = ("data", "end", "error", "prev", "segment", "seq")

    def __init__(
        self, segment: int, end: int, data: bytes, seq: int | None, prev: str, error: str = ""
    ) -> None:
        self.segment = segment
        self.end = end  # the offset just past its newline
        self.data = data
        self.seq = seq  # None when the line does not decode
        self.prev = prev
        self.error = error

    def hash(self) -> str:
        return sha256_hex(self.data)


class Break:
    """The first event the chain no longer vouches for: its seq, what is wrong, and where."""

    __slots__ = ("cut", "seq", "what", "where")

    def __init__(self, seq: int, what: str, where: str, cut: int | None = None) -> None:
        self.seq = seq
        self.what = what
        self.where = where
        # The position (among the lines diagnosed) of the first line the chain no longer vouches
        # for, where a recovery cuts; `None` when no line of the journal is at fault.
        self.cut = cut

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Break) and (self.seq, self.what, self.where) == (
            other.seq,
            other.what,
            other.where,
        )

    def __repr__(self) -> str:
        return f"Break({self.seq}, {self.what!r}, {self.where!r})"

    def message(self) -> str:
        return f"journal broken at seq {self.seq}: {self.what} ({self.where})"


def _where(segment: int) -> str:
    return f"journal/{segment:06d}.jsonl"


def diagnose(
    links: Iterable[Link],
    *,
    seq: int = 0,
    head: str = ZERO_HASH,
    last_head: str | None = None,
    classify: bool = True,
) -> Break | None:
    """The first break in `links`, which follow the event (`seq`, `head`) known to be intact.

    `last_head` is the view's checkpoint head when the view was folded to the
    last line. `classify` looks ahead through the rest of the lines to tell a
    reordered seq from a deleted one (the seq named is the same either way;
    the hook passes `False` and reads no further than it must).
    """
    expected_seq, expected_prev = seq + 1, head
    it: Iterator[Link] = iter(links)
    line = next(it, None)
    before: Link | None = None
    pos = 0
    while line is not None:
        after = next(it, None)
        where = _where(line.segment)
        if line.seq is None:
            what = (
                line.error  # not damage: a line this abcd is too old to read
                if NEWER_ABCD in line.error
                else f"edited: the line does not decode ({line.error})"
            )
            return Break(expected_seq, what, where, pos)
        if line.seq != expected_seq:
            what = _misplaced(line.seq, expected_seq, after, it, classify)
            return Break(expected_seq, what, where, pos)
        if line.prev != expected_prev:
            if expected_seq == 1:
                return Break(1, "edited: the first event's prev is not 64 zeros", where, pos)
            # Editing the line before changed its hash; editing this line's prev changed this
            # line's hash too, so the link out of it breaks as well.
            mine = line.hash()
            out_ok = after.prev == mine if after is not None else last_head in (None, mine)
            if out_ok and before is not None:
                what = "edited: its hash no longer matches the next event's prev"
                return Break(expected_seq - 1, what, _where(before.segment), pos - 1)
            what = "edited: its prev does not match the event before it"
            return Break(expected_seq, what, where, pos)
        expected_prev = line.hash()
        expected_seq += 1
        before, line = line, after
        pos += 1
    return None


def _misplaced(
    found: int, expected: int, after: Link | None, rest: Iterator[Link], classify: bool
) -> str:
    if not classify:
        return f"found seq {found} where {expected} belongs"
    if (after is not None and after.seq == expected) or any(o.seq == expected for o in rest):
        return f"reordered: seq {found} stands where {expected} belongs"
    if found > expected:
        gap = f"{expected}" if found == expected + 1 else f"{expected} to {found - 1}"
        return f"missing: seq {gap} deleted"
    return f"reordered: seq {found} appears again"


# What each file holding a checkpoint is called in a break's words.
_CACHES = {"memory.json": "view", "memory.head": "head line", "memory.idx": "index"}


def check_checkpoint(
    links: list[Link], checkpoint: tuple[int, int, int, str], witness_file: str = "memory.json"
) -> Break | None:
    """A checkpoint (segment, offset, seq, head) must name a line the journal holds, same hash.

    Every cache of the journal (the view, the recall index) records one, and
    the head line (`memory.head`) one past them; a checkpoint the journal no
    longer holds means its last line was edited or the journal was cut back
    under it. `witness_file` is the file the checkpoint was read from, which the
    break names.
    """
    cache = _CACHES.get(witness_file, witness_file)
    segment, offset, seq, head = checkpoint
    if not seq:
        return None
    last_seq = links[-1].seq or 0 if links else 0
    for pos, line in enumerate(links):
        if line.seq == seq:
            if line.hash() != head:
                what = f"edited: its hash is not the head the {cache} was folded to"
                return Break(seq, what, _where(line.segment), pos)
            if (line.segment, line.end) != (segment, offset):
                return Break(
                    seq,
                    f"the {cache}'s checkpoint names the wrong place; rebuild the view",
                    witness_file,
                )
            return None
    return Break(
        last_seq + 1,
        f"truncated: {cache} ahead of journal (the {cache} "
        f"{'names' if witness_file == 'memory.head' else 'was folded to'} seq {seq}; "
        f"the journal ends at seq {last_seq})",
        witness_file,
    )


def first_break(
    links: list[Link],
    checkpoint: tuple[int, int, int, str] | None,
    *,
    torn_inside: int | None = None,
    classify: bool = True,
    witness_file: str = "memory.json",
) -> Break | None:
    """The one break every command names: in the chain, then a torn segment, then the view's
    checkpoint (`None` when there is no view to hold the journal to), read from `witness_file`."""
    last_head = None
    if checkpoint is not None and links and checkpoint[2] == links[-1].seq:
        last_head = checkpoint[3]
    found = diagnose(links, last_head=last_head, classify=classify)
    if found is not None:
        if checkpoint is not None and 0 < checkpoint[2] < found.seq:
            # The line the checkpoint ends at is vouched for by the next line's `prev` only when
            # that line decodes; when it does not, the checkpoint's head is the one witness of
            # an edit under it, which a recovery from the later break would otherwise launder.
            under = check_checkpoint(links, checkpoint, witness_file)
            if under is not None and under.seq < found.seq and under.what.startswith("edited"):
                return under
        return found
    if torn_inside is not None:
        held = [link.seq or 0 for link in links if link.segment == torn_inside]
        what = "truncated: a segment before the last ends inside a line"
        return Break(max(held, default=0) + 1, what, _where(torn_inside))
    if checkpoint is not None:
        return check_checkpoint(links, checkpoint, witness_file)
    return None

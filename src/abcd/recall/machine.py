"""The machine's personal notes for the hook, read without msgspec.

The same rules as `abcd.journal.store.load`, on the standard library: the
view is trusted only as far as its checkpoint matches the journal (the line
ending at the checkpoint's offset hashes to its head); lines past it are
folded in memory with the chain checked; a view whose checkpoint does not
match is never believed, and the journal is folded from zero. A broken chain
or a file that fails a trust check raises, and the hook names it and goes on
without the machine's notes.
"""

from __future__ import annotations

import os

from abcd import fastjson
from abcd.constants import JOURNAL_VERSION, VIEW_MAX_BYTES, VIEW_SCHEMA_VERSION, ZERO_HASH
from abcd.digest import sha256_hex
from abcd.errors import CorruptFile, JournalBroken
from abcd.journal.segments import Segments, segment_rel
from abcd.recall.items import Item
from abcd.trust.guarded import Home

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

VIEW_FILE = "memory.json"


def machine_note(
    note_id: str, title: str, body: str, recall: tuple[str, ...], root: str | None, written_at: str
) -> Item:
    """A personal note as an item, whether read from the view or from the index's record."""
    return Item(
        kind="note",
        layer="machine",
        name=note_id,
        title=title,
        body=body,
        recall=recall,
        root=root,
        recency=written_at,
    )


def _note_item(note: dict[str, Any]) -> Item:
    return machine_note(
        note["id"],
        note["title"],
        note["body"],
        tuple(note["recall"]),
        note.get("root"),
        note.get("written_at") or "",
    )


def _stored_view(
    home: Home, segs: Segments
) -> tuple[dict[str, dict[str, Any]], tuple[int, int, int, str]]:
    """The view's notes by id and its checkpoint, or nothing and zero when it cannot be believed."""
    empty: tuple[dict[str, dict[str, Any]], tuple[int, int, int, str]] = ({}, (1, 0, 0, ZERO_HASH))
    data = home.read(VIEW_FILE, VIEW_MAX_BYTES)
    if data is None:
        return empty
    try:
        view = fastjson.loads(data)
        cp = view["journal"]
        checkpoint = (int(cp["segment"]), int(cp["offset"]), int(cp["seq"]), str(cp["head"]))
        notes = {n["id"]: n for n in view["notes"]}
        if view.get("schema_version", 0) > VIEW_SCHEMA_VERSION:
            return empty
    except (ValueError, KeyError, TypeError):
        return empty
    if checkpoint[2] == 0:
        return (notes, (1, 0, 0, ZERO_HASH)) if not notes else empty
    if not at_checkpoint(segs, checkpoint):
        return empty
    return notes, checkpoint


def at_checkpoint(segs: Segments, checkpoint: tuple[int, int, int, str]) -> bool:
    """Whether the journal holds the checkpoint: the line ending at its offset hashes to its head."""
    segment, offset, seq, head = checkpoint
    if not seq:
        return True
    line = segs.line_ending_at(segment, offset)
    return line is not None and sha256_hex(line) == head


def _fold(
    segs: Segments,
    notes: dict[str, dict[str, Any]],
    checkpoint: tuple[int, int, int, str],
    gone: set[str] | None = None,
) -> None:
    """Fold the journal lines after `checkpoint` into `notes`, checking each link of the chain.

    A removal of a note `notes` does not hold goes into `gone`, when given
    (a note the caller's index still holds).
    """
    segment, offset, seq, head = checkpoint
    for raw in segs.lines(segment, offset):
        where = segment_rel(raw.segment)
        try:
            line = fastjson.loads(raw.data)
            if line["v"] > JOURNAL_VERSION:
                raise JournalBroken(
                    seq + 1, f"written by a newer abcd (journal v{line['v']})", where
                )
            kind, data = line["type"], line["data"]
        except (ValueError, KeyError, TypeError):
            raise JournalBroken(seq + 1, "not a journal line", where) from None
        if line.get("seq") != seq + 1 or line.get("prev") != head:
            raise JournalBroken(
                seq + 1, "the chain is broken here; run `abcd journal verify`", where
            )
        seq, head = seq + 1, sha256_hex(raw.data)
        if kind == "note.added":
            notes[data["id"]] = dict(data, written_at=line["at"])
        elif kind == "note.removed" and notes.pop(data["id"], None) is None and gone is not None:
            gone.add(data["id"])


def read_machine_notes(home: Home | None) -> list[Item]:
    """Every live personal note, oldest first; empty without a home or a journal."""
    if home is None:
        return []
    with Segments(home) as segs:
        notes, checkpoint = _stored_view(home, segs)
        try:
            _fold(segs, notes, checkpoint)
        except JournalBroken:
            if checkpoint[2] == 0:
                raise
            notes, checkpoint = (
                {},
                (1, 0, 0, ZERO_HASH),
            )  # what follows does not chain on: trust nothing
            _fold(segs, notes, checkpoint)
    try:
        return [_note_item(n) for n in notes.values()]
    except (KeyError, TypeError):
        raise CorruptFile(home.shown(VIEW_FILE), "a note lacks a seed field") from None


# --- through the index -------------------------------------------------------------


class IndexedNotes:
    """The machine's notes as the hook needs them, read through `memory.idx`.

    The index is trusted only as far as its checkpoint matches the journal
    (the line ending at its offset hashes to its head). Lines past it are
    folded in memory: added notes join as `extra` items, removed ones are
    `gone`, so a lagging index is never wrong, only slower.
    """

    def __init__(self, home: Home) -> None:
        from abcd.recall.index import Index, IndexUnusable

        opened = home.open_file(VIEW_FILE)  # the view's trust checks hold here too
        if opened is not None:
            os.close(opened[0])
        self.index = Index.open(home)
        self.extra: dict[str, Item] = {}
        self.gone: set[str] = set()
        try:
            with Segments(home) as segs:
                if not at_checkpoint(segs, self.index.checkpoint):
                    raise IndexUnusable("the index's checkpoint is not in the journal")
                notes: dict[str, dict[str, Any]] = {}
                _fold(segs, notes, self.index.checkpoint, self.gone)
                self.extra = {n["id"]: _note_item(n) for n in notes.values()}
        except BaseException:
            self.index.close()
            raise

    def close(self) -> None:
        self.index.close()

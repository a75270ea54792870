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


def _note_item(note: dict[str, Any]) -> Item:
    return Item(
        kind="note",
        layer="machine",
        name=note["id"],
        title=note["title"],
        body=note["body"],
        recall=tuple(note["recall"]),
        root=note.get("root"),
        recency=note.get("written_at") or "",
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
    line = segs.line_ending_at(checkpoint[0], checkpoint[1])
    if line is None or sha256_hex(line) != checkpoint[3]:
        return empty
    return notes, checkpoint


def _fold(
    segs: Segments, notes: dict[str, dict[str, Any]], checkpoint: tuple[int, int, int, str]
) -> None:
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
        elif kind == "note.removed":
            notes.pop(data["id"], None)


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
                segment, offset, seq, head = self.index.checkpoint
                line = segs.line_ending_at(segment, offset) if seq else None
                if seq and (line is None or sha256_hex(line) != head):
                    raise IndexUnusable("the index's checkpoint is not in the journal")
                notes: dict[str, dict[str, Any]] = {}
                before: set[str] = set()
                for raw in segs.lines(segment if seq else 1, offset if seq else 0):
                    line_doc = fastjson.loads(raw.data)
                    if line_doc.get("seq") != seq + 1 or line_doc.get("prev") != head:
                        raise IndexUnusable("the journal after the index does not chain on")
                    seq, head = seq + 1, sha256_hex(raw.data)
                    data = line_doc["data"]
                    if line_doc["type"] == "note.added":
                        notes[data["id"]] = dict(data, written_at=line_doc["at"])
                    elif line_doc["type"] == "note.removed" and notes.pop(data["id"], None) is None:
                        before.add(data["id"])
                self.gone = before
                self.extra = {n["id"]: _note_item(n) for n in notes.values()}
        except BaseException:
            self.index.close()
            raise

    def close(self) -> None:
        self.index.close()

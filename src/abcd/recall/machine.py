"""The machine's personal notes for the hook, read without msgspec.

The same rules as `abcd.journal.store.load`, on the standard library: the
view is believed only when its digest matches its notes (else it was changed
by hand, and the journal is folded from zero) and its checkpoint is still a
line of the journal (else the journal was edited or cut under it: a break).
Lines past the checkpoint are folded in memory with the chain checked. A
break is named as `journal verify` names it (`abcd.journal.chain`); it, or a
file that fails a trust check, raises, and the hook names it and sends no
machine note: nothing the chain no longer vouches for reaches the model.
"""

from __future__ import annotations

from abcd import fastjson
from abcd import leanos as os
from abcd.constants import JOURNAL_VERSION, VIEW_MAX_BYTES, VIEW_SCHEMA_VERSION, ZERO_HASH
from abcd.digest import (
    STAMP_LEN,
    VIEW_HEAD_BYTES,
    file_stamp,
    sha256_hex,
    view_digest_matches,
    view_segments_stamp,
)
from abcd.errors import NEWER_ABCD, CorruptFile, JournalBroken, hint_for
from abcd.journal.head import Head, head_beside, view_checkpoint
from abcd.journal.lean import (
    SINCE,
    every,
    is_event,
    is_int,
    is_text,
    readable,
    too_deep,
    too_long,
)
from abcd.journal.segments import Segments, segment_rel
from abcd.recall.items import Item
from abcd.trust.guarded import Home

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from abcd.journal.chain import Link

VIEW_FILE = "memory.json"
NO_INDEX_STAMP = "0" * STAMP_LEN


class IndexBehind(ValueError):
    """The journal past the index revised a note the index holds: the index cannot serve it
    (its record holds the old text), so recall folds the view instead (never wrong, slower)."""


def machine_note(
    note_id: str,
    title: str,
    body: str,
    recall: tuple[str, ...],
    root: str | None,
    written_at: str,
    origin: str = "agent",
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
        origin=origin,
    )


def _note_item(note: dict[str, Any]) -> Item:
    return machine_note(
        note["id"],
        note["title"],
        note["body"],
        tuple(note["recall"]),
        note.get("root"),
        note.get("written_at") or "",
        note.get("origin") or "agent",
    )


def _stored_view(
    home: Home, segs: Segments
) -> tuple[dict[str, dict[str, Any]], tuple[int, int, int, str]]:
    """The view's notes by id and its checkpoint, or nothing and zero when it cannot be believed.

    A view the journal no longer holds (its checkpoint's line is gone or
    hashes otherwise, though the view is as abcd wrote it) raises the break.
    """
    empty: tuple[dict[str, dict[str, Any]], tuple[int, int, int, str]] = ({}, (1, 0, 0, ZERO_HASH))
    read = home.read_stat(VIEW_FILE, VIEW_MAX_BYTES)
    if read is None:
        return empty
    data, st = read
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
    if not view_digest_matches(data):
        return empty  # changed by hand, or written before digests: fold the journal instead
    if not at_checkpoint(segs, checkpoint):
        raise locate_break(segs, checkpoint)
    hold_to_witnesses(segs, data, file_stamp(st), checkpoint)
    return notes, checkpoint


def _view_intact(home: Home) -> bool:
    """Whether the view is as abcd wrote it (its digest matches): an error path, it reads it all."""
    data = home.read(VIEW_FILE, VIEW_MAX_BYTES)
    return data is not None and view_digest_matches(data)


def hold_to_witnesses(
    segs: Segments, view_head: bytes, view_stamp: str, checkpoint: tuple[int, int, int, str] | None
) -> Head | None:
    """Hold the journal to the view's witnesses; return the head line when it goes with the view.

    The head line (`abcd.journal.head`), when it names this very view, holds
    the journal's end and the stamps its writer left after the last append:
    the journal must still hold that end (the lines past the view's
    checkpoint are witnessed there). Otherwise the view's own stamps serve.
    The whole chain is walked when a segment changed since those stamps
    (`Segments.stamp`): an edit anywhere changes it, and only then is the
    journal read whole, so a prompt pays one `stat` a segment while nothing
    changed.
    """
    head = None
    if checkpoint is not None:
        head = head_beside(segs.home, view_stamp, checkpoint[2])
    stamp = view_segments_stamp(view_head)
    witness = "memory.json"
    if head is not None:
        checkpoint, stamp, witness = head.checkpoint, head.segments, "memory.head"
        if not at_checkpoint(segs, checkpoint):
            raise locate_break(segs, checkpoint, witness)
    if stamp == segs.stamp():
        return head
    from abcd.journal.chain import first_break  # a segment changed: the chain is walked whole

    found = first_break(_links(segs), checkpoint, classify=False, witness_file=witness)
    if found is not None:
        raise JournalBroken(found.seq, found.what, found.where, hint=hint_for(found.what))
    return head


def _links(segs: Segments) -> list[Link]:
    """Every complete line as a `Link`, judged as the commands' decoder judges it (lean)."""
    from abcd.journal.chain import Link

    links = []
    for raw in segs.lines():
        fault = read_line(raw.data)
        if isinstance(fault, str):
            links.append(Link(raw.segment, raw.end, raw.data, None, "", fault))
        else:
            links.append(Link(raw.segment, raw.end, raw.data, fault["seq"], fault["prev"]))
    return links


def read_line(raw: bytes) -> str | dict[str, Any]:
    """The line `raw` read as the commands' decoder reads it (`abcd.journal.envelope`): the
    line when it is one of theirs, else why not, in their words (`journal verify`'s)."""
    if too_long(raw) or too_deep(raw):
        return "not a journal line"
    try:
        line = fastjson.loads_strict(raw)
    except ValueError:
        return "not a journal line"
    if not isinstance(line, dict):
        return "not a journal line"
    v, kind = line.get("v"), line.get("type")
    if not (
        is_int(v)
        and is_int(line.get("seq"))
        and isinstance(line.get("prev"), str)
        and is_text(line.get("at"))
        and isinstance(kind, str)
        and "data" in line
    ):
        return "not a journal line"
    repeated = type(line) is not dict  # a key given twice: msgspec judges each value
    if repeated and not (
        all(map(is_int, every(line, "v")))
        and all(map(is_int, every(line, "seq")))
        and all(isinstance(prev, str) for prev in every(line, "prev"))
        and all(map(is_text, every(line, "at")))
    ):
        return "not a journal line"
    if not readable(raw, line):  # before the version: such a line is no one's, newer or not
        return "not a journal line"
    if v > JOURNAL_VERSION:
        return f"{NEWER_ABCD} (journal v{v})"
    since = SINCE.get(kind)
    if since is None:  # a kind no abcd of this version wrote: named, never passed over
        return f"unknown event type {kind!r}"
    if v < since:
        return f"{kind} at v{v}, below its v{since}"
    # A kind written twice picks its event by the first (msgspec's tag), then must agree;
    # data written twice is judged each time, and the last is the event (as msgspec keeps it).
    if not repeated:
        return line if is_event(kind, line["data"]) else f"{kind} data does not decode"
    if any(each != kind for each in every(line, "type")):
        return f"{kind} data does not decode"
    if not all(is_event(kind, data) for data in every(line, "data")):
        return f"{kind} data does not decode"
    return line


def locate_break(
    segs: Segments, checkpoint: tuple[int, int, int, str] | None, witness: str = "memory.json"
) -> JournalBroken:
    """The break as `journal verify` names it, for the hook (an error path: it reads the journal)."""
    from abcd.journal.chain import Break, first_break

    found = first_break(_links(segs), checkpoint, classify=False, witness_file=witness) or Break(
        0, "the journal changed while it was read", "journal"
    )
    return JournalBroken(found.seq, found.what, found.where, hint=hint_for(found.what))


def at_checkpoint(segs: Segments, checkpoint: tuple[int, int, int, str]) -> bool:
    """Whether the journal holds the checkpoint: the line ending at its offset hashes to its head."""
    segment, offset, seq, head = checkpoint
    if not seq:
        return True
    return segs.holds(segment, offset, head)


def _fold(
    segs: Segments,
    notes: dict[str, dict[str, Any]],
    checkpoint: tuple[int, int, int, str],
    gone: set[str] | None = None,
    index: Any = None,
) -> None:
    """Fold the journal lines after `checkpoint` into `notes`, checking each link of the chain.

    A removal of a note `notes` does not hold goes into `gone`, when given
    (a note the caller's `index` still holds).
    """
    segment, offset, seq, head = checkpoint
    for raw in segs.lines(segment, offset):
        where = segment_rel(raw.segment)
        line = read_line(raw.data)
        if isinstance(line, str):  # a break for every command, so for the hook
            raise JournalBroken(seq + 1, line, where)
        kind, data = line["type"], line["data"]
        if line["seq"] != seq + 1 or line["prev"] != head:
            raise JournalBroken(
                seq + 1, "the chain is broken here; run `abcd journal verify`", where
            )
        seq, head = seq + 1, sha256_hex(raw.data)
        if kind == "note.added":
            notes[data["id"]] = dict(data, written_at=line["at"])
        elif kind == "note.removed":
            if notes.pop(data["id"], None) is None and gone is not None:
                gone.add(data["id"])
        elif kind == "note.revised":
            held = notes.get(data["id"])
            if held is not None:  # the note's record replaced: recalled by its new text
                notes[data["id"]] = dict(
                    held, title=data["title"], body=data["body"], recall=data["recall"]
                )
            elif gone is not None:  # a note the index holds: its record is set aside, and the
                # note joins with its new text; the rest of it is read from the index's record.
                gone.add(data["id"])
                notes[data["id"]] = dict(
                    title=data["title"], body=data["body"], recall=data["recall"], indexed=True
                )
        elif kind == "note.restored":
            note_id = data["id"]
            live = note_id in notes or (
                index is not None
                and gone is not None
                and note_id not in gone
                and bool(index.numbers_of((note_id,)))
            )
            if not live:  # back whole, as it stood (the fold's rule: a live note stays as it is)
                notes[note_id] = dict(data["note"], id=note_id)
        # The other kinds (`lean.SINCE`: a review, a promotion, a recovery) change no note's
        # text, reach or life; a kind not there was refused by `read_line`, never passed over.


def read_machine_notes(home: Home | None) -> list[Item]:
    """Every live personal note, oldest first; empty without a home or a journal."""
    if home is None:
        return []
    with Segments(home) as segs:
        notes, checkpoint = _stored_view(home, segs)
        try:
            _fold(segs, notes, checkpoint)
        except JournalBroken:
            raise locate_break(segs, checkpoint if checkpoint[2] else None) from None
    try:
        return [_note_item(n) for n in notes.values()]
    except (KeyError, TypeError):
        raise CorruptFile(home.shown(VIEW_FILE), "a note lacks a seed field") from None


# --- through the index -------------------------------------------------------------


class IndexedNotes:
    """The machine's notes as the hook needs them, read through `memory.idx`.

    The index is used only while it is the one the view's writer left beside
    it (the view's `index` stamp: inode, size, change time), so an index
    replaced or edited afterwards is never read: the view, whose digest is
    checked, serves instead. It is trusted only as far as its checkpoint
    matches the journal (the line ending at its offset hashes to its head).
    Lines past it are folded in memory: added notes join as `extra` items,
    removed ones are `gone`, so a lagging index is never wrong, only slower.
    """

    def __init__(self, home: Home) -> None:
        from abcd.recall.index import Index, IndexChanged, IndexUnusable, named_index_stamp

        opened = home.open_file(VIEW_FILE)  # the view's trust checks hold here too
        head = b""
        view_stamp = ""
        if opened is not None:
            try:
                head = os.pread(opened[0], VIEW_HEAD_BYTES, 0)
                view_stamp = file_stamp(opened[1])
            finally:
                os.close(opened[0])
        self.index = Index.open(home)
        self.extra: dict[str, Item] = {}
        self.gone: set[str] = set()
        try:
            view_cp = view_checkpoint(head)
            stamp = named_index_stamp(home, head, view_stamp)
            if stamp != file_stamp(os.fstat(self.index.fd)):
                if stamp is None or stamp == NO_INDEX_STAMP:
                    raise IndexUnusable("the view names no index")  # written before stamps
                raise IndexChanged(
                    "memory.idx changed since abcd wrote memory.json beside it (or the view's "
                    "stamp did, as a copied home's does); the notes are read from the view "
                    "until the next session start or `abcd journal rebuild` writes it again"
                )
            with Segments(home) as segs:
                # Both caches are witnesses: the journal must still hold where each was folded to.
                if view_cp is not None and not at_checkpoint(segs, view_cp):
                    if _view_intact(home):
                        raise locate_break(segs, view_cp)  # edited or cut under it
                    view_cp = None  # a view damaged itself witnesses nothing
                if not at_checkpoint(segs, self.index.checkpoint):
                    raise locate_break(segs, view_cp or self.index.checkpoint)
                hold_to_witnesses(segs, head, view_stamp, view_cp)
                notes: dict[str, dict[str, Any]] = {}
                try:
                    _fold(segs, notes, self.index.checkpoint, self.gone, self.index)
                except JournalBroken:
                    raise locate_break(segs, self.index.checkpoint, "memory.idx") from None
                self.extra = {
                    note_id: _note_item(self._whole(note_id, n)) for note_id, n in notes.items()
                }
        except BaseException:
            self.index.close()
            raise

    def _whole(self, note_id: str, note: dict[str, Any]) -> dict[str, Any]:
        """The note as folded; one the index holds and a line past it revised, with the stamps
        of the index's record (the revision carries the new text only)."""
        if not note.get("indexed"):
            return note
        no = self.index.numbers_of((note_id,)).get(note_id)
        if no is None:
            raise IndexBehind(f"{note_id} was revised, but the index does not hold it")
        record = self.index.record(no)
        return dict(note, id=note_id, root=record[4], written_at=record[5], origin=record[7])

    def close(self) -> None:
        self.index.close()

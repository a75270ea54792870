"""The `memory.json` view: the seed's note schema plus the journal checkpoint it was folded to.

The view is a cache. It records where in the journal it was folded to
(segment, byte offset, seq, head hash); a reader that finds the journal past
that point folds the new bytes, and one that finds the checkpoint wrong
re-folds from zero. `removed` lists the ids of removed notes so that an id is
never minted twice.

The checkpoint's `digest` is the SHA-256 of the file's bytes (its own 64
characters read as zeros), so a note written into the file by hand is told
from one the fold wrote without re-folding: a reader that finds the digest
wrong re-folds from the journal. Its `index` is the stamp (inode, size,
change time) of the recall index the writer left beside it: the hook, which
reads notes through the index, uses an index only while it is the one the
view names. Both are found by bytes, not by decoding (the hook reads the
view without msgspec; `abcd.digest`).
"""

from __future__ import annotations

import msgspec

from abcd.constants import VIEW_SCHEMA_PLAIN, VIEW_SCHEMA_VERSION, ZERO_HASH
from abcd.digest import (
    DIGEST_LEN,
    STAMP_LEN,
    VIEW_HEAD_BYTES,
    view_digest_matches,
    view_digest_of,
    view_digest_span,
)
from abcd.journal.note import Note, waits_for_review

__all__ = ["EMPTY_VIEW", "Checkpoint", "Note", "View", "waits_for_review"]


class Checkpoint(msgspec.Struct, frozen=True):
    """Where the view was folded to: the byte after the last folded line of `segment`."""

    segment: int = 0
    offset: int = 0
    seq: int = 0
    head: str = ZERO_HASH
    # The journal's segments as this view's writer left them (`Segments.stamp`).
    segments: str = ""
    # The recall index's stamp (`abcd.digest.file_stamp`) when this view was written beside it.
    index: str = ""
    # Of the file's bytes, these 64 read as zeros; "" in a view written before it existed.
    digest: str = ""


class View(msgspec.Struct, kw_only=True, frozen=True):
    """The projected personal notes, oldest first, and the checkpoint they were folded to."""

    schema_version: int = VIEW_SCHEMA_PLAIN
    journal: Checkpoint = Checkpoint()
    notes: tuple[Note, ...] = ()
    removed: tuple[str, ...] = ()


EMPTY_VIEW = View()

_view_decoder = msgspec.json.Decoder(View)
_encoder = msgspec.json.Encoder()


_PLACEHOLDER = "0" * DIGEST_LEN
NO_INDEX = "0" * STAMP_LEN
NO_SEGMENTS = "0" * DIGEST_LEN


def digest_matches(data: bytes) -> bool:
    """Whether a view's bytes hash to the digest its checkpoint holds."""
    return view_digest_matches(data)


def encode_view(
    view: View, index_stamp: str = NO_INDEX, segments_stamp: str = NO_SEGMENTS
) -> bytes:
    """The view's bytes with the stamps and the digest over the whole file."""
    cp = view.journal
    placeholder = View(
        schema_version=view.schema_version,
        journal=Checkpoint(
            cp.segment, cp.offset, cp.seq, cp.head, NO_SEGMENTS, NO_INDEX, _PLACEHOLDER
        ),
        notes=view.notes,
        removed=view.removed,
    )
    return restamp(_encoder.encode(placeholder) + b"\n", index_stamp, segments_stamp)


def restamp(encoded: bytes, index_stamp: str, segments_stamp: str = NO_SEGMENTS) -> bytes:
    """An encoded view with other stamps, its digest worked out again."""
    data = bytearray(encoded)
    head = bytes(data[:VIEW_HEAD_BYTES])
    span = view_digest_span(head)
    assert span is not None and len(index_stamp) == STAMP_LEN  # the encoder writes them first
    assert len(segments_stamp) == DIGEST_LEN
    for key, value in ((b'"index":"', index_stamp), (b'"segments":"', segments_stamp)):
        at = head.find(key) + len(key)
        data[at : at + len(value)] = value.encode("ascii")
    start = span[0]
    data[start : start + DIGEST_LEN] = view_digest_of(data, start).encode()
    return bytes(data)


def decode_view(data: bytes) -> View:
    """Decode a view; `ValueError` naming what is wrong (the caller names the file)."""
    try:
        view = _view_decoder.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError) as err:
        raise ValueError(f"not a memory view ({err})") from None
    if view.schema_version > VIEW_SCHEMA_VERSION:
        raise ValueError(
            f"written by a newer abcd (schema_version {view.schema_version}; "
            f"this one reads {VIEW_SCHEMA_VERSION})"
        )
    if view.journal.digest or view.journal.index or view.journal.segments:
        # Properties of the file's bytes and of the files beside it, not of the view.
        view = msgspec.structs.replace(
            view,
            journal=msgspec.structs.replace(view.journal, segments="", index="", digest=""),
        )
    return view

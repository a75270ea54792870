"""The `memory.json` view: the seed's note schema plus the journal checkpoint it was folded to.

The view is a cache. It records where in the journal it was folded to
(segment, byte offset, seq, head hash); a reader that finds the journal past
that point folds the new bytes, and one that finds the checkpoint wrong
re-folds from zero. `removed` lists the ids of removed notes so that an id is
never minted twice.

The checkpoint's `digest` is the SHA-256 of the file's bytes after the
checkpoint (the notes and removed ids as written), so a note written into
the file by hand is told from one the fold wrote without re-folding: a
reader that finds the digest wrong re-folds from the journal. It is found by
bytes, not by decoding (the hook reads the view without msgspec): msgspec
writes the fields in their declared order, `digest` last in the checkpoint,
and nothing before it can hold the text `"digest":"`.
"""

from __future__ import annotations

import msgspec

from abcd.constants import VIEW_SCHEMA_VERSION, ZERO_HASH
from abcd.digest import DIGEST_LEN, sha256_hex, view_digest_matches, view_digest_span
from abcd.journal.events import Origin


class Note(msgspec.Struct, kw_only=True, frozen=True):
    """One note as the seed schema shows it."""

    id: str
    title: str
    body: str
    recall: tuple[str, ...]
    root: str | None
    origin: Origin
    written_by: str
    written_at: str
    session: str | None


class Checkpoint(msgspec.Struct, frozen=True):
    """Where the view was folded to: the byte after the last folded line of `segment`."""

    segment: int = 0
    offset: int = 0
    seq: int = 0
    head: str = ZERO_HASH
    digest: str = ""  # of the bytes after the checkpoint; "" in a view written before it existed


class View(msgspec.Struct, kw_only=True, frozen=True):
    """The projected personal notes, oldest first, and the checkpoint they were folded to."""

    schema_version: int = VIEW_SCHEMA_VERSION
    journal: Checkpoint = Checkpoint()
    notes: tuple[Note, ...] = ()
    removed: tuple[str, ...] = ()


EMPTY_VIEW = View()

_view_decoder = msgspec.json.Decoder(View)
_encoder = msgspec.json.Encoder()


_PLACEHOLDER = "0" * DIGEST_LEN


def digest_matches(data: bytes) -> bool:
    """Whether a view's bytes after its checkpoint hash to the digest the checkpoint holds."""
    return view_digest_matches(data)


def encode_view(view: View) -> bytes:
    """The view's bytes, its checkpoint's digest worked out over what follows the checkpoint."""
    cp = view.journal
    placeholder = View(
        schema_version=view.schema_version,
        journal=Checkpoint(cp.segment, cp.offset, cp.seq, cp.head, _PLACEHOLDER),
        notes=view.notes,
        removed=view.removed,
    )
    data = bytearray(_encoder.encode(placeholder) + b"\n")
    span = view_digest_span(bytes(data[:512]))
    assert span is not None  # the encoder writes the checkpoint first
    start = span[0]
    data[start : start + DIGEST_LEN] = sha256_hex(bytes(data[start + DIGEST_LEN + 2 :])).encode()
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
    if view.journal.digest:  # a property of the file's bytes (`digest_matches`), not of the view
        view = msgspec.structs.replace(
            view, journal=msgspec.structs.replace(view.journal, digest="")
        )
    return view

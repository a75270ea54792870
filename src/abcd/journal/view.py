"""The `memory.json` view: the seed's note schema plus the journal checkpoint it was folded to.

The view is a cache. It records where in the journal it was folded to
(segment, byte offset, seq, head hash); a reader that finds the journal past
that point folds the new bytes, and one that finds the checkpoint wrong
re-folds from zero. `removed` lists the ids of removed notes so that an id is
never minted twice.
"""

from __future__ import annotations

import msgspec

from abcd.constants import VIEW_SCHEMA_VERSION, ZERO_HASH
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


class View(msgspec.Struct, kw_only=True, frozen=True):
    """The projected personal notes, oldest first, and the checkpoint they were folded to."""

    schema_version: int = VIEW_SCHEMA_VERSION
    journal: Checkpoint = Checkpoint()
    notes: tuple[Note, ...] = ()
    removed: tuple[str, ...] = ()


EMPTY_VIEW = View()

_view_decoder = msgspec.json.Decoder(View)
_encoder = msgspec.json.Encoder()


def encode_view(view: View) -> bytes:
    return _encoder.encode(view) + b"\n"


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
    return view

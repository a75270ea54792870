"""The stored envelope around an event, one JSON object per line, and the hash chain.

A line is `{"v":1,"seq":N,"at":"<UTC RFC 3339, µs>","type":"note.added","prev":"<hex>","data":{...}}`.
`prev` is the SHA-256 of the previous line's bytes (without its newline);
the first line's `prev` is 64 zeros. A line's `v` is its event's `SINCE`
(v1; v2 for the review events; v3 for a restore); a reader accepts the `v` it knows and
refuses a newer one by name.
"""

from __future__ import annotations

import hashlib

import msgspec

from abcd.constants import JOURNAL_VERSION, LINE_MAX_BYTES
from abcd.errors import NEWER_ABCD
from abcd.journal.events import (
    EVENT_TYPES,
    Event,
    JournalRecovered,
    NoteAdded,
    NotePromoted,
    NoteRemoved,
    NoteRestored,
    NoteReviewed,
    NoteRevised,
)
from abcd.journal.lean import MAX_DEPTH, too_deep, too_long


class Envelope(msgspec.Struct, frozen=True):
    """The stored form of one line; `data` stays raw until its `type` picks a decoder."""

    v: int
    seq: int
    at: str
    type: str
    prev: str
    data: msgspec.Raw


class Record(msgspec.Struct, frozen=True):
    """A decoded line: the envelope's stamps and the event it carries."""

    seq: int
    at: str
    prev: str
    event: Event


class BadLine(ValueError):
    """A line that is not an event this version can read (the caller names the seq)."""


class _AddedLine(msgspec.Struct, frozen=True, tag="note.added", tag_field="type"):
    v: int
    seq: int
    at: str
    prev: str
    data: NoteAdded


class _RemovedLine(msgspec.Struct, frozen=True, tag="note.removed", tag_field="type"):
    v: int
    seq: int
    at: str
    prev: str
    data: NoteRemoved


class _RecoveredLine(msgspec.Struct, frozen=True, tag="journal.recovered", tag_field="type"):
    v: int
    seq: int
    at: str
    prev: str
    data: JournalRecovered


class _RevisedLine(msgspec.Struct, frozen=True, tag="note.revised", tag_field="type"):
    v: int
    seq: int
    at: str
    prev: str
    data: NoteRevised


class _ReviewedLine(msgspec.Struct, frozen=True, tag="note.reviewed", tag_field="type"):
    v: int
    seq: int
    at: str
    prev: str
    data: NoteReviewed


class _PromotedLine(msgspec.Struct, frozen=True, tag="note.promoted", tag_field="type"):
    v: int
    seq: int
    at: str
    prev: str
    data: NotePromoted


class _RestoredLine(msgspec.Struct, frozen=True, tag="note.restored", tag_field="type"):
    v: int
    seq: int
    at: str
    prev: str
    data: NoteRestored


TypedLine = (
    _AddedLine
    | _RemovedLine
    | _RecoveredLine
    | _RevisedLine
    | _ReviewedLine
    | _PromotedLine
    | _RestoredLine
)

_envelope_decoder = msgspec.json.Decoder(Envelope)
# One pass over a line: the envelope's `type` picks the event Struct (the fold's hot path).
_line_decoder = msgspec.json.Decoder(TypedLine)
_encoder = msgspec.json.Encoder()


def line_hash(line: bytes) -> str:
    """The chain hash of a line (bytes without the trailing newline)."""
    return hashlib.sha256(line).hexdigest()


def encode_line(seq: int, at: str, prev: str, event: Event) -> bytes:
    """One journal line, without its newline."""
    data = msgspec.Raw(_encoder.encode(event))
    return _encoder.encode(Envelope(event.SINCE, seq, at, event.TYPE, prev, data))


def _unreadable(line: bytes) -> str | None:
    """What makes `line` no journal line before any field is read: JSON nested past
    `lean.MAX_DEPTH` (every reader's line, so no parser's own limit decides), or bytes that are
    not UTF-8 (msgspec checks only the strings it keeps; the hook's reader checks them all)."""
    if too_long(line):
        return f"longer than {LINE_MAX_BYTES} bytes"
    if too_deep(line):
        return f"nested deeper than {MAX_DEPTH}"
    if not line.isascii():
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as err:
            return f"not UTF-8 at byte {err.start}"
    return None


def decode_envelope(line: bytes) -> Envelope:
    why = _unreadable(line)
    if why is not None:
        raise BadLine(f"not a journal line ({why})")
    try:
        env = _envelope_decoder.decode(line)
    except (msgspec.DecodeError, msgspec.ValidationError) as err:
        raise BadLine(f"not a journal line ({err})") from None
    except RecursionError:  # past MAX_DEPTH, which _unreadable refuses first
        raise BadLine("not a journal line (nested too deeply)") from None
    if env.v > JOURNAL_VERSION:
        raise BadLine(f"{NEWER_ABCD} (journal v{env.v}; this one reads v{JOURNAL_VERSION})")
    kind = EVENT_TYPES.get(env.type)
    if kind is None:  # a kind no abcd of this version wrote: named, never passed over
        raise BadLine(f"unknown event type {env.type!r}")
    if env.v < kind.SINCE:
        raise _below(env.type, env.v, kind.SINCE)
    return env


def _below(tag: str, v: int, since: int) -> BadLine:
    """A line at a version below its event's: a reader built before the event would have
    skipped it, so no abcd writes one (a hand-made or edited line)."""
    return BadLine(f"{tag} at v{v}, below its v{since}")


def decode_line(line: bytes) -> Record:
    """Decode one line into a `Record`; `BadLine` when it is not one this version reads."""
    typed = decode_typed(line)
    return Record(typed.seq, typed.at, typed.prev, typed.data)


def decode_typed(line: bytes) -> TypedLine:
    """Decode one line in one pass (the fold's hot path); `BadLine` as `decode_line`."""
    try:
        typed = None if _unreadable(line) else _line_decoder.decode(line)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        typed = None
    if typed is None or typed.v > JOURNAL_VERSION:
        env = decode_envelope(line)  # raises naming a newer version or a broken line
        if env.type not in EVENT_TYPES:
            raise BadLine(f"unknown event type {env.type!r}")
        raise BadLine(f"{env.type} data does not decode")
    if typed.v < typed.data.SINCE:
        raise _below(typed.data.TYPE, typed.v, typed.data.SINCE)
    return typed

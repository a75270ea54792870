"""Session events: immutable facts the hooks and the status line record, one JSON line each.

A session file holds `{"v":1,"at":"<UTC RFC 3339, µs>","type":"<tag>","data":{...}}`
lines. Unlike the note journal these files are not hash-chained: they hold
no one's words, only what recall did, and a stale sweep deletes them whole
after a fixed age. Nothing in them is ever edited in place; the ledger and
the fill are folds over them (`abcd.session.ledger`, `abcd.session.fill`).
"""

from __future__ import annotations

from typing import ClassVar, Literal

import msgspec

from abcd.constants import JOURNAL_VERSION

Form = Literal["full", "line"]


class SessionReset(msgspec.Struct, frozen=True, kw_only=True):
    """The ledger starts over: a session start, a compaction, or the every-Nth-prompt backstop."""

    TYPE: ClassVar[str] = "session.reset"

    reason: str  # "session-start:<source>", "pre-compact", "backstop"


class PromptSeen(msgspec.Struct, frozen=True, kw_only=True):
    """A prompt reached the hook (counted for the backstop)."""

    TYPE: ClassVar[str] = "prompt.seen"


class ItemRecalled(msgspec.Struct, frozen=True, kw_only=True):
    """A note or page was sent, keyed by item and a signature of its content and layer."""

    TYPE: ClassVar[str] = "item.recalled"

    key: str
    signature: str
    form: Form


class DomainInjected(msgspec.Struct, frozen=True, kw_only=True):
    """A rule domain was sent, keyed by name and a signature of its merged content."""

    TYPE: ClassVar[str] = "domain.injected"

    name: str
    signature: str
    form: Form


class FillUnknownSaid(msgspec.Struct, frozen=True, kw_only=True):
    """The hook told the person, once this session, that it could not tell how full the window is."""

    TYPE: ClassVar[str] = "fill.unknown-said"


class FillRead(msgspec.Struct, frozen=True, kw_only=True):
    """The status line saw the context window this full (percent used)."""

    TYPE: ClassVar[str] = "fill.read"

    used_percentage: float


SessionEvent = (
    SessionReset | PromptSeen | ItemRecalled | DomainInjected | FillUnknownSaid | FillRead
)

SESSION_EVENT_TYPES: dict[str, type[SessionEvent]] = {
    cls.TYPE: cls
    for cls in (SessionReset, PromptSeen, ItemRecalled, DomainInjected, FillUnknownSaid, FillRead)
}


class SessionLine(msgspec.Struct, frozen=True):
    v: int
    at: str
    type: str
    data: msgspec.Raw


class SessionRecord(msgspec.Struct, frozen=True):
    at: str
    event: SessionEvent


_line_decoder = msgspec.json.Decoder(SessionLine)
_decoders = {tag: msgspec.json.Decoder(cls) for tag, cls in SESSION_EVENT_TYPES.items()}
_encoder = msgspec.json.Encoder()


def encode_session_line(at: str, event: SessionEvent) -> bytes:
    data = msgspec.Raw(_encoder.encode(event))
    return _encoder.encode(SessionLine(JOURNAL_VERSION, at, event.TYPE, data)) + b"\n"


def decode_session_lines(data: bytes) -> list[SessionRecord]:
    """Every complete line that decodes; a torn or foreign line is skipped (these are caches of fact)."""
    out: list[SessionRecord] = []
    end = data.rfind(b"\n") + 1
    for line in data[:end].splitlines():
        try:
            env = _line_decoder.decode(line)
            decoder = _decoders.get(env.type)
            if decoder is None or env.v > JOURNAL_VERSION:
                continue
            out.append(SessionRecord(env.at, decoder.decode(env.data)))
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
    return out

"""Session events: immutable facts the hooks and the status line record, one JSON line each.

A session file holds `{"v":1,"at":"<UTC RFC 3339, µs>","type":"<tag>","data":{...}}`
lines. Unlike the note journal these files are not hash-chained: they hold
no one's words, only what recall did, and a stale sweep deletes them whole
after a fixed age. Nothing in them is ever edited in place; the ledger and
the fill are folds over them (`abcd.session.ledger`, `abcd.session.fill`).

This module is on the prompt hook's path, so the events are small frozen
classes with `__slots__` and the codec is the standard library's `json`
(msgspec costs ~25 ms to import; the hook's whole budget is about that).
"""

from __future__ import annotations

from abcd import fastjson
from abcd.constants import SESSION_FILE_VERSION
from abcd.value import Value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar, Literal

    Form = Literal["full", "line"]


class _Event(Value):
    """Base of session events: read-only values built from keyword fields, encoded as a dict."""

    __slots__: tuple[str, ...] = ()
    TYPE: ClassVar[str] = ""

    def __init__(self, **fields: Any) -> None:
        missing = [name for name in self.__match_args__ if name not in fields]
        extra = [name for name in fields if name not in self.__match_args__]
        if missing or extra:
            raise TypeError(f"{type(self).__name__}: missing {missing}, unexpected {extra}")
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    def fields(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__match_args__}


class SessionReset(_Event):
    """The ledger starts over: a session start, a compaction, or the every-Nth-prompt backstop."""

    __slots__ = ("reason",)
    __match_args__ = ("reason",)
    TYPE = "session.reset"
    reason: str  # "session-start:<source>", "pre-compact", "backstop"


class PromptSeen(_Event):
    """A prompt reached the hook (counted for the backstop)."""

    __slots__ = ()
    __match_args__ = ()
    TYPE = "prompt.seen"


class ItemRecalled(_Event):
    """A note or page was sent, keyed by item and a signature of its content and layer."""

    __slots__ = ("form", "key", "signature")
    __match_args__ = ("form", "key", "signature")
    TYPE = "item.recalled"
    key: str
    signature: str
    form: Form


class DomainInjected(_Event):
    """A rule domain was sent, keyed by name and a signature of its merged content."""

    __slots__ = ("form", "name", "signature")
    __match_args__ = ("form", "name", "signature")
    TYPE = "domain.injected"
    name: str
    signature: str
    form: Form


class DomainForgotten(_Event):
    """A domain that had been sent left the active set; if it comes back it is sent again."""

    __slots__ = ("name",)
    __match_args__ = ("name",)
    TYPE = "domain.forgotten"
    name: str


class FillUnknownSaid(_Event):
    """The hook told the person, once this session, that it could not tell how full the window is."""

    __slots__ = ()
    __match_args__ = ()
    TYPE = "fill.unknown-said"


class FillRead(_Event):
    """The status line saw the context window this full (percent used)."""

    __slots__ = ("used_percentage",)
    __match_args__ = ("used_percentage",)
    TYPE = "fill.read"
    used_percentage: float


class FillUsed(_Event):
    """How full the window was when the hook chose what to send at this prompt (issue 14).

    Written just before the prompt's `item.recalled` lines, so the review
    desk can say, for every send, how full the window was; `percent` is
    `None` when the fill was unknown. A reader built before it skips it.
    """

    __slots__ = ("percent", "source")
    __match_args__ = ("percent", "source")
    TYPE = "fill.used"
    percent: float | None
    source: str  # "statusline", "transcript" or "unknown" (`abcd.session.fill`)


class RepoSeen(_Event):
    """The session start saw this checkout and its root commit (so prompts need not ask git)."""

    __slots__ = ("root", "top")
    __match_args__ = ("root", "top")
    TYPE = "repo.seen"
    top: str
    root: str | None


SessionEvent = (
    SessionReset
    | PromptSeen
    | ItemRecalled
    | DomainInjected
    | DomainForgotten
    | FillUnknownSaid
    | FillRead
    | FillUsed
    | RepoSeen
)

SESSION_EVENT_TYPES: dict[str, type[_Event]] = {
    cls.TYPE: cls
    for cls in (
        SessionReset,
        PromptSeen,
        ItemRecalled,
        DomainInjected,
        DomainForgotten,
        FillUnknownSaid,
        FillRead,
        FillUsed,
        RepoSeen,
    )
}

_TYPES_OF_FIELDS: dict[str, tuple[type, ...]] = {
    "reason": (str,),
    "key": (str,),
    "signature": (str,),
    "form": (str,),
    "name": (str,),
    "used_percentage": (int, float),
    "top": (str,),
    "root": (str, type(None)),
    "percent": (int, float, type(None)),
    "source": (str,),
}


class SessionRecord:
    """One decoded line: when it was written and the event it holds."""

    __slots__ = ("at", "event")

    def __init__(self, at: str, event: SessionEvent) -> None:
        self.at = at
        self.event = event

    def __repr__(self) -> str:
        return f"SessionRecord({self.at!r}, {self.event!r})"


def encode_session_line(at: str, event: SessionEvent) -> bytes:
    line = {"v": SESSION_FILE_VERSION, "at": at, "type": event.TYPE, "data": event.fields()}
    return fastjson.dumps(line, separators=(",", ":"), ensure_ascii=False).encode("utf-8") + b"\n"


def _decode(line: bytes) -> SessionRecord | None:
    try:
        raw = fastjson.loads(line)
    except ValueError:
        return None
    if not isinstance(raw, dict) or raw.get("v") != SESSION_FILE_VERSION:
        return None
    at, cls, data = raw.get("at"), SESSION_EVENT_TYPES.get(raw.get("type", "")), raw.get("data")
    if not isinstance(at, str) or cls is None or not isinstance(data, dict):
        return None
    if set(data) != set(cls.__match_args__):
        return None
    for name, value in data.items():
        if not isinstance(value, _TYPES_OF_FIELDS[name]) or isinstance(value, bool):
            return None
    event: SessionEvent = cls(**data)  # type: ignore[assignment]
    return SessionRecord(at, event)


def decode_session_lines(data: bytes) -> tuple[list[SessionRecord], int]:
    """Every complete line that decodes, and how many complete lines were not JSON objects.

    A torn last line (no newline yet) is left out and not counted; a line of
    an event this version does not know is skipped and not counted either
    (these are caches of fact). A line that is not a JSON object is skipped
    and counted, so the reader can name the file.
    """
    out: list[SessionRecord] = []
    unreadable = 0
    end = data.rfind(b"\n") + 1
    for line in data[:end].splitlines():
        record = _decode(line)
        if record is not None:
            out.append(record)
        elif line.strip() and not _is_object(line):
            unreadable += 1
    return out, unreadable


def _is_object(line: bytes) -> bool:
    try:
        return isinstance(fastjson.loads(line), dict)
    except ValueError:
        return False

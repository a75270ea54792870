"""Whether a journal line's `data` is the event its `type` names, judged without msgspec.

The hook folds the lines past its index with the standard library
(`abcd.recall.machine`); the commands decode them with msgspec
(`abcd.journal.envelope`). A line whose data is not its event (a field
missing, a word list that is a string, a note given as a number) is a break
for the commands, so it must be one for the hook too, at the same seq, or
the hook would send a note `journal verify` calls broken. So this table says
what `abcd.journal.events` declares, as msgspec decodes it: every field
without a default present, of its type (an int is never a bool, a list of
words holds only text), keys it does not name passed over. A property test
holds it to msgspec's answer on random data, and every field of every event
to a line of the table (`tests/journal/test_lean.py`).

Standard library (and abcd's constants) only: the hook imports it.
"""

from __future__ import annotations

from abcd.constants import LINE_MAX_BYTES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeGuard


def is_text(value: Any) -> bool:
    """Text msgspec decodes: a string without a lone surrogate (`"\\ud800"` is valid JSON,
    which the standard library decodes and msgspec refuses)."""
    if type(value) is not str:
        return False
    if value.isascii():
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _text_or_none(value: Any) -> bool:
    return value is None or is_text(value)


# msgspec decodes an integer into an int field only when its JSON text is at most 4,300
# characters, the sign among them (CPython's bound on converting text to an int); in a key no
# event names it passes over any integer. These bound the value the same way.
_INT_ABOVE = 10**4300
_INT_BELOW = -(10**4299)


def is_int(value: Any) -> TypeGuard[int]:
    """An integer msgspec decodes into an int field: never a bool, and inside its bound."""
    return type(value) is int and _INT_BELOW < value < _INT_ABOVE


def _words(value: Any) -> bool:
    return type(value) is list and all(is_text(word) for word in value)


def _origin(value: Any) -> bool:
    return value in ORIGINS and type(value) is str


# `abcd.journal.note.Origin`.
ORIGINS = ("agent", "host-memory-move", "person")


Fields = dict[str, "Callable[[Any], bool]"]

# `abcd.journal.note.Note`: the fields without a default, then the review stamps.
NOTE: Fields = {
    "id": is_text,
    "title": is_text,
    "body": is_text,
    "recall": _words,
    "root": _text_or_none,
    "origin": _origin,
    "written_by": is_text,
    "written_at": is_text,
    "session": _text_or_none,
}
NOTE_STAMPS: Fields = {
    "revision": is_int,
    "revised_by": _text_or_none,
    "revised_at": _text_or_none,
    "reviewed_by": _text_or_none,
    "reviewed_at": _text_or_none,
    "promoted_by": _text_or_none,
    "promoted_at": _text_or_none,
}


def _note(value: Any) -> bool:
    return isinstance(value, dict) and fits(value, NOTE, NOTE_STAMPS)


# Each event's fields (`abcd.journal.events`); none has a default.
EVENTS: dict[str, Fields] = {
    "note.added": {
        "id": is_text,
        "title": is_text,
        "body": is_text,
        "recall": _words,
        "root": _text_or_none,
        "origin": _origin,
        "written_by": is_text,
        "session": _text_or_none,
    },
    "note.removed": {"id": is_text, "removed_by": is_text, "session": _text_or_none},
    "journal.recovered": {
        "from_seq": is_int,
        "what": is_text,
        "set_aside": is_text,
        "lines": is_int,
        "bytes": is_int,
        "sha256": is_text,
        "recovered_by": is_text,
        "session": _text_or_none,
    },
    "note.revised": {
        "id": is_text,
        "title": is_text,
        "body": is_text,
        "recall": _words,
        "revised_by": is_text,
        "session": _text_or_none,
    },
    "note.reviewed": {
        "id": is_text,
        "revision": is_int,
        "reviewed_by": is_text,
        "session": _text_or_none,
    },
    "note.promoted": {
        "id": is_text,
        "revision": is_int,
        "root": _text_or_none,
        "promoted_by": is_text,
        "session": _text_or_none,
    },
    "note.restored": {
        "id": is_text,
        "note": _note,
        "restored_by": is_text,
        "session": _text_or_none,
    },
}


def every(data: dict[str, Any], name: str) -> list[Any]:
    """Each value `data` gives `name`, in order: one, or more when the key is repeated (an
    object `abcd.fastjson.loads_strict` read as a `Repeated`), for msgspec judges each."""
    pairs = getattr(data, "pairs", None)
    if pairs is None:
        return [data[name]] if name in data else []
    return [value for key, value in pairs if key == name]


def fits(data: dict[str, Any], required: Fields, optional: Fields | None = None) -> bool:
    """Whether `data` holds every `required` field, and each value it gives a field (each, if
    it gives one twice) is of the field's type."""
    if type(data) is not dict:  # a key given twice: each value judged
        return all(name in data for name in required) and all(
            check(value)
            for key, value in getattr(data, "pairs", ())
            if (check := required.get(key) or (optional or {}).get(key)) is not None
        )
    for name, check in required.items():
        if name not in data or not check(data[name]):
            return False
    if optional:
        for name, check in optional.items():
            if name in data and not check(data[name]):
                return False
    return True


def readable(raw: bytes, line: Any) -> bool:
    """Whether msgspec reads the line the standard library read as `line` (parsed with
    `abcd.fastjson.loads_strict`, which refuses the `NaN` and `Infinity` tokens as msgspec
    does): msgspec also refuses a lone surrogate in any string (`"\\ud800"`, keys and ignored
    fields too), looked for only when the bytes hold an escape."""
    return b"\\u" not in raw or _encodable(line)


def _encodable(value: Any) -> bool:
    """Whether every string in `value` (keys too, and a repeated key's every value) is UTF-8
    text, with no lone surrogate."""
    if type(value) is str:
        return is_text(value)
    if isinstance(value, dict):
        pairs = getattr(value, "pairs", None) or value.items()
        return all(is_text(k) and _encodable(v) for k, v in pairs)
    if type(value) is list:
        return all(_encodable(v) for v in value)
    return True


# Each event's journal version (`SINCE` in `abcd.journal.events`): a line below it is a line no
# abcd wrote (a reader built before the event would have skipped it).
SINCE: dict[str, int] = {
    "note.added": 1,
    "note.removed": 1,
    "journal.recovered": 1,
    "note.revised": 2,
    "note.reviewed": 2,
    "note.promoted": 2,
    "note.restored": 3,
}

# How deep a journal line's JSON may nest. abcd writes 4 levels (the line, its data, a restored
# note, its recall words). Past this, every reader calls the line broken before parsing it, so
# the parsers' own limits (msgspec's, and the standard library's, which depends on the stack
# the reader is at) never decide.
MAX_DEPTH = 64


def too_long(raw: bytes) -> bool:
    """Whether `raw` is longer than any line abcd writes (`LINE_MAX_BYTES`): every reader
    calls such a line broken, since the readers that look back from a checkpoint stop there."""
    return len(raw) > LINE_MAX_BYTES


def too_deep(raw: bytes) -> bool:
    """Whether the JSON in `raw` opens more than `MAX_DEPTH` arrays and objects inside each
    other (brackets inside strings are text). Two counts in C for any line abcd writes; the
    bytes are walked only when they hold more brackets than that."""
    if raw.count(b"[") + raw.count(b"{") <= MAX_DEPTH:
        return False
    depth = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif byte in (0x5D, 0x7D):  # ] }
            depth -= 1
    return False


def is_event(kind: str, data: Any) -> bool:
    """Whether `data` decodes as the event `kind` names (a kind not in the table: no)."""
    fields = EVENTS.get(kind)
    return fields is not None and isinstance(data, dict) and fits(data, fields)

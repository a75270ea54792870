"""Whether a journal line's `data` is the event its `type` names, and a project file one the
commands read, judged without msgspec.

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
to a line of the table (`tests/journal/test_lean.py`). The project's file
(`.abcd/memory.json`) is judged the same way, by the tables at the end
(`tests/notes/test_project_verdict.py`).

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
    return misfit(data, required, optional) is None


def misfit(data: dict[str, Any], required: Fields, optional: Fields | None = None) -> str | None:
    """The first field `data` lacks or gives a value not of the field's type (any of its values,
    if it gives one twice), as `fits` judges them; `None` when it fits."""
    if type(data) is not dict:  # a key given twice: each value judged
        for name in required:
            if name not in data:
                return name
        pairs: list[tuple[str, Any]] = getattr(data, "pairs", [])
        for key, value in pairs:
            check = required.get(key) or (optional or {}).get(key)
            if check is not None and not check(value):
                return key
        return None
    for name, check in required.items():
        if name not in data or not check(data[name]):
            return name
    if optional:
        for name, check in optional.items():
            if name in data and not check(data[name]):
                return name
    return None


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
    other (brackets inside strings are text). Two counts in C for any line abcd writes; past
    that, the escapes are taken out (an escaped backslash, then an escaped quote), so every
    quote left opens or closes a string and the pieces between them alternate outside and
    inside, and only the brackets outside are walked (a 1 MB project file in about 6 ms, against
    some 80 byte by byte)."""
    if raw.count(b"[") + raw.count(b"{") <= MAX_DEPTH:
        return False
    bare = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    outside = b"".join(bare.split(b'"')[::2]).translate(None, _NOT_BRACKETS)
    depth = 0
    for byte in outside:
        if byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > MAX_DEPTH:
                return True
        else:
            depth -= 1
    return False


_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def is_event(kind: str, data: Any) -> bool:
    """Whether `data` decodes as the event `kind` names (a kind not in the table: no)."""
    fields = EVENTS.get(kind)
    return fields is not None and isinstance(data, dict) and fits(data, fields)


# --- the project's file -----------------------------------------------------------


def _any_in_note(value: Any, depth: int = MAX_DEPTH - 3) -> bool:
    """A value msgspec decodes into an `Any` field of a project note: every number in it within
    range (an integer as `is_int` bounds it, a float finite, which `1e999` is not), and nested no
    deeper than `MAX_DEPTH` allows inside a note (the file, `notes` and the note are 3)."""
    kind = type(value)
    if kind is int:
        return is_int(value)
    if kind is float:
        return bool(value - value == 0.0)  # inf - inf is nan; a finite number minus itself is 0
    if kind is list:
        return depth > 0 and all(_any_in_note(inner, depth - 1) for inner in value)
    if isinstance(value, dict):
        return depth > 0 and all(_any_in_note(inner, depth - 1) for _, inner in _pairs(value))
    return True


# The hook reads `<repo>/.abcd/memory.json` with the standard library (`abcd.recall.items`);
# the commands and the merge driver decode it with msgspec (`abcd.notes.project`). Both judge
# it by these tables, the fields of `ProjectFile` and `ProjectNote` as msgspec decodes them
# (a test holds each to its struct, and the two readers to one verdict on random files).

PROJECT_FILE: Fields = {"schema_version": is_int}
PROJECT_NOTE: Fields = {"id": is_text, "title": is_text, "body": is_text, "recall": _words}
PROJECT_NOTE_DEFAULTS: Fields = {
    "origin": _text_or_none,
    "written_by": _text_or_none,
    "written_at": _text_or_none,
    "session": _text_or_none,
    "revision": _any_in_note,
    "revised_by": _any_in_note,
    "revised_at": _any_in_note,
}
# What each check admits, as a refusal names it.
KINDS: dict[Callable[[Any], bool], str] = {
    is_text: "text",
    _text_or_none: "text or null",
    is_int: "an integer",
    _words: "a list of text",
    _any_in_note: f"a value whose numbers are in range, nested at most {MAX_DEPTH} deep in all",
}


def project_file_problem(doc: Any) -> str | None:
    """What keeps a project file's parse (by `abcd.fastjson.loads_strict`) from decoding as
    msgspec decodes `ProjectFile`, as `<where> ...`; `None` when nothing does. Every value of a
    key given twice is judged, as msgspec judges each; the last is the one kept."""
    if not isinstance(doc, dict):
        return "the file is not an object"
    problem = _misfit_named("", doc, PROJECT_FILE, {})
    if problem is not None:
        return problem
    for notes in every(doc, "notes"):
        if type(notes) is not list:
            return "notes must be a list of notes"
        for index, note in enumerate(notes):
            where = f"notes[{index}]"
            if not isinstance(note, dict):
                return f"{where} must be an object"
            problem = _misfit_named(where, note, PROJECT_NOTE, PROJECT_NOTE_DEFAULTS)
            if problem is not None:
                return problem
    return None


PROJECT_FILE_KEYS = frozenset(("schema_version", "notes"))
PROJECT_NOTE_KEYS = frozenset((*PROJECT_NOTE, *PROJECT_NOTE_DEFAULTS))


def project_file_too_deep(doc: Any) -> bool:
    """Whether a project file that fits (`project_file_problem` found nothing) opens more than
    `MAX_DEPTH` arrays and objects inside each other, as `too_deep` counts its bytes (which the
    commands ask, and which walks a large file for milliseconds). Only a key no
    reader names can nest so: each field's type bounds its depth (the file, `notes`, a note,
    `recall`: 4; a stamp read as any value by `_any_in_note`). Its value is looked into no
    deeper than the limit."""
    for key, value in _pairs(doc):
        if key not in PROJECT_FILE_KEYS and _deeper(value, MAX_DEPTH - 1):  # inside the file
            return True
    for notes in every(doc, "notes"):
        for note in notes:
            if PROJECT_NOTE_KEYS.issuperset(note):
                continue  # every key a field: one set test a note
            for key, value in _pairs(note):
                if key not in PROJECT_NOTE_KEYS and _deeper(value, MAX_DEPTH - 3):  # in a note
                    return True
    return False


def _pairs(data: dict[str, Any]) -> Any:
    """Every key and value of an object, each value of a key given twice among them."""
    pairs = getattr(data, "pairs", None)
    return data.items() if pairs is None else pairs


def _deeper(value: Any, limit: int) -> bool:
    """Whether `value` opens more than `limit` (zero or more) arrays and objects inside each
    other."""
    if type(value) is list:
        values = value
    elif isinstance(value, dict):
        values = [inner for _, inner in _pairs(value)]
    else:
        return False
    return limit <= 0 or any(_deeper(inner, limit - 1) for inner in values)


def _misfit_named(
    where: str, data: dict[str, Any], required: Fields, optional: Fields
) -> str | None:
    name = misfit(data, required, optional)
    if name is None:
        return None
    if name not in data:
        return f"{where or 'the file'} has no {name}"
    field = f"{where}.{name}".lstrip(".")
    if type(data[name]) is str and not is_text(data[name]):
        return f"{field} holds an escaped lone surrogate (\\ud800 to \\udfff alone)"
    return f"{field} must be {KINDS[required.get(name) or optional[name]]}"

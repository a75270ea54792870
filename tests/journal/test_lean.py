"""The hook's judgement of a line's data (`abcd.journal.lean`) is msgspec's: the same fields as
the events declare, and on random data, well formed or damaged, the same answer."""

from __future__ import annotations

import json
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from abcd import fastjson
from abcd.constants import ZERO_HASH
from abcd.journal import lean
from abcd.journal.envelope import BadLine, decode_typed
from abcd.journal.events import EVENT_TYPES
from abcd.journal.note import Note


def test_every_field_of_every_event_and_of_the_note_is_in_the_table() -> None:
    assert set(lean.EVENTS) == set(EVENT_TYPES)
    for kind, cls in EVENT_TYPES.items():
        fields = msgspec.structs.fields(cls)
        assert [f.encode_name for f in fields] == list(lean.EVENTS[kind]), kind
        assert all(f.required for f in fields), kind
    note = msgspec.structs.fields(Note)
    assert [f.encode_name for f in note if f.required] == list(lean.NOTE)
    assert [f.encode_name for f in note if not f.required] == list(lean.NOTE_STAMPS)


# Values of every JSON type, the awkward ones among them: a bool (never an int), a float that
# equals an int, a lone surrogate (valid JSON the standard library reads and msgspec refuses).
ANY = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),  # NaN and the infinities too: `json` writes them as tokens msgspec refuses
    st.text(max_size=8),
    st.sampled_from(["\ud800", "a\udc00", "agent", "person", "host-memory-move", "x"]),
    st.lists(st.text(max_size=4), max_size=3),
    st.lists(st.sampled_from(["\udfff", 1, None]), min_size=1, max_size=2),
    st.just({}),
)


def good_value(draw: st.DrawFn, check: Any) -> Any:
    """A value one of `lean`'s plain checks (text, text or null, int, words) admits, as an
    honest writer would give it; the journal's and the project file's property tests share it."""
    if check is lean.is_text:
        return draw(st.text(max_size=8))
    if check is lean._text_or_none:
        return draw(st.one_of(st.none(), st.text(max_size=8)))
    if check is lean.is_int:
        return draw(st.integers(-5, 5))
    assert check is lean._words, check
    return draw(st.lists(st.text(max_size=4), max_size=3))


def _good(draw: st.DrawFn, check: Any) -> Any:
    """A value the field's check admits, as an honest writer would give it."""
    if check is lean._origin:
        return draw(st.sampled_from(lean.ORIGINS))
    if check is lean._note:
        return _fields(draw, lean.NOTE, lean.NOTE_STAMPS)
    return good_value(draw, check)


def _fields(draw: st.DrawFn, required: lean.Fields, optional: lean.Fields) -> dict[str, Any]:
    """A well-formed object, then damaged or not: a field dropped, one replaced by any value,
    keys no event names added."""
    data = {name: _good(draw, check) for name, check in required.items()}
    data.update(
        {name: _good(draw, check) for name, check in optional.items() if draw(st.booleans())}
    )
    names = sorted(data)
    for _ in range(draw(st.integers(0, 2))):
        damage = draw(st.sampled_from(["drop", "replace", "extra", "none"]))
        if damage == "drop" and names:
            data.pop(draw(st.sampled_from(names)), None)
        elif damage == "replace" and names:
            data[draw(st.sampled_from(names))] = draw(ANY)
        elif damage == "extra":
            data[draw(st.sampled_from(["zz", "note_", "v"]))] = draw(ANY)
    return data


@st.composite
def lines(draw: st.DrawFn) -> tuple[str, Any]:
    kind = draw(st.sampled_from(sorted(lean.EVENTS)))
    if draw(st.integers(0, 20)) == 0:
        return kind, draw(ANY)  # not even an object
    return kind, _fields(draw, lean.EVENTS[kind], {})


@settings(max_examples=2000)
@given(lines())
def test_the_lean_judgement_is_msgspecs_on_any_data(line: tuple[str, Any]) -> None:
    kind, data = line
    since = EVENT_TYPES[kind].SINCE
    # As json writes it (a lone surrogate as its escape), read as the hook reads it.
    text = json.dumps(
        {
            "v": since,
            "seq": 1,
            "at": "2026-12-02T12:00:00.000000Z",
            "type": kind,
            "prev": ZERO_HASH,
            "data": data,
        }
    ).encode()
    try:
        decode_typed(text)
        decodes = True
    except BadLine:
        decodes = False
    try:
        read = fastjson.loads_strict(text)  # as the hook reads a line
    except ValueError:
        assert not decodes
        return
    assert (lean.readable(text, read) and lean.is_event(kind, read["data"])) == decodes


def test_each_events_version_is_in_the_table() -> None:
    assert {kind: cls.SINCE for kind, cls in EVENT_TYPES.items()} == lean.SINCE


# JSON values nested to any depth, with brackets, quotes and backslashes inside strings.
NESTED = st.recursive(
    st.one_of(st.none(), st.integers(), st.text(alphabet='[]{}"\\ab', max_size=6)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=2),
        st.dictionaries(st.text(alphabet='[{"\\', max_size=3), inner, max_size=2),
    ),
    max_leaves=120,
)


def _depth(value: Any) -> int:
    if type(value) is list:
        return 1 + max(map(_depth, value), default=0)
    if type(value) is dict:
        return 1 + max(map(_depth, value.values()), default=0)
    return 0


@settings(max_examples=500)
@given(NESTED, st.integers(0, 80))
def test_too_deep_counts_the_nesting_and_never_a_bracket_in_text(value: Any, wrap: int) -> None:
    for _ in range(wrap):  # deeper than the strategy reaches alone
        value = [value]
    raw = json.dumps(value).encode()
    assert lean.too_deep(raw) == (_depth(value) > lean.MAX_DEPTH)


# A line's envelope, each field as a writer gives it or damaged: the hook's whole judgement of a
# line (`machine.read_line`) against the commands' (`envelope.decode_typed`).
ENVELOPE_VALUES = [0, 1, 2, 3, 4, True, False, 1.0, 2.0, "1", None, 2**70,
                   "2026-12-02T12:00:00.000000Z", 5, "\ud800", ZERO_HASH]  # fmt: skip


DAMAGES = ["none", "v", "seq", "at", "prev", "drop", "deep", "long int", "utf-8", "digits",
           "repeat", "repeat"]  # fmt: skip


@st.composite
def whole_lines(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(sorted(lean.EVENTS)))
    if draw(st.booleans()):  # an event as abcd writes it, so that the envelope decides
        data: Any = {name: _good(draw, check) for name, check in lean.EVENTS[kind].items()}
    else:
        data = draw(lines())[1]
    line: dict[str, Any] = {
        "v": EVENT_TYPES[kind].SINCE,
        "seq": 1,
        "at": "2026-12-02T12:00:00.000000Z",
        "type": kind if draw(st.integers(0, 7)) else draw(st.sampled_from(["note.moved", 3])),
        "prev": ZERO_HASH,
        "data": data,
    }
    damage = draw(st.sampled_from(DAMAGES))
    if damage == "drop":
        line.pop(draw(st.sampled_from(sorted(line))))
    elif damage == "deep":
        depth = draw(st.integers(60, 1500))
        return _with(line, ',"x":' + "[" * depth + "]" * depth)
    elif damage == "long int":
        return _with(line, ',"x":' + "9" * draw(st.integers(4290, 4400)))
    elif damage == "digits":  # an int field's value about msgspec's bound of 4,300 characters
        sign = draw(st.sampled_from(["", "-"]))
        digits = sign + "9" * draw(st.integers(4297, 4302))
        field = draw(st.sampled_from(["seq", "v"]))
        line[field] = 123456789
        return json.dumps(line).replace("123456789", digits, 1).encode()
    elif damage == "repeat":  # a key written twice: msgspec judges each value, keeps the last
        return _repeated(draw, line, kind)
    elif damage == "utf-8":
        return _with(line, ',"x":"\udcc0"')  # a byte that is not UTF-8
    elif damage != "none":
        line[damage] = draw(st.sampled_from(ENVELOPE_VALUES))
    return json.dumps(line).encode()


# Values a repeated key's first occurrence is given, as JSON text: good ones and bad ones.
REPEATED_VALUES = ["1", "3", "true", "1.0", "null", '"x"', '"2026-12-02T12:00:00.000000Z"',
                   '"note.added"', '"note.removed"', '"\\ud800"', "[]", '["a"]', "{}",
                   '"agent"', '"' + ZERO_HASH + '"']  # fmt: skip


def _repeated(draw: st.DrawFn, line: dict[str, Any], kind: str) -> bytes:
    """The line's text with one key of the envelope, or of its data, written once more before
    the rest, with a good or a bad value (the data's own, for `data`)."""
    text = json.dumps(line)
    data = line.get("data")
    inside = isinstance(data, dict) and draw(st.booleans())
    names = [*sorted(data), "zz"] if inside else ["v", "seq", "at", "type", "prev", "data", "zz"]
    name = draw(st.sampled_from(names))
    value = draw(st.sampled_from([*REPEATED_VALUES, json.dumps(data)]))
    opening = '"data": {' if inside else "{"
    at = text.index(opening) + len(opening)
    return (text[:at] + json.dumps(name) + ": " + value + ", " + text[at:]).encode()


def _with(line: dict[str, Any], extra: str) -> bytes:
    text = json.dumps(line)
    return (text[:-1] + extra + "}").encode("utf-8", "surrogateescape")


@settings(max_examples=2000)
@given(whole_lines())
def test_the_hooks_judgement_of_a_whole_line_is_the_commands(raw: bytes) -> None:
    from abcd.recall.machine import read_line

    try:
        decode_typed(raw)
        decodes = True
    except BadLine:
        decodes = False
    assert isinstance(read_line(raw), dict) == decodes

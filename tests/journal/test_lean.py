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


def _good(draw: st.DrawFn, check: Any) -> Any:
    """A value the field's check admits, as an honest writer would give it."""
    if check is lean.is_text:
        return draw(st.text(max_size=8))
    if check is lean._text_or_none:
        return draw(st.one_of(st.none(), st.text(max_size=8)))
    if check is lean._count:
        return draw(st.integers(-5, 5))
    if check is lean._words:
        return draw(st.lists(st.text(max_size=4), max_size=3))
    if check is lean._origin:
        return draw(st.sampled_from(lean.ORIGINS))
    assert check is lean._note
    return _fields(draw, lean.NOTE, lean.NOTE_STAMPS)


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

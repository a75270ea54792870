"""The hook's reader of a project file (`abcd.recall.items.parse_project_file`) gives the verdict
the commands' (`abcd.notes.project.decode_project_file`, msgspec) gives: the same fields as the
structs declare, and on random files, well formed or subtly damaged, the same answer and the
same notes."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abcd.errors import CorruptFile
from abcd.journal import lean
from abcd.notes.project import ProjectFile, ProjectNote, decode_project_file
from abcd.recall.items import parse_project_file
from tests.journal.test_lean import good_value


def test_every_field_of_the_project_structs_is_in_the_table() -> None:
    note = msgspec.structs.fields(ProjectNote)
    assert [f.encode_name for f in note if f.required] == list(lean.PROJECT_NOTE)
    assert [f.encode_name for f in note if not f.required] == list(lean.PROJECT_NOTE_DEFAULTS)
    top = msgspec.structs.fields(ProjectFile)
    assert [f.encode_name for f in top if f.required] == list(lean.PROJECT_FILE)
    assert [f.encode_name for f in top if not f.required] == ["notes"]


# False one time in n, else True (hypothesis draws the ends of an integer range far more often).
_ONE_IN = {n: st.sampled_from([True] * (n - 1) + [False]) for n in (3, 4, 8, 10, 13)}
IDS = ["mem-2612010000000001", "mem-2612010000000002", "mem-2612010000000003"]

# Values of every JSON type, the awkward ones among them: a bool (never an int), a float that
# equals an int, a lone surrogate (valid JSON the standard library reads and msgspec refuses).
ANY = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),  # NaN and the infinities too: `json` writes them as tokens msgspec refuses
    st.text(max_size=6),
    st.sampled_from(["\ud800", "a\udfff", "agent", "person", IDS[0], "line\nbreak"]),
    st.lists(st.text(max_size=4), max_size=2),
    st.lists(st.sampled_from(["\udfff", 1, None, "x"]), min_size=1, max_size=2),
    st.just({}),
    st.just([{}]),
)


def _good(draw: st.DrawFn, check: Any) -> Any:
    """A value the field's check admits, as an honest writer gives it."""
    if check is lean._any_in_note:  # read as any value: what promotion writes, or anything
        return draw(st.one_of(st.integers(0, 3), st.text(max_size=6), ANY))
    return good_value(draw, check)


def _note(draw: st.DrawFn, index: int) -> dict[str, Any]:
    """A note as promotion writes it, then damaged or not: a field dropped or replaced by any
    value, a key no reader names added. Most files are otherwise good, so that the damage
    written into the text, not another fault, decides."""
    note = {name: _good(draw, check) for name, check in lean.PROJECT_NOTE.items()}
    note["id"] = IDS[index] if draw(_ONE_IN[8]) else IDS[0]  # another's: refused by both
    note["title"] = draw(st.sampled_from(["Deploy", "Deploy", "Deploy \u00e9", "Deploy\nsteps"]))
    note.update(
        {n: _good(draw, c) for n, c in lean.PROJECT_NOTE_DEFAULTS.items() if draw(st.booleans())}
    )
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2]))):
        damage = draw(st.sampled_from(["drop", "replace", "extra", "none"]))
        names = sorted(note)
        if damage == "drop" and names:
            note.pop(draw(st.sampled_from(names)))
        elif damage == "replace" and names:
            note[draw(st.sampled_from(names))] = draw(ANY)
        elif damage == "extra":
            note[draw(st.sampled_from(["promoted_by", "zz"]))] = draw(ANY)
    return note


VERSIONS = [0, -3, 2, True, False, 1.0, "1", None]  # each but the first two refused
# Text damages the writer of a JSON value cannot make: written into the file's text.
RAW = ["none", "none", "none", "repeat", "repeat", "digits", "digits", "float", "float", "float",
       "deep", "deep", "deep", "not utf-8", "surrogate key", "nan", "bom", "comma"]  # fmt: skip


@st.composite
def project_files(draw: st.DrawFn) -> bytes:
    version = 1 if draw(_ONE_IN[4]) else draw(st.sampled_from(VERSIONS))
    doc: dict[str, Any] = {"schema_version": version}
    if draw(_ONE_IN[10]):
        doc["notes"] = [_note(draw, index) for index in range(draw(st.integers(0, 3)))]
    if not draw(_ONE_IN[13]):
        doc.pop("schema_version")
    if not draw(_ONE_IN[13]):
        doc["notes"] = draw(ANY)
    if not draw(_ONE_IN[4]):
        doc["team"] = draw(ANY)  # a key no reader names
    text = json.dumps(doc)
    inside = '"notes": [{' in text and draw(_ONE_IN[3])  # the first note's, or the file's
    opening = '"notes": [{' if inside else "{"
    at = text.index(opening) + len(opening)
    damage = draw(st.sampled_from(RAW))
    field = draw(st.sampled_from(["zz", "revision", "revised_at", "schema_version", "id", "origin",
                                  "notes"]))  # fmt: skip
    value = None
    if damage == "repeat":  # a key given twice: msgspec judges each value and keeps the last
        notes = json.dumps(doc.get("notes"))
        value = draw(st.sampled_from(['"x"', "1", "true", "null", "[]", '["a"]', "{}", "1.0",
                                      "[{}]", notes]))  # fmt: skip
    elif damage == "digits":  # an integer about msgspec's bound of 4,300 characters
        sign = draw(st.sampled_from(["", "-"]))
        value = sign + "9" * draw(st.integers(4297, 4302))
    elif damage == "float":  # past a float's range: msgspec skips it in a key it does not read
        value = draw(st.sampled_from(["1e999", "-1e999", "1e5", "2.5", "[1e999]", '{"a": 1e400}',
                                      "1.7976931348623157e308", "1.7976931348623159e308"]))  # fmt: skip
    elif damage == "deep":  # about the depth every reader refuses past (`lean.MAX_DEPTH`)
        depth = draw(st.sampled_from([58, 60, 61, 62, 63, 64, 65, 1500]))
        value = "[" * depth + "]" * depth
    elif damage == "not utf-8":
        value = '"\udcc0"'  # a byte that is not UTF-8, in a string
    elif damage == "surrogate key":
        field = "\udfff"
        value = "1"
    elif damage == "nan":
        value = draw(st.sampled_from(["NaN", "Infinity", "-Infinity"]))
    if value is not None:
        text = text[:at] + json.dumps(field) + ": " + value + ", " + text[at:]
    elif damage == "bom":
        text = "\ufeff" + text
    elif damage == "comma":
        text = text[:-1] + ",}"
    return text.encode("utf-8", "surrogateescape")


def _commands(data: bytes) -> list[tuple[Any, ...]] | None:
    try:
        notes = decode_project_file(data, "memory.json")
    except CorruptFile:
        return None
    return [(n.id, n.title, n.body, n.recall, n.written_at or "") for n in notes]


def _hook(data: bytes) -> list[tuple[Any, ...]] | None:
    try:
        items = parse_project_file(data, "memory.json")
    except CorruptFile:
        return None
    return [(i.name, i.title, i.body, i.recall, i.recency) for i in items]


def _planted(value: str, inside: bool, field: str = "revision") -> bytes:
    """A good file with `field` given `value` (JSON text) in its note, or at its top."""
    note = f'{{"id": "{IDS[0]}", "title": "T", "body": "B", "recall": ["deploy"]}}'
    at = 1 if not inside else len('{"schema_version": 1, "notes": [{')
    text = f'{{"schema_version": 1, "notes": [{note}]}}'
    return (text[:at] + f'"{field}": {value}, ' + text[at:]).encode()


# The edges the random files reach only now and then: each, moved by one, splits the readers.
EDGES = [
    _planted("1e999", True),  # a float out of range in a stamp read as any value
    _planted('{"a": [-1e999]}', True, "revised_at"),
    _planted("1e999", False),  # passed over in a key no reader names
    _planted("9" * 4300, True),
    _planted("9" * 4301, True),
    _planted("[" * 61 + "]" * 61, True),  # 64 deep in all
    _planted("[" * 62 + "]" * 62, True),
    _planted("[" * 61 + "]" * 61, True, "zz"),
    _planted("[" * 62 + "]" * 62, True, "zz"),
    _planted("[" * 63 + "]" * 63, False, "zz"),
    _planted("[" * 64 + "]" * 64, False, "zz"),
    _planted("null", True, "origin"),  # a note written by hand says it has none: both read it
    _planted("1", True, "origin"),
]


@pytest.mark.parametrize("data", EDGES)
def test_the_readers_agree_at_each_edge(data: bytes) -> None:
    assert _hook(data) == _commands(data)


@settings(max_examples=3000)
@given(project_files())
def test_the_hooks_verdict_on_a_project_file_is_the_commands(data: bytes) -> None:
    assert _hook(data) == _commands(data)


def test_the_hook_reads_what_the_commands_read_that_it_once_refused() -> None:
    """An integer of 5,000 digits in a key no reader names: msgspec passes over it, and the
    hook's parser, which refused more than 4,300 digits, withheld every project note."""
    long = b'{"schema_version": 1, "team": ' + b"9" * 5000 + b', "notes": []}'
    assert _hook(long) == _commands(long) == []

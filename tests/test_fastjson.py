"""`abcd.fastjson` decodes and encodes exactly as the standard library's `json` does."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from abcd import fastjson
from tests.fresh import PYTHONS, run_fresh

values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=30,
)


@given(values, st.booleans(), st.sampled_from([(", ", ": "), (",", ":")]))
def test_dumps_writes_the_same_text_as_json(
    value: object, ascii_only: bool, separators: tuple[str, str]
) -> None:
    assert fastjson.dumps(value, ensure_ascii=ascii_only, separators=separators) == json.dumps(
        value, ensure_ascii=ascii_only, separators=separators
    )


@given(values)
def test_loads_reads_back_what_json_wrote(value: object) -> None:
    text = json.dumps(value, ensure_ascii=False)
    assert fastjson.loads(text) == json.loads(text)
    assert fastjson.loads(("  " + text + "\n").encode("utf-8")) == value


@given(st.text(max_size=40))
def test_loads_refuses_what_json_refuses(text: str) -> None:
    try:
        expected = json.loads(text)
    except ValueError:
        with pytest.raises(ValueError):
            fastjson.loads(text)
    else:
        got = fastjson.loads(text)
        assert got == expected or (isinstance(got, float) and math.isnan(got))


def test_the_constants_and_custom_parsers_behave_as_json() -> None:
    assert fastjson.loads("[Infinity]") == [float("inf")]

    def refuse(name: str) -> float:
        raise ValueError(f"{name} is not a number")

    with pytest.raises(ValueError, match="NaN is not a number"):
        fastjson.loads('{"a": NaN}', parse_constant=refuse)
    assert fastjson.loads("[1.5]", parse_float=lambda s: "float:" + s) == ["float:1.5"]
    with pytest.raises(ValueError):
        fastjson.loads("[1, 2] 3")
    with pytest.raises(TypeError):
        fastjson.dumps({"a": object()})


def test_importing_it_loads_neither_json_nor_re() -> None:
    code = "import sys, abcd.fastjson; print(sorted(m for m in ('json', 're') if m in sys.modules))"
    out = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


# --- bad input, in a fresh interpreter on every installed Python ------------------

# Syntax errors inside an object or array (the 3.11 scanner's SystemError without
# `json.decoder`), a cut, nesting past the interpreter's depth, bytes that are not UTF-8,
# an integer past the digit limit, a BOM.
BAD = [
    b'{"a": 1',
    b'{"a": 1,}',
    b"[1,]",
    b'{"a"',
    b'["a", {"b": [1, 2}]',
    b'<<<<<<< HEAD\n{"a": 1}\n=======\n{"a": 2}\n>>>>>>> theirs\n',
    b"[" * 100_000,
    b'{"a":' * 100_000,
    b"\xff\xfe{}",
    b'["\xed\xa0\x80"]',
    b"[" + b"1" * 5000 + b"]",
    b"\xef\xbb\xbf{}",
    b"",
    b"[1] [2]",
]
# Each input, after dropping `json` as a fresh process would not have it.
PROBE = """
import marshal
from abcd import fastjson
out = []
for data in marshal.loads(sys.stdin.buffer.read()):
    for name in [m for m in sys.modules if m == "json" or m.startswith("json.")]:
        del sys.modules[name]
    try:
        out.append(("value", repr(fastjson.loads(data))))
    except ValueError as err:
        out.append(("ValueError", str(err)))
    except BaseException as err:
        out.append((type(err).__name__, str(err)))
sys.stdout.buffer.write(marshal.dumps(out))
"""


@pytest.mark.parametrize("version", PYTHONS)
def test_any_bad_input_is_a_value_error_with_a_message_in_a_fresh_interpreter(
    version: str,
) -> None:
    good = [json.dumps(v).encode() for v in ({"a": [1, 2.5, None, "x"]}, [], "é", 10**30)]
    results = run_fresh(version, PROBE, BAD + good)
    for data, (kind, message) in zip(BAD, results, strict=False):
        assert kind == "ValueError" and message, (version, data[:40], kind, message)
    for data, (kind, value) in zip(good, results[len(BAD) :], strict=True):
        assert kind == "value" and value == repr(json.loads(data)), (version, data)


# What the journal's lines are read with in the hook: the tokens msgspec refuses are refused too.
STRICT_PROBE = PROBE.replace("fastjson.loads(data)", "fastjson.loads_strict(data)")
CONSTANTS = [b"[NaN]", b'{"a": Infinity}', b'{"a": [1, -Infinity]}', b'{"a": NaN,}', b"NaN"]


@pytest.mark.parametrize("version", PYTHONS)
def test_strict_refuses_nan_and_infinity_and_reads_the_rest_as_json_in_a_fresh_interpreter(
    version: str,
) -> None:
    good = [json.dumps(v).encode() for v in ({"a": [1, 2.5, None, "NaN"]}, [], 1e300)]
    results = run_fresh(version, STRICT_PROBE, BAD + CONSTANTS + good)
    for data, (kind, message) in zip(BAD + CONSTANTS, results, strict=False):
        assert kind == "ValueError" and message, (version, data[:40], kind, message)
    for data, (kind, value) in zip(good, results[len(BAD) + len(CONSTANTS) :], strict=True):
        assert kind == "value" and value == repr(json.loads(data)), (version, data)


def test_a_syntax_error_names_where_it_is_as_json_does() -> None:
    with pytest.raises(ValueError, match="char 8"):
        fastjson.loads('{"a": 1,}')
    with pytest.raises(ValueError, match="nested too deeply"):
        fastjson.loads("[" * 100_000)

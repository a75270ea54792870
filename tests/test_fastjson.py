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

"""The hook's hand-written shape checks answer as the documented patterns do."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from abcd.constants import NOTE_ID_PATTERN, SESSION_PATTERN
from abcd.shapes import count_of, is_note_id, is_one_line, is_session_id, segment_number

near_ids = st.text(alphabet=st.sampled_from("aZ09_-:/. é\n"), max_size=140)


@given(st.one_of(near_ids, st.text(max_size=140), st.from_regex(SESSION_PATTERN, fullmatch=True)))
def test_a_session_id_is_what_the_pattern_says(value: str) -> None:
    assert is_session_id(value) == bool(re.fullmatch(SESSION_PATTERN, value, flags=re.ASCII))


@given(st.one_of(st.text(max_size=14), st.from_regex(r"[0-9]{6}\.jsonl", fullmatch=True)))
def test_a_segment_name_is_six_digits_and_jsonl(name: str) -> None:
    match = re.fullmatch(r"([0-9]{6})\.jsonl", name, flags=re.ASCII)
    assert segment_number(name) == (int(match.group(1)) if match else None)


@given(
    st.one_of(
        st.text(alphabet=st.sampled_from("mem-0189 \n\u0661"), max_size=24),
        st.from_regex(NOTE_ID_PATTERN, fullmatch=True),
    )
)
def test_a_note_id_is_what_the_pattern_says(value: str) -> None:
    assert is_note_id(value) == bool(re.fullmatch(NOTE_ID_PATTERN, value, flags=re.ASCII))


@given(
    st.one_of(
        st.text(max_size=40),
        st.text(alphabet=st.sampled_from("a \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\u2028\u2029")),
    )
)
def test_one_line_is_what_splitlines_says(text: str) -> None:
    assert is_one_line(text) == (len((text + "x").splitlines()) == 1)


@given(
    st.one_of(
        st.text(alphabet=st.sampled_from("0129 -+_\u00b2\u0661\uff11"), max_size=20),
        st.from_regex(r"[0-9]{1,18}", fullmatch=True),
        st.text(max_size=20),
    )
)
def test_a_count_is_one_to_eighteen_ascii_digits(text: str) -> None:
    """`²`, `١` and `１` pass `str.isdigit`; `int` refuses the first and reads the others."""
    match = re.fullmatch(r"[0-9]{1,18}", text, flags=re.ASCII)
    assert count_of(text) == (int(text) if match else None)

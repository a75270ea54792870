"""The fast paths of `abcd.gate.fold` answer as the plain definitions they replace."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from abcd.gate.fold import _CONTROLS, _drop_hidden, _hidden, has_controls

# Text that mixes ASCII, controls, hidden and full-width characters, so both paths run.
_ALPHABET = st.sampled_from(
    [chr(c) for c in range(0x00, 0x80)]
    + [chr(c) for c in range(0x80, 0xA1)]
    + ["\u00ad", "\u200b", "\u2066", "\u2800", "\ufe0f", "\uffa0", "\U000e0041", "\u3164"]
    + ["é", "ｇ", "ｈ", "\u2028", "\u0301", "😀"]
)


def _controls_by_definition(text: str) -> bool:
    return any(ord(ch) in _CONTROLS for ch in text)


def _drop_hidden_by_definition(text: str) -> str:
    return "".join(ch for ch in text if ch.isascii() or not _hidden(ch))


@settings(max_examples=400)
@given(st.text(_ALPHABET, max_size=60))
def test_has_controls_answers_as_its_definition(text: str) -> None:
    assert has_controls(text) == _controls_by_definition(text)


@settings(max_examples=400)
@given(st.text(_ALPHABET, max_size=60))
def test_dropping_hidden_characters_answers_as_its_definition(text: str) -> None:
    assert _drop_hidden(text) == _drop_hidden_by_definition(text)


def test_a_control_is_found_in_ascii_and_in_non_ascii_text() -> None:
    assert has_controls("a\x07b") and has_controls("é\x07b") and has_controls("é\x85")
    assert not has_controls("a\tb\r\n") and not has_controls("é\tｇ\n")

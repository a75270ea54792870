"""Properties of the transcript line parser and the tail fold: any input, no error, a figure in range."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from abcd.session.fill import Compaction, Reply, fill_from_transcript, parse_transcript_line

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=20,
)
# Objects shaped like transcript lines, with any value in any of the fields the parser reads.
line_like = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["assistant", "system", "user"]) | json_values,
        "subtype": st.just("compact_boundary") | json_values,
        "isSidechain": st.booleans() | json_values,
        "message": st.fixed_dictionaries(
            {},
            optional={
                "model": st.sampled_from(["claude-opus-4-8", "<synthetic>"]) | json_values,
                "usage": st.dictionaries(
                    st.sampled_from(
                        ["input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"]
                    ),
                    st.integers() | json_values,
                )
                | json_values,
            },
        )
        | json_values,
    },
)
counts = st.integers(min_value=0, max_value=10**7)


@given(st.binary(max_size=300))
def test_any_bytes_parse_to_a_fact_or_nothing(line: bytes) -> None:
    fact = parse_transcript_line(line)
    assert fact is None or isinstance(fact, Reply | Compaction)


@given(line_like)
def test_any_line_shaped_object_parses_without_error_and_a_reply_never_counts_below_zero(
    entry: dict[str, object],
) -> None:
    fact = parse_transcript_line(json.dumps(entry).encode())
    if isinstance(fact, Reply):
        assert fact.used_tokens >= 0
        assert not fact.model.startswith("<")


@given(counts, counts, counts, counts)
def test_a_reply_counts_input_cache_creation_and_cache_read_tokens(
    input_tokens: int, creation: int, read: int, output: int
) -> None:
    line = json.dumps(
        {
            "type": "assistant",
            "message": {
                "model": "claude-sonnet-4-5",
                "usage": {
                    "input_tokens": input_tokens,
                    "cache_creation_input_tokens": creation,
                    "cache_read_input_tokens": read,
                    "output_tokens": output,
                },
            },
        }
    ).encode()
    assert parse_transcript_line(line) == Reply("claude-sonnet-4-5", input_tokens + creation + read)


tails = st.lists(
    st.binary(max_size=80) | line_like.map(lambda d: json.dumps(d).encode()), max_size=12
)


@given(tails, st.booleans())
def test_any_tail_folds_to_unknown_or_a_share_between_zero_and_one_hundred(
    lines: list[bytes], starts_file: bool
) -> None:
    figure = fill_from_transcript(b"\n".join(lines), starts_file=starts_file)
    assert figure is None or 0.0 <= figure <= 100.0

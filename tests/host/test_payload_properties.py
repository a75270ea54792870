"""Properties of the status payload parser: any bytes, any JSON, never an error, only well-shaped fields."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from abcd.constants import SESSION_PATTERN
from abcd.host.statusline import StatusPayload, parse_payload, render_row

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=20,
)
# Objects shaped like the host's status payload, with any value in any field the parser reads.
payload_like = st.fixed_dictionaries(
    {},
    optional={
        "session_id": st.uuids().map(str) | json_values,
        "cwd": st.text(max_size=30) | json_values,
        "model": st.fixed_dictionaries(
            {}, optional={"id": json_values, "display_name": st.text(max_size=30) | json_values}
        )
        | json_values,
        "workspace": st.fixed_dictionaries(
            {}, optional={"project_dir": json_values, "current_dir": json_values}
        )
        | json_values,
        "context_window": st.fixed_dictionaries(
            {},
            optional={
                "used_percentage": st.integers() | st.floats() | json_values,
                "context_window_size": json_values,
            },
        )
        | json_values,
        "extra": json_values,
    },
)


def well_shaped(parsed: StatusPayload) -> None:
    assert parsed.session_id is None or re.fullmatch(SESSION_PATTERN, parsed.session_id)
    assert parsed.model is None or (isinstance(parsed.model, str) and parsed.model)
    assert parsed.repository is None or (isinstance(parsed.repository, str) and parsed.repository)
    assert parsed.used_percentage is None or 0.0 <= parsed.used_percentage <= 100.0
    assert "\n" not in render_row(parsed)


@given(st.binary(max_size=400))
def test_any_bytes_parse_to_well_shaped_or_absent_fields(data: bytes) -> None:
    well_shaped(parse_payload(data))


@given(json_values)
def test_any_json_value_parses_to_well_shaped_or_absent_fields(value: object) -> None:
    well_shaped(parse_payload(json.dumps(value).encode()))


@given(payload_like)
def test_a_payload_shaped_object_keeps_each_field_only_when_it_has_the_right_shape(
    value: dict[str, object],
) -> None:
    parsed = parse_payload(json.dumps(value).encode())
    well_shaped(parsed)
    window = value.get("context_window")
    used = window.get("used_percentage") if isinstance(window, dict) else None
    if isinstance(used, bool) or not isinstance(used, int | float) or used != used:
        assert parsed.used_percentage is None
    elif abs(used) < 1e300:
        assert parsed.used_percentage == min(100.0, max(0.0, float(used)))

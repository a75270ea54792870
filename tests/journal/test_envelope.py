"""The envelope and the hash chain: round trips, version refusal, time stamps."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from abcd.constants import JOURNAL_VERSION, ZERO_HASH
from abcd.journal.envelope import BadLine, decode_line, encode_line, line_hash
from abcd.journal.events import NoteAdded, NoteRemoved

text = st.text(min_size=1, max_size=200)
ids = st.from_regex(r"mem-[0-9]{16}", fullmatch=True)
sessions = st.none() | st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_-]{0,20}", fullmatch=True)

added_events = st.builds(
    NoteAdded,
    id=ids,
    title=text,
    body=text,
    recall=st.lists(text, min_size=1, max_size=12).map(tuple),
    root=st.none() | st.from_regex(r"[0-9a-f]{40}", fullmatch=True),
    origin=st.sampled_from(["agent", "host-memory-move"]),
    written_by=st.just("Claude:claude-opus-4-8"),
    session=sessions,
)
removed_events = st.builds(NoteRemoved, id=ids, removed_by=st.just("person"), session=sessions)


@given(event=added_events | removed_events, seq=st.integers(1, 10**9))
def test_every_event_survives_a_round_trip_through_one_line(
    event: NoteAdded | NoteRemoved, seq: int
) -> None:
    line = encode_line(seq, "2026-11-29T12:00:00.000000Z", ZERO_HASH, event)
    assert b"\n" not in line
    record = decode_line(line)
    assert record.event == event
    assert record.seq == seq
    assert record.prev == ZERO_HASH


def test_the_envelope_has_the_spec_fields_in_order() -> None:
    event = NoteRemoved(id="mem-0000000000000001", removed_by="person", session=None)
    line = encode_line(3, "2026-11-29T12:00:00.000000Z", "a" * 64, event)
    assert list(json.loads(line)) == ["v", "seq", "at", "type", "prev", "data"]
    assert json.loads(line)["type"] == "note.removed"


def test_a_newer_version_is_refused_by_name() -> None:
    event = NoteRemoved(id="mem-0000000000000001", removed_by="person", session=None)
    line = encode_line(1, "2026-11-29T12:00:00.000000Z", ZERO_HASH, event).replace(
        b'"v":1', f'"v":{JOURNAL_VERSION + 1}'.encode()
    )
    with pytest.raises(BadLine, match=rf"newer abcd.*v{JOURNAL_VERSION + 1}"):
        decode_line(line)


def test_an_unknown_event_type_is_refused() -> None:
    event = NoteRemoved(id="mem-0000000000000001", removed_by="person", session=None)
    line = encode_line(1, "2026-11-29T12:00:00.000000Z", ZERO_HASH, event)
    with pytest.raises(BadLine, match="unknown event type"):
        decode_line(line.replace(b"note.removed", b"note.exploded"))


def test_the_chain_hash_is_the_sha256_of_the_line_bytes() -> None:
    import hashlib

    assert line_hash(b"abc") == hashlib.sha256(b"abc").hexdigest()

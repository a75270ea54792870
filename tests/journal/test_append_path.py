"""What a writer reads on every append: lines found by their end, the index's checkpoint."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abcd.constants import LINE_MAX_BYTES
from abcd.errors import JournalBroken
from abcd.journal import store
from abcd.journal.segments import Segments, segment_name
from abcd.recall.index import INDEX_FILE, index_bytes, rebuild_index
from abcd.trust import Home

from .helpers import append_adds, note_id

# Line lengths around the first read (4 KiB) and around the bound.
LENGTHS = st.one_of(
    st.integers(0, 200),
    st.integers(4000, 4200),
    st.integers(LINE_MAX_BYTES - 3, LINE_MAX_BYTES + 3),
)


def read_whole_bound(data: bytes, end: int) -> bytes | None:
    """The line ending at `end` as one read of the whole bound before it finds it."""
    start = max(0, end - LINE_MAX_BYTES - 1)
    chunk = data[start:end]
    if not chunk.endswith(b"\n"):
        return None
    cut = chunk[:-1].rfind(b"\n")
    return None if cut < 0 and start > 0 else chunk[cut + 1 : -1]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(LENGTHS, st.booleans()), min_size=1, max_size=4))
def test_a_line_is_found_by_its_end_as_a_read_of_the_whole_bound_finds_it(
    shape: list[tuple[int, bool]],
) -> None:
    data = b"".join(b"x" * length + (b"\n" if ends else b"y") for length, ends in shape)
    with tempfile.TemporaryDirectory() as scratch:
        home = Home.open(Path(scratch) / "home", create=True)
        assert home is not None
        with home, Segments(home, create=True) as segs:
            assert segs.dfd is not None
            fd = os.open(segment_name(1), os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=segs.dfd)
            os.write(fd, data)
            os.close(fd)
            for end in range(1, len(data) + 1):
                if data[end - 1 : end] == b"\n" or end == len(data):
                    assert segs.line_ending_at(1, end) == read_whole_bound(data, end)


def test_a_writer_that_read_the_index_before_refuses_it_once_replaced_with_a_false_checkpoint(
    abcd_home: Path,
) -> None:
    view = append_adds(3)
    home = Home.open(abcd_home)
    assert home is not None
    with home:
        rebuild_index(home, view)
        cp = view.journal
        held = (cp.segment, cp.offset, cp.seq, cp.head)
        assert store.index_checkpoint(home) == held
        assert store.index_checkpoint(home) == held  # the second answered from the first read
        append_adds(1, start=3)  # a writer in this process passes the index it read
        false = (cp.segment, cp.offset, cp.seq, "0" * 64)
        home.write_atomic(INDEX_FILE, index_bytes(home, view.notes, false, view.removed))
        assert store.index_checkpoint(home) == false
    with pytest.raises(JournalBroken, match="recall index"):
        append_adds(1, start=4)
    assert store.load_view().journal.seq == 4  # nothing chained onto it
    assert note_id(4) not in {n.id for n in store.load_view().notes}

"""Files of checked pieces (`abcd.recall.pieces`): what is written reads back, piece by piece or
whole, and a damaged byte costs at most its own piece, never a wrong answer."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from abcd.recall import pieces
from abcd.trust.guarded import Home

EXPECT = (1, "tag", "rule")
fields = st.tuples(st.text(max_size=8), st.integers(), st.tuples(st.integers(0, 9)))
blobs = st.lists(st.binary(max_size=40), min_size=1, max_size=12)


@given(fields, blobs)
def test_a_file_decodes_to_the_fields_and_pieces_it_was_encoded_from(
    own: tuple[object, ...], parts: list[bytes]
) -> None:
    found = pieces.decode(pieces.encode((*EXPECT, *own), parts), EXPECT, len(own), len(parts))
    assert found is not None
    assert found[0] == own and [bytes(p) for p in found[1] if p is not None] == parts


@given(fields, blobs, st.data())
def test_a_flipped_byte_costs_its_own_piece_or_the_whole_file_never_a_wrong_piece(
    own: tuple[object, ...], parts: list[bytes], data: st.DataObject
) -> None:
    file = bytearray(pieces.encode((*EXPECT, *own), parts))
    at = data.draw(st.integers(0, len(file) - 1))
    file[at] ^= data.draw(st.integers(1, 255))
    found = pieces.decode(bytes(file), EXPECT, len(own), len(parts))
    if found is None:
        return  # the header (or where it says the pieces lie) no longer checks: nothing is read
    assert found[0] == own
    damaged = [n for n, piece in enumerate(found[1]) if piece is None]
    assert len(damaged) <= 1
    for n, piece in enumerate(found[1]):
        if piece is not None:
            assert bytes(piece) == parts[n]


def test_another_header_or_a_cut_file_is_not_read() -> None:
    file = pieces.encode((*EXPECT, "mine"), [b"a", b"bc"])
    assert pieces.decode(file, (1, "tag", "other"), 1, 2) is None
    assert pieces.decode(file, EXPECT, 1, 3) is None
    assert pieces.decode(file[:-1], EXPECT, 1, 2) is None
    assert pieces.decode(b"", EXPECT, 1, 2) is None


@settings(max_examples=25)
@given(fields, blobs)
def test_the_reader_reads_from_the_file_what_decode_reads_from_its_bytes(
    own: tuple[object, ...], parts: list[bytes]
) -> None:
    home_path = Path(os.environ["ABCD_HOME"])
    home_path.mkdir(mode=0o700, exist_ok=True)
    home = Home.open(home_path)
    assert home is not None
    with home:
        home.write_atomic("cache/t.marshal", pieces.encode((*EXPECT, *own), parts))
        reader = pieces.open_reader(home, "cache/t.marshal", EXPECT, len(own), len(parts))
        assert reader is not None
        try:
            assert reader.fields == own
            assert [bytes(reader.piece(n) or b"") for n in range(len(parts))] == parts
        finally:
            reader.close()
        assert pieces.open_reader(home, "cache/t.marshal", (9,), len(own), len(parts)) is None
        assert pieces.open_reader(home, "cache/absent.marshal", EXPECT, 1, 1) is None

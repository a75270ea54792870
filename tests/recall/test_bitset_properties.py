"""Property: a set of note numbers kept as an integer (`abcd.recall.bitset`) holds exactly the
numbers put in it, lists them lowest first however sparse or dense it is, and counts kept as bit
planes add up and compare as the numbers themselves do."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from abcd.recall import bitset

SIZE = 600
numbers = st.lists(st.integers(min_value=0, max_value=SIZE - 1), max_size=SIZE)


@given(numbers)
def test_a_set_lists_the_numbers_put_in_it_lowest_first(put: list[int]) -> None:
    bits = bitset.of(put, SIZE)
    assert bitset.numbers(bits) == sorted(set(put))
    assert bits.bit_count() == len(set(put))


@given(st.integers(min_value=0, max_value=SIZE), st.integers(min_value=0, max_value=SIZE))
def test_a_dense_run_is_listed_as_a_sparse_one_is(start: int, length: int) -> None:
    put = list(range(start, min(SIZE, start + length)))
    assert bitset.numbers(bitset.of(put, SIZE)) == put


@given(numbers, st.integers(min_value=0, max_value=SIZE - 1))
def test_a_set_holds_a_number_exactly_when_it_was_put_in(put: list[int], no: int) -> None:
    assert bitset.has(bitset.holding(bitset.of(put, SIZE), SIZE), no) == (no in put)


@given(st.lists(st.lists(st.integers(min_value=0, max_value=9), min_size=40, max_size=40)))
def test_counts_added_as_bit_planes_compare_as_the_counts_do(addends: list[list[int]]) -> None:
    notes = 40
    planes = [0] * 10
    for counts in addends[:20]:
        addend = [
            sum(1 << no for no, count in enumerate(counts) if count >> k & 1)
            for k in range(len(planes))
        ]
        bitset.add_planes(planes, addend)
    totals = [sum(counts[no] for counts in addends[:20]) for no in range(notes)]
    mask = (1 << notes) - 1
    for least in range(0, 200, 7):
        reached = bitset.at_least(planes, least, mask)
        assert bitset.numbers(reached) == [no for no in range(notes) if totals[no] >= least]

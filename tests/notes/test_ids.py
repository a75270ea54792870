"""Note ids: minted in the seed's shape, never twice, and a full second spills into the next."""

from __future__ import annotations

import calendar
import re
import time
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from abcd.notes.ids import SLOTS, Minter
from abcd.notes.limits import check_note_id

SHAPE = re.compile(r"^mem-\d{12}\d{4}$")
NOW = calendar.timegm((2026, 12, 1, 2, 30, 59))  # a minute's last second: the spill rolls it over


def second_of(note_id: str) -> int:
    return calendar.timegm(time.strptime(note_id[4:16], "%y%m%d%H%M%S"))


def filled(second: int, share: float, draw: st.DrawFn) -> set[str]:
    """`share` of a second's ids, chosen at random."""
    count = int(SLOTS * share)
    if count == SLOTS:
        chosen = range(SLOTS)
    else:
        chosen = draw(st.sets(st.integers(0, SLOTS - 1), min_size=count, max_size=count))
    prefix = "mem-" + time.strftime("%y%m%d%H%M%S", time.gmtime(second))
    return {f"{prefix}{n:04d}" for n in chosen}


@st.composite
def homes(draw: st.DrawFn) -> tuple[set[str], int]:
    """Ids already taken (some seconds from now on full, some part full) and a batch's size."""
    taken: set[str] = set()
    for offset in range(draw(st.integers(0, 3))):
        share = draw(st.sampled_from([1.0, 1.0, 0.5, 0.02]))
        taken |= filled(NOW + offset, share, draw)
    return taken, draw(st.integers(1, 25_000))


@settings(max_examples=25, deadline=None)
@given(homes())
def test_any_batch_lands_in_the_first_seconds_with_room_and_never_reuses_an_id(
    case: tuple[set[str], int],
) -> None:
    taken, size = case
    before = frozenset(taken)
    minter = Minter(taken, now=lambda: NOW)
    minted = [minter.mint() for _ in range(size)]
    assert len(set(minted)) == size and before.isdisjoint(minted)
    assert all(SHAPE.match(i) and check_note_id(i) == i for i in minted)
    held = Counter(second_of(i) for i in before)  # ids taken, by second
    for note_id in minted:
        # Every second it skipped, from the clock's on, was full when the id was minted.
        second = second_of(note_id)
        assert all(held[s] == SLOTS for s in range(NOW, second))
        held[second] += 1
    assert set(minted) <= taken  # the caller's set holds what was minted


def test_a_batch_follows_the_clock_and_never_goes_back_to_a_second_it_left() -> None:
    ticks = iter([NOW, NOW + 2, NOW + 1])
    minter = Minter(set(), now=lambda: next(ticks))
    seconds = [second_of(minter.mint()) for _ in range(3)]
    assert seconds == [NOW, NOW + 2, NOW + 2]

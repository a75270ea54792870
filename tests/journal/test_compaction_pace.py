"""A flood of appends asks for a compaction once per `COMPACT_AFTER` events, and one detached
compaction keeps up with it in passes spaced apart, the flood's tail included (issue 13)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from abcd.journal import compact, store
from abcd.journal.head import COMPACT_AFTER
from abcd.journal.verify import verify
from abcd.trust import Home

from .helpers import added, note_id, stored_seq


def settled_home(count: int) -> None:
    for n in range(count):
        store.append_records(lambda _known, n=n: [added(note_id(n), f"lesson {n}")])
    compact.compact()


def test_appends_past_the_bound_ask_once_per_bound_crossed_not_on_every_append(
    abcd_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settled_home(1)
    asked: list[int] = []
    # Nothing compacts here, so the caches trail by every append: only the asks are counted.
    monkeypatch.setattr(compact, "compact_soon", lambda *_args: asked.append(len(asked)))
    for n in range(1, 3 * COMPACT_AFTER + 1):
        store.append_records(lambda _known, n=n: [added(note_id(n))])
    assert len(asked) == 3  # at 64, 128 and 192 events past the caches, not 129 times


@given(st.integers(0, 5 * COMPACT_AFTER), st.integers(1, 3 * COMPACT_AFTER))
def test_an_append_asks_exactly_when_it_carries_the_trail_past_a_multiple_of_the_bound(
    before: int, appended: int
) -> None:
    after = before + appended
    multiples_passed = [m for m in range(before + 1, after + 1) if m % COMPACT_AFTER == 0]
    assert store.crossed_bound(after, appended) == bool(multiples_passed)


def test_one_spaced_compaction_folds_in_what_lands_while_it_waits_then_leaves(
    abcd_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settled_home(1)
    monkeypatch.setattr(compact, "compact_soon", lambda *_args: None)  # no writer asks here
    view = abcd_home / "memory.json"
    first = view.stat().st_ino
    runner = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from abcd.journal.compact import compact; compact(sys.argv[1], None, 2.0)",
            str(abcd_home),
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while view.stat().st_ino == first and time.monotonic() < deadline:
        time.sleep(0.02)  # its first pass swaps the view in (the caches were up to date)
    assert view.stat().st_ino != first
    # A flood's worth lands in one batch while it waits out its spacing.
    store.append_records(lambda _known: [added(note_id(n)) for n in range(1, COMPACT_AFTER + 1)])
    assert stored_seq(abcd_home) == 1
    _, err = runner.communicate(timeout=60)
    assert runner.returncode == 0, err
    assert stored_seq(abcd_home) == COMPACT_AFTER + 1  # its second pass; a third found nothing
    home = Home.open(abcd_home)
    assert home is not None
    with home:
        assert verify(home).ok

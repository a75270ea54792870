"""Time the hook's lean journal reads on a journal of N added notes: the fold from zero
(`abcd.recall.machine._fold`, the path with no view) and the walk that finds a break
(`machine._links`, the path taken when a segment changed since the head line).

Run it once per tree to compare them, alternating (the machine is shared and noisy):

    PYTHONPATH=<tree>/src .venv/bin/python tools/bench_lean_fold.py --home /tmp/lean-home

The home is built on the first run (10,000 notes by default) and reused after.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def build(home: Path, notes: int) -> None:
    from abcd.journal import store
    from abcd.journal.events import NoteAdded

    body = "Run the tests with the race flag before you push; " * 3
    events = [
        NoteAdded(
            id=f"mem-{k:016d}",
            title=f"lesson {k} about the tests",
            body=body,
            recall=("test", "race"),
            root=None,
            origin="agent",
            written_by="Claude:m",
            session="s",
        )
        for k in range(notes)
    ]
    store.append(lambda _view: events, home)


def best_ms(run: Callable[[Any], object], home: Any, rounds: int) -> float:
    from abcd.journal.segments import Segments

    best = float("inf")
    for _ in range(rounds):
        with Segments(home) as segs:
            start = time.perf_counter()
            run(segs)
            best = min(best, time.perf_counter() - start)
    return best * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    os.environ["ABCD_HOME"] = str(args.home)
    if not (args.home / "journal").exists():
        build(args.home, args.notes)
    from abcd.constants import ZERO_HASH
    from abcd.recall import machine
    from abcd.trust import Home

    home = Home.open(args.home)
    assert home is not None
    links = best_ms(machine._links, home, args.rounds)
    fold = best_ms(lambda segs: machine._fold(segs, {}, (1, 0, 0, ZERO_HASH)), home, args.rounds)
    print(f"walk for a break {links:.1f} ms; fold from zero {fold:.1f} ms (best of {args.rounds})")


if __name__ == "__main__":
    main()

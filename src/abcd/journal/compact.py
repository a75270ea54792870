"""Bringing the view and the recall index up to the journal, off the writers' path.

An append writes its lines and the head line (`abcd.journal.head`) and
nothing else, so its cost does not grow with the notes. Once the view or the
index trails the journal by `COMPACT_AFTER` events, the writer asks for a
compaction: in a small home (a view under `INLINE_BYTES`) it runs at once,
under the writer's lock, for the price of a few milliseconds; in a big one
the writer starts it as a detached process and returns.

The compaction folds the view and builds the index *without* the journal
lock (readers never take it, and writers go on appending meanwhile), then
takes the lock only to swap them in: it checks the journal still holds the
checkpoint it folded to and that nobody replaced the view in between, writes
the index and the view, and a head line for the journal's end (the lines
appended during the build trail the new view, as any do). One compaction at
a time: the writer locks `journal/.compact` and hands the locked descriptor
to the process it starts; a writer or a compaction that finds it locked
leaves. A writer asks only when its append carries the trail past a
multiple of `COMPACT_AFTER` (`store.crossed_bound`), so a flood asks once
per 64 events, not on every append; and the detached process keeps the lock
and compacts again, each pass `SPACING_SECONDS` after the last, while the
journal gained `COMPACT_AFTER` events past its last swap: one interpreter
and one pass a second keep up with a flood, the flood's tail included. A compaction's failure is not
reported (nobody waits for it): readers fold what the caches lack, and
`abcd journal rebuild` or `verify` say what is wrong.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from abcd.constants import FILE_MODE
from abcd.digest import file_stamp
from abcd.errors import AbcdError
from abcd.journal import store
from abcd.journal.head import COMPACT_AFTER
from abcd.journal.segments import Segments
from abcd.recall.index import INDEX_FILE, index_bytes
from abcd.trust import Home
from abcd.trust.guarded import open_at

COMPACT_LOCK = ".compact"
# Below this size of the view (~130 notes), a compaction costs the writer ~5 ms: it runs it inline.
# Above it, starting the detached one costs the writer ~0.3 ms (a 256 KiB inline one cost 11-14 ms).
INLINE_BYTES = 64 * 1024
# A detached compaction's passes start at least this many seconds apart (issue 13: each pass is
# ~0.15 s of CPU at 2,000 notes, and back to back they cost a flooding writer two thirds of its rate).
SPACING_SECONDS = 1.0


def _try_lock(segs: Segments) -> int | None:
    """A descriptor holding `journal/.compact` (one compaction at a time), or `None` if held."""
    import fcntl

    assert segs.dfd is not None
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = open_at(COMPACT_LOCK, flags, FILE_MODE, segs.dfd)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


@contextmanager
def _only_one(segs: Segments, held: int | None) -> Iterator[bool]:
    """Whether this process holds `journal/.compact`: `held` is a descriptor on it, locked by the
    writer that started this process and handed down (so no second one starts meanwhile)."""
    fd = held if held is not None else _try_lock(segs)
    try:
        yield fd is not None
    finally:
        if fd is not None:
            os.close(fd)


def compact(
    home_path: str | os.PathLike[str] | None = None, held: int | None = None, spacing: float = 0
) -> bool:
    """Fold the view and build the index outside the lock, swap them in under it; whether it did.

    With `spacing`, the process keeps `journal/.compact` and compacts again,
    each pass starting `spacing` seconds after the last, while the journal has
    gained `COMPACT_AFTER` events past the last swap: a flood of appends is
    compacted by one process, a pass a `spacing`, not by one after another.
    A break (the journal no longer holds a witness) raises, named as
    `journal verify` names it; a view replaced while this one was built (a
    rebuild, a recover, another compaction) leaves everything as it is.
    """
    home = Home.open(home_path)
    if home is None:
        return False
    with home, Segments(home) as segs:
        if segs.dfd is None:
            return False
        with _only_one(segs, held) as mine:
            if not mine:
                return False
            started = time.monotonic()
            swapped = _swap(home, 0)
            done = swapped
            while done is not None and spacing > 0:
                time.sleep(max(0.0, started + spacing - time.monotonic()))
                started = time.monotonic()
                done = _swap(home, done)
            return swapped is not None


def _swap(home: Home, after: int) -> int | None:
    """One pass, under `journal/.compact`: the sequence number the caches were brought up to, or
    `None` if they were not (nothing to fold, or past `after` not yet `COMPACT_AFTER` events)."""
    with Segments(home) as segs:
        before = _view_stamp(home)
        view = store.load(home).view
        cp = view.journal
        if not cp.seq or (after and cp.seq - after < COMPACT_AFTER):
            return None
        encoded = store.bounded(view)
        checkpoint = (cp.segment, cp.offset, cp.seq, cp.head)
        built = index_bytes(home, view.notes, checkpoint, view.removed)
        with store.journal_lock(segs):
            store.open_for_write(home, segs)
            if _view_stamp(home) != before or not segs.holds(cp.segment, cp.offset, cp.head):
                return None  # the view was replaced, or the journal cut, meanwhile
            end, _ = store.journal_end(home, segs, checkpoint)
            home.write_atomic(INDEX_FILE, built)
            store.write_view(home, view, encoded, end)
            return cp.seq


def _view_stamp(home: Home) -> str | None:
    opened = home.open_file(store.VIEW_FILE)
    if opened is None:
        return None
    os.close(opened[0])
    return file_stamp(opened[1])


def compact_soon(home: Home, view_bytes: int, warnings: list[str] | None) -> None:
    """Called by a writer, under its lock, once the caches trail by `COMPACT_AFTER` events: inline
    in a small home, else a detached `python -P -m abcd.journal.compact` (unless one is running)."""
    if view_bytes < INLINE_BYTES:
        store.compact_inline(home, warnings)
        return
    start_compaction(home, warnings)


def start_compaction(home: Home, warnings: list[str] | None) -> None:
    """A detached `python -P -m abcd.journal.compact`, unless one is running: a writer's, past the
    bound, and the session-start hook's when the index trails by the bound (one that was asked
    for died)."""
    with Segments(home) as segs:
        if segs.dfd is None:
            return
        fd = _try_lock(segs)
    if fd is None:
        return  # one is running: the next writer past the bound asks again
    try:
        # `-m` would put the working folder (a checkout, say) first on the child's path, and its
        # own `abcd` would run; `-P` leaves it off, and the home, ours alone, is the child's.
        subprocess.Popen(
            [sys.executable, "-P", "-m", "abcd.journal.compact", home.path, str(fd)],
            cwd=home.path,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            pass_fds=(fd,),  # the child holds the lock from here on
        )
    except OSError as err:
        if warnings is not None:
            warnings.append(f"the view was not compacted ({err.strerror}); readers fold the rest")
    finally:
        os.close(fd)


def main(argv: list[str]) -> int:
    try:
        held = int(argv[2]) if len(argv) > 2 else None
        # Started by a writer (it hands down the lock): spaced passes while a flood lasts.
        compact(
            argv[1] if len(argv) > 1 else None, held, SPACING_SECONDS if held is not None else 0
        )
    except (AbcdError, OSError) as err:
        print(f"abcd: compaction: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

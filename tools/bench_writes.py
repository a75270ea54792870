#!/usr/bin/env python3
"""Benchmark of writes in a big home (issue 13's last part), every figure measured in one run.

    .venv/bin/python tools/bench_writes.py [--notes 100000] [--adds 70] [--appends 2000]
                                           [--root DIR] [--only adds|appends|one]

1. `abcd memory add` (the installed console script, a fresh process each)
   into an empty home and into a home of `--notes` notes, alternating,
   `--adds` times each: the medians, their ratio (target <= 1.5x), and the
   worst add into the big home (none may pay a whole rewrite of the view or
   the index: the run crosses `COMPACT_AFTER`, so a compaction starts during
   it, off the writers' path).
2. Single-event appends through the store in one process (`--appends`, with
   `fsync`, into an empty home; target >= 2,000/s), and 4 processes each
   appending a quarter at once (target >= 1,000/s in total, wall time
   including interpreter start). Beside them, in the same run: the disk's
   ceiling (bare 500-byte writes, each `fsync`ed, before and after the
   appends, since it swings), the CPU time of one append, and the rate with
   `os.fsync` stubbed out in the worker (what the code costs without the
   disk's flush; compactions run as in the real one), and the rate with
   `fsync` but no compaction asked for (`COMPACT_AFTER` raised in the worker:
   what the compactions every 64 appends cost the writers).

3. `--only one`: the system calls of a single append under `strace` (the
   71st into a home, so past an inline compaction): how many, how many
   `open`s, how many bytes read.

`--root DIR` builds the big home there (`tools/bench_hook.py`'s builder), or
reuses it; the adds leave it trailing, and the next run compacts it first.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_hook import build, settle
from benchlib import at_once

PY = sys.executable
ABCD = str(Path(PY).parent / "abcd")

APPEND_WORKER = """
import os, sys, time
if "nofsync" in sys.argv[3:]:
    os.fsync = lambda fd: None  # the CPU's own ceiling: everything but the disk's flush
from abcd.journal import store
if "nocompact" in sys.argv[3:]:
    store.COMPACT_AFTER = 10**9  # the append path alone: no compaction is asked for
from abcd.journal.events import NoteAdded
count, tag = int(sys.argv[1]), sys.argv[2]
def note(n):
    return NoteAdded(id=f"mem-{tag}{n:012d}", title=f"lesson {n}", body="b" * 300, recall=("race",),
                     root=None, origin="agent", written_by="Claude:claude-opus-4-8", session="s")
start, cpu = time.perf_counter(), time.process_time()
for n in range(count):
    store.append_records(lambda _known, e=note(n): [e])
print(time.perf_counter() - start, time.process_time() - cpu)
"""


def _add(home: Path, repo: Path, n: int) -> float:
    env = dict(os.environ, ABCD_HOME=str(home), CLAUDE_CODE_SESSION_ID="bench-writes")
    start = time.perf_counter()
    subprocess.run(
        [
            ABCD,
            "memory",
            "add",
            "--title",
            f"lesson {n}",
            "--recall",
            "deploy",
            "--by",
            "Claude:claude-opus-4-8",
        ],
        input=f"Run the deploy dry-run first ({n}).",
        env=env,
        cwd=repo,
        text=True,
        capture_output=True,
        check=True,
    )
    return time.perf_counter() - start


def bench_adds(root: Path, notes: int, adds: int) -> None:
    if (root / "home").is_dir():
        big, repo = root / "home", root / "project"
        settle(big)  # what an earlier run left trailing
    else:
        root.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        big, repo = build(root, notes)
        print(f"built {notes:,} notes in {time.perf_counter() - started:.0f} s")
    empty = Path(tempfile.mkdtemp()) / "home"
    small, large = [], []
    for n in range(adds):
        small.append(_add(empty, repo, n))
        large.append(_add(big, repo, n))
    ratio = statistics.median(large) / statistics.median(small)
    print(
        f"add: `abcd memory add`, medians of {adds}: empty home {statistics.median(small) * 1e3:.0f}"
        f" ms, {notes:,}-note home {statistics.median(large) * 1e3:.0f} ms: {ratio:.2f}x "
        "(target <= 1.5x)"
    )
    print(
        f"add: worst into the {notes:,}-note home {max(large) * 1e3:.0f} ms (empty home's worst "
        f"{max(small) * 1e3:.0f} ms); no add rewrites the view or the index"
    )
    shutil.rmtree(empty.parent, ignore_errors=True)


def _rate(home: Path, count: int, tag: str, *extra: str) -> tuple[float, float]:
    """Appends per second in one process, and the CPU (user + system) of one append in ms."""
    env = dict(os.environ, ABCD_HOME=str(home))
    out = subprocess.run(
        [PY, "-c", APPEND_WORKER, str(count), tag, *extra],
        env=env,
        text=True,
        capture_output=True,
        check=True,
    ).stdout
    wall, cpu = map(float, out.split())
    return count / wall, cpu / count * 1e3


def bare_rate(folder: Path, count: int) -> float:
    """The disk's own ceiling: `count` appends of a journal-sized line, each `fsync`ed."""
    fd = os.open(folder / "bare", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    line = b"x" * 500 + b"\n"
    start = time.perf_counter()
    for _ in range(count):
        os.write(fd, line)
        os.fsync(fd)
    elapsed = time.perf_counter() - start
    os.close(fd)
    return count / elapsed


def bench_appends(count: int, procs: int = 4) -> None:
    scratch = Path(tempfile.mkdtemp())
    print(
        f"append: the disk's ceiling, {count:,} bare 500-byte writes each with fsync: "
        f"{bare_rate(scratch, count):,.0f}/s"
    )
    single, cpu = _rate(scratch / "one", count, "1000")
    print(
        f"append: one process, {count:,} single-event appends with fsync into an empty home: "
        f"{single:,.0f} events/s (target >= 2,000), {cpu:.3f} ms of CPU each"
    )
    bare, cpu = _rate(scratch / "cpu", count, "3000", "nofsync")
    print(
        f"append: the same with fsync stubbed out (the CPU's ceiling): {bare:,.0f} events/s, "
        f"{cpu:.3f} ms of CPU each"
    )
    alone, cpu = _rate(scratch / "alone", count, "4000", "nocompact")
    print(
        "append: the same with fsync, no compaction asked for (the append path alone): "
        f"{alone:,.0f} events/s, {cpu:.3f} ms of CPU each"
    )
    print(f"append: the disk's ceiling again, after them: {bare_rate(scratch, count):,.0f}/s")
    env = dict(os.environ, ABCD_HOME=str(scratch / "many"))
    per = count // procs
    total = at_once(
        [[PY, "-c", APPEND_WORKER, str(per), str(2000 + i)] for i in range(procs)], env=env
    )
    print(
        f"append: {procs} processes x {per:,} single-event appends at once: "
        f"{procs * per / total:,.0f} events/s in total (target >= 1,000), wall {total:.2f} s "
        "including interpreter start"
    )
    shutil.rmtree(scratch, ignore_errors=True)


ONE_APPEND = """
import os, sys
from abcd.journal import store
from abcd.journal.events import NoteAdded
def note(n):
    return NoteAdded(id=f"mem-5{n:012d}", title=f"lesson {n}", body="b" * 300, recall=("race",),
                     root=None, origin="agent", written_by="Claude:claude-opus-4-8", session="s")
for n in range(70):
    store.append_records(lambda _known, e=note(n): [e])
os.path.exists("/abcd-bench-one-append-start")
store.append_records(lambda _known, e=note(70): [e])
os.path.exists("/abcd-bench-one-append-end")
"""


def trace_one() -> None:
    """The system calls of one append (the 71st into a home, past a compaction), by `strace`."""
    scratch = Path(tempfile.mkdtemp())
    trace = scratch / "trace"
    env = dict(os.environ, ABCD_HOME=str(scratch / "home"))
    subprocess.run(["strace", "-o", str(trace), PY, "-c", ONE_APPEND], env=env, check=True)
    between = trace.read_text().split("/abcd-bench-one-append-start", 1)[1]
    calls = between.split("/abcd-bench-one-append-end", 1)[0].splitlines()[1:-1]
    opens = sum(c.startswith("openat(") for c in calls)
    read = sum(int(c.rsplit("= ", 1)[1]) for c in calls if c.startswith("pread64("))
    print(f"one append: {len(calls)} system calls, {opens} opens, {read:,} bytes read by pread")
    shutil.rmtree(scratch, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=100_000)
    parser.add_argument("--adds", type=int, default=70)
    parser.add_argument("--appends", type=int, default=2000)
    parser.add_argument("--root", type=Path, help="build the big home here, or reuse it")
    parser.add_argument("--only", choices=("adds", "appends", "one"))
    args = parser.parse_args()
    if args.only == "one":
        trace_one()
        return 0
    if args.only != "appends":
        bench_adds(args.root or Path(tempfile.mkdtemp()), args.notes, args.adds)
    if args.only != "adds":
        bench_appends(args.appends)
    return 0


if __name__ == "__main__":
    sys.exit(main())

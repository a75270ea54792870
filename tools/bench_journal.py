#!/usr/bin/env python3
"""Benchmarks for the journal (issue 2's targets), each a ratio measured in one run.

    .venv/bin/python tools/bench_journal.py add       # `abcd memory add` vs a minimal typer command
    .venv/bin/python tools/bench_journal.py append    # in-process appends/s; 4 processes at once
    .venv/bin/python tools/bench_journal.py rebuild   # 1,000,000-event rebuild vs a bare decode loop
    .venv/bin/python tools/bench_journal.py all

Figures go to stdout; docs/performance.md records them with this command.
Never a test: these machines are shared and noisy.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from benchlib import at_once, one_commit_repo, timed

HERE = Path(__file__).resolve().parent
PY = sys.executable
BY = "Claude:claude-opus-4-8"


def bench_add(runs: int = 30) -> None:
    scratch = Path(tempfile.mkdtemp())
    project = scratch / "project"
    project.mkdir()
    one_commit_repo(project)
    minimal = scratch / "minimal_typer.py"
    minimal.write_text(
        textwrap.dedent("""
        import typer
        app = typer.Typer()
        @app.command()
        def hello(name: str = "x") -> None:
            print(name)
        app()
    """)
    )
    env = dict(os.environ, ABCD_HOME=str(scratch / "home"), CLAUDE_CODE_SESSION_ID="bench-session")
    abcd = [
        PY,
        "-m",
        "abcd",
        "memory",
        "add",
        "--title",
        "The tests need the race flag",
        "--recall",
        "test",
        "--recall",
        "race",
        "--by",
        BY,
    ]
    body = "Run go test -race ./... before saying the tests pass. " * 20
    for _ in range(3):  # warm the page cache
        timed([PY, str(minimal)], env=env, cwd=project)
        timed(abcd, stdin=body, env=env, cwd=project)
    base, ours = [], []
    for _ in range(runs):
        base.append(timed([PY, str(minimal)], env=env, cwd=project))
        ours.append(timed(abcd, stdin=body, env=env, cwd=project))
    mb, mo = statistics.median(base), statistics.median(ours)
    print(
        f"add: minimal typer command median {mb * 1000:.1f} ms; "
        f"`abcd memory add` median {mo * 1000:.1f} ms; ratio {mo / mb:.2f}x (target <= 1.5x), {runs} runs each"
    )


APPEND_WORKER = """
import sys, time
from abcd.journal import store
from abcd.journal.events import NoteAdded
count, tag, batch = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
def note(n):
    return NoteAdded(id=f"mem-{tag}{n:012d}", title=f"lesson {n}", body="b" * 300, recall=("race",),
                     root=None, origin="agent", written_by="Claude:claude-opus-4-8", session="s")
start = time.perf_counter()
for n in range(0, count, batch):
    events = [note(m) for m in range(n, min(n + batch, count))]
    store.append_records(lambda _known, events=events: events)
print(time.perf_counter() - start)
"""


def _append_rate(home: Path, count: int, tag: str, batch: int = 1) -> float:
    env = dict(os.environ, ABCD_HOME=str(home))
    out = subprocess.run(
        [PY, "-c", APPEND_WORKER, str(count), tag, str(batch)],
        env=env,
        text=True,
        capture_output=True,
        check=True,
    ).stdout
    return count / float(out)


def bench_append(count: int = 2000, procs: int = 4) -> None:
    scratch = Path(tempfile.mkdtemp())
    single = _append_rate(scratch / "one", count, "1000")
    print(
        f"append: one process, {count} single-event appends with fsync into an empty home "
        f"(the view grows to {count} notes, ~1 MB): {single:,.0f} events/s (target >= 2,000)"
    )
    small = _append_rate(scratch / "small", 200, "1100")
    print(f"append: the same, first 200 appends only (view under 100 KB): {small:,.0f} events/s")
    batched = _append_rate(scratch / "batched", count, "1200", batch=100)
    print(
        f"append: one process, {count} events in appends of 100 (as `memory import` does): "
        f"{batched:,.0f} events/s"
    )
    env = dict(os.environ, ABCD_HOME=str(scratch / "many"))
    per = count // procs
    total = at_once(
        [[PY, "-c", APPEND_WORKER, str(per), str(2000 + i), "1"] for i in range(procs)], env=env
    )
    print(
        f"append: {procs} processes x {per} single-event appends at once: "
        f"{procs * per / total:,.0f} events/s in total (target >= 1,000), wall {total:.2f} s "
        f"including interpreter start"
    )


GENERATE = """
import sys
from pathlib import Path
from abcd.constants import SEGMENT_MAX_BYTES, ZERO_HASH
from abcd.journal.envelope import encode_line, line_hash
from abcd.journal.events import NoteAdded, NoteRemoved
home = Path(sys.argv[1]); total = int(sys.argv[2]); live_cap = 10_000
(home / "journal").mkdir(parents=True, mode=0o700)
home.chmod(0o700)
seg, size, head, live, out = 1, 0, ZERO_HASH, [], []
handle = open(home / "journal" / f"{seg:06d}.jsonl", "wb")
next_id = 0
for seq in range(1, total + 1):
    if len(live) >= live_cap or (seq > 2 * live_cap and seq % 2 == 0):
        ev = NoteRemoved(id=live.pop(0), removed_by="person", session="bench")
    else:
        nid = f"mem-{next_id:016d}"; next_id += 1; live.append(nid)
        ev = NoteAdded(id=nid, title=f"lesson {nid}", body="Run the suite with the race flag. " * 4,
                       recall=("test", "race"), root=None, origin="agent",
                       written_by="Claude:claude-opus-4-8", session="bench")
    line = encode_line(seq, "2026-11-29T12:00:00.000000Z", head, ev)
    head = line_hash(line)
    if size and size + len(line) + 1 > SEGMENT_MAX_BYTES:
        handle.close(); seg += 1; size = 0
        handle = open(home / "journal" / f"{seg:06d}.jsonl", "wb")
    handle.write(line + b"\\n"); size += len(line) + 1
handle.close()
for p in (home / "journal").iterdir(): p.chmod(0o600)
"""

BARE = """
import resource, sys, time
from pathlib import Path
import msgspec
home = Path(sys.argv[1])
decode = msgspec.json.decode
start = time.perf_counter(); n = 0
for seg in sorted((home / "journal").glob("*.jsonl")):
    for line in seg.read_bytes().splitlines():
        decode(line); n += 1
print(time.perf_counter() - start, n, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""

REBUILD = """
import resource, sys, time
from abcd.journal import store
start = time.perf_counter()
old, new = store.rebuild(sys.argv[1])
print(time.perf_counter() - start, new.journal.seq, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
      len(new.notes))
"""


def bench_rebuild(total: int = 1_000_000, rounds: int = 3) -> None:
    scratch = Path(tempfile.mkdtemp())
    home = scratch / "home"
    start = time.perf_counter()
    subprocess.run([PY, "-c", GENERATE, str(home), str(total)], check=True)
    size = sum(p.stat().st_size for p in (home / "journal").iterdir())
    print(
        f"rebuild: generated {total:,} events ({size / 2**20:.0f} MiB, "
        f"{len(list((home / 'journal').iterdir()))} segments) in {time.perf_counter() - start:.1f} s"
    )
    bare, ours = [], []
    for _ in range(rounds):
        b = subprocess.run(
            [PY, "-c", BARE, str(home)], text=True, capture_output=True, check=True
        ).stdout.split()
        o = subprocess.run(
            [PY, "-c", REBUILD, str(home)], text=True, capture_output=True, check=True
        ).stdout.split()
        bare.append((float(b[0]), int(b[2])))
        ours.append((float(o[0]), int(o[2]), int(o[3])))
    mb = statistics.median(t for t, _ in bare)
    mo = statistics.median(t for t, _, _ in ours)
    peak = max(m for _, m, _ in ours) / 1024
    print(
        f"rebuild: bare msgspec decode loop median {mb:.2f} s; rebuild (chain checked, folded, view "
        f"written: {ours[0][2]:,} live notes) median {mo:.2f} s; ratio {mo / mb:.2f}x (target <= 2.5x); "
        f"peak RSS {peak:.0f} MiB (target < 1024 MiB), {rounds} rounds"
    )


def main(argv: list[str]) -> int:
    which = argv[0] if argv else "all"
    if which in ("add", "all"):
        bench_add()
    if which in ("append", "all"):
        bench_append()
    if which in ("rebuild", "all"):
        bench_rebuild()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

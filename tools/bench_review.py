#!/usr/bin/env python3
"""How long the desk (`abcd review`) takes to answer each page, for homes of a given size.

    .venv/bin/python tools/bench_review.py            # 100 and 1,000 notes
    .venv/bin/python tools/bench_review.py 5000       # one size

Each size gets a fresh home and checkout, its notes written by `abcd memory import`
in one batch (a tenth revised through the desk's core, so histories are not all one
event), then a desk served from a thread answers real HTTP requests; the median of
ten requests per page is printed, in milliseconds. Figures go to
docs/performance.md with this command. Never a test: these machines are shared and noisy.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import one_commit_repo

PY = sys.executable
RUNS = 10
# Words enough that notes differ as real ones do; every 20th note rewords the one before it,
# so the queue has near-duplicates to pair, as a real home does.
SYLLABLES = "ka lo mi ne ru sa ti vo be da fu gi".split()
WORDS = [a + b + c for a in SYLLABLES for b in SYLLABLES for c in SYLLABLES[:4]]
TWIN_EVERY = 20


def _notes(count: int) -> str:
    rng = random.Random(14)
    lines = []
    previous: list[str] = []
    for n in range(count):
        if n % TWIN_EVERY == TWIN_EVERY - 1 and previous:
            words = [*previous[:-1], rng.choice(WORDS)]
        else:
            words = rng.sample(WORDS, 12)
        previous = words
        lines.append(
            json.dumps({"title": " ".join(words[:5]), "body": " ".join(words), "recall": words[:2]})
        )
    return "\n".join(lines) + "\n"


def _get(port: int, path: str, cookie: str) -> float:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    start = time.perf_counter()
    conn.request("GET", path, headers={"Cookie": cookie})
    response = conn.getresponse()
    response.read()
    took = time.perf_counter() - start
    conn.close()
    if response.status != 200:
        raise SystemExit(f"GET {path}: {response.status}")
    return took


def bench(count: int) -> None:
    scratch = Path(tempfile.mkdtemp())
    project = scratch / "project"
    project.mkdir()
    one_commit_repo(project)
    os.environ["ABCD_HOME"] = str(scratch / "home")
    os.chdir(project)
    subprocess.run(
        [
            PY,
            "-m",
            "abcd",
            "memory",
            "import",
            "-",
            "--by",
            "Claude:claude-opus-4-8",
            "--session",
            "bench-session",
        ],
        input=_notes(count),
        text=True,
        capture_output=True,
        check=True,
    )
    from abcd.notes import desk
    from abcd.web.run import start

    queue = desk.queue(None)
    for item in queue[: max(1, count // 10)]:
        desk.revise(item.note.id, by="person", title=item.note.title + " (revised)")
    server = start()
    server.start_in_thread()
    cookie = f"{server.cookie}={server.guard.token}"
    some = queue[0].note.id
    pages = {
        "queue /": "/",
        "notes /notes": "/notes",
        "search /notes?search=WORD": f"/notes?search={WORDS[7]}",
        "a note /notes/ID": f"/notes/{some}",
        "journal /journal": "/journal",
        "replay /journal?seq=half": f"/journal?seq={count // 2}",
    }
    print(f"{count} notes ({count + max(1, count // 10)} events):")
    for name, path in pages.items():
        # Every page lives under the run's own folder (`abcd.web.guard.mint_root`).
        times = [_get(server.guard.port, server.root + path, cookie) for _ in range(RUNS)]
        print(f"  {name:32} median {statistics.median(times) * 1000:8.1f} ms")
    server.shutdown()
    server.server_close()


def main() -> None:
    sizes = [int(arg) for arg in sys.argv[1:]] or [100, 1000]
    for size in sizes:
        bench(size)


if __name__ == "__main__":
    main()

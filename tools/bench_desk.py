#!/usr/bin/env python3
"""The reviewer's desk on a crowded home: 10,000 notes, 200 session ledgers of sends.

    .venv/bin/python tools/bench_desk.py

Times, as fresh processes (median of 5): `abcd memory show ID --json` (a
journal walk and every ledger read), `abcd memory list --unreviewed`,
`abcd memory revise` (which rewrites the recall index whole), `abcd memory
keep`, and the queue in one process (`abcd.notes.desk.queue`). Figures go to stdout;
docs/performance.md records them with this command. Never a test: these
machines are shared and noisy.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchlib import one_commit_repo, timed

PY = sys.executable
BY = "Claude:claude-opus-4-8"
NOTES = 10_000
SESSIONS = 200
SENDS_PER_SESSION = 40
RUNS = 5


def _home(scratch: Path, project: Path, env: dict[str, str]) -> list[str]:
    lines = "".join(
        json.dumps({"title": f"Lesson {n}", "body": f"Body of lesson {n}.", "recall": [f"w{n}"]})
        + "\n"
        for n in range(NOTES)
    )
    source = scratch / "notes.jsonl"
    source.write_text(lines)
    subprocess.run(
        [PY, "-m", "abcd", "memory", "import", str(source), "--by", BY],
        env=env, cwd=project, check=True, capture_output=True,
    )  # fmt: skip
    listed = subprocess.run(
        [PY, "-m", "abcd", "memory", "list", "--json"],
        env=env, cwd=project, check=True, capture_output=True, text=True,
    )  # fmt: skip
    ids: list[str] = [n["id"] for n in json.loads(listed.stdout)["notes"]]
    sessions = Path(env["ABCD_HOME"]) / "sessions"
    sessions.mkdir(exist_ok=True)
    from abcd.session.files import file_name

    for s in range(SESSIONS):
        rows = [{"v": 1, "at": "2026-12-01T00:00:00.000000Z", "type": "prompt.seen", "data": {}}]
        for k in range(SENDS_PER_SESSION):
            rows.append(
                {"v": 1, "at": f"2026-12-01T00:00:{k:02d}.000000Z", "type": "item.recalled",
                 "data": {"key": ids[(s * 7 + k) % len(ids)], "signature": "0" * 32,
                          "form": "full"}}
            )  # fmt: skip
        (sessions / file_name(f"session-{s}")).write_text(
            "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows)
        )
    return ids


def main() -> None:
    scratch = Path(tempfile.mkdtemp())
    project = scratch / "project"
    project.mkdir()
    one_commit_repo(project)
    env = dict(os.environ, ABCD_HOME=str(scratch / "home"), CLAUDE_CODE_SESSION_ID="bench")
    ids = _home(scratch, project, env)
    note_id = ids[0]
    abcd = [PY, "-m", "abcd"]
    for label, args in (
        ("memory show ID --json", ["memory", "show", note_id, "--json"]),
        ("memory list --unreviewed --json", ["memory", "list", "--unreviewed", "--json"]),
    ):
        times = [timed(abcd + args, env=env, cwd=project) for _ in range(RUNS)]
        print(f"{label}: median {statistics.median(times) * 1000:.0f} ms over {RUNS} runs")
    revise = [
        timed([*abcd, "memory", "revise", note_id, "--by", "person"], stdin=f"Text {n}.",
              env=env, cwd=project)
        for n in range(RUNS)
    ]  # fmt: skip
    print(f"memory revise ID: median {statistics.median(revise) * 1000:.0f} ms over {RUNS} runs")
    others = ids[1 : RUNS + 1]
    keep = [timed([*abcd, "memory", "keep", i], env=env, cwd=project) for i in others]
    print(f"memory keep ID: median {statistics.median(keep) * 1000:.0f} ms over {RUNS} runs")
    queue = (
        "import time; from abcd.notes import desk; from abcd.repo import find_repo; "
        "t = time.perf_counter(); q = desk.queue(find_repo()); "
        "print(f'{(time.perf_counter() - t) * 1000:.0f} {len(q)}')"
    )
    runs = [
        subprocess.run(
            [PY, "-c", queue], env=env, cwd=project, check=True, capture_output=True, text=True
        ).stdout.split()
        for _ in range(RUNS)
    ]
    ms = statistics.median(float(r[0]) for r in runs)
    print(f"desk.queue() in process: median {ms:.0f} ms over {RUNS} runs ({runs[0][1]} waiting)")
    print(f"home: {NOTES} notes, {SESSIONS} ledgers x {SENDS_PER_SESSION} sends")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The prompt hook, the status line and the session-start hook on dimensions other than the
personal notes' count, each grown on its own over a copy of one home (seventeenth round).

    .venv/bin/python tools/bench_scale.py --base ROOT DIMENSION SIZE [--runs 15] [--work DIR]

`ROOT` is a home built by `tools/bench_hook.py --crowd --root ROOT` (`ROOT/home`,
`ROOT/project`); it is copied to `DIR` (default `/tmp/bench-scale-<dimension>-<size>`, reused
when it exists) and grown there along one dimension:

- `pages N`: N personal pages in `<home>/memory/` (each ~300 words, recall words as the crowd's);
- `project-notes N`: `<repo>/.abcd/memory.json` holds N notes instead of 200;
- `rules N`: N rule domains of 4 rules each in `<repo>/.abcd/rules.json` (within its bound);
- `prompt-varied KB`, `prompt-repeat KB`: the typical prompt followed by KB KiB of varied words
  (the vocabulary's), or of one word repeated;
- `session N`: the timed prompts are the 1st, 2nd, ... after N earlier prompts of one session,
  whose ledger and fill file hold what such a session writes (each prompt recalling three items
  and sending one rule domain, the status line reading a new figure 10 times a prompt, a reset
  every 15 prompts as the hook's backstop makes), written with the hook's own codec;
- `sessions N`: N past sessions' ledgers and fill files in the home (the session-start hook's
  sweep lists them);
- `lag N`: N `note.added` events in the journal past the index and the view (compaction held
  off), as a crash between a write and its compaction leaves them.

Each run times `abcd hook prompt-router` (after `abcd hook session-start`, untimed, unless the
dimension is `session`), then `abcd statusline` and `abcd hook session-start` of the same
session, then `python -I -c pass`, alternating; it prints each one's median, its ratio to
`pass`, its peak RSS (`/usr/bin/time -f %M`, one extra run), and any stderr line.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from bench_hook import (
    COMMON,
    CROWD_WORD,
    TOPICS,
    VOCABULARY,
    WEIGHTS,
    notes_added,
    recall_words,
    sentence,
)
from benchlib import TYPICAL_PROMPT, as_installed, start_session

PY = sys.executable
ABCD = str(Path(PY).parent / "abcd")


def grow(dimension: str, size: int, home: Path, repo: Path) -> str:
    """Grow the copy along `dimension`; the prompt to time."""
    rng = random.Random(17)
    prompt = TYPICAL_PROMPT
    if dimension == "pages":
        folder = home / "memory"
        folder.mkdir(mode=0o700, exist_ok=True)
        for n in range(size):
            recall = ", ".join(recall_words(rng, crowd=True))
            page = folder / f"ref_topic_home{n}.md"
            page.write_text(
                f"---\nrecall: [{recall}]\nsummary: {sentence(rng, 6)}\n---\n# Page {n}\n"
                f"{sentence(rng, 300)}\n"
            )
            page.chmod(0o600)
    elif dimension == "project-notes":
        notes = [
            {
                "id": f"mem-{n:016d}",
                "title": sentence(rng, 6),
                "body": sentence(rng, 40),
                "recall": recall_words(rng, crowd=True),
            }
            for n in range(10**9, 10**9 + size)
        ]
        (repo / ".abcd" / "memory.json").write_text(
            json.dumps({"schema_version": 1, "notes": notes})
        )
    elif dimension == "rules":
        domains = {
            f"DOMAIN_{n}": {
                "recall": [*rng.sample(TOPICS, 2), rng.choice(VOCABULARY)],
                "rules": [sentence(rng, 12) for _ in range(4)],
            }
            for n in range(size)
        }
        (repo / ".abcd" / "rules.json").write_text(
            json.dumps({"schema_version": 1, "domains": domains})
        )
    elif dimension in ("prompt-varied", "prompt-repeat"):
        words: list[str] = []
        length = 0
        while length < size * 1024:
            word = (
                rng.choice(rng.choices(VOCABULARY, WEIGHTS, k=1) + COMMON + TOPICS)
                if dimension == "prompt-varied"
                else CROWD_WORD
            )
            words.append(word)
            length += len(word) + 1
        prompt = f"{TYPICAL_PROMPT} {' '.join(words)}"
    elif dimension in ("session", "sessions"):
        pass  # written by `ledgers`, which needs the session ids
    elif dimension == "lag":
        lag(home, size, rng)
    else:
        raise SystemExit(f"unknown dimension {dimension!r}")
    return prompt


def lag(home: Path, size: int, rng: random.Random) -> None:
    """`size` note.added events appended past the index and view, compaction never run."""
    os.environ["ABCD_HOME"] = str(home)
    from abcd.journal import store
    from abcd.journal.events import NoteAdded

    batch = notes_added(rng, range(2 * 10**9, 2 * 10**9 + size), [None], crowd=True)

    def plan_of(chunk: list[NoteAdded]) -> Callable[[object], list[NoteAdded]]:
        return lambda _known: chunk

    # Held, the compaction's lock makes every writer's compaction leave at once: the view and
    # the index trail the journal as after a compaction that died (killed, a full disk).
    import fcntl

    lock = os.open(home / "journal" / ".compact", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        for start in range(0, size, 1000):
            store.append_records(plan_of(batch[start : start + 1000]), projections=())
    finally:
        os.close(lock)


def ledgers(home: Path, session: str, prompts: int) -> None:
    """What `prompts` prompts of one session write: the hook's ledger, the status line's fill."""
    from abcd.session.events import (
        DomainInjected,
        FillRead,
        FillUsed,
        ItemRecalled,
        PromptSeen,
        RepoSeen,
        SessionEvent,
        SessionReset,
        encode_session_line,
    )
    from abcd.session.files import file_name

    ledger, fill = bytearray(), bytearray()
    for n in range(prompts):
        stamp = f"2026-12-03T12:{n // 60 % 60:02d}:{n % 60:02d}.{n:06d}Z"
        events: list[SessionEvent] = []
        if n % 15 == 0:
            events += [SessionReset(reason="backstop"), RepoSeen(top="/x", root="a" * 40)]
        events += [PromptSeen(), FillUsed(percent=40.0, source="statusline")]
        events += [DomainInjected(name="DOMAIN_1", signature="b" * 64, form="full")]
        events += [
            ItemRecalled(key=f"mem-{n * 3 + k:016d}", signature="c" * 64, form="full")
            for k in range(3)
        ]
        ledger += b"".join(encode_session_line(stamp, e) for e in events)
        fill += b"".join(
            encode_session_line(stamp, FillRead(used_percentage=(n * 10 + k) % 1000 / 10))
            for k in range(10)
        )
    for folder, data in (("sessions", ledger), ("fill", fill)):
        (home / folder).mkdir(mode=0o700, exist_ok=True)
        path = home / folder / file_name(session)
        path.write_bytes(bytes(data))
        path.chmod(0o600)


def peak_kb(argv: list[str], stdin: str, env: dict[str, str], cwd: Path) -> tuple[int, str]:
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *argv],
        input=stdin,
        text=True,
        capture_output=True,
        env=env,
        cwd=cwd,
    )
    lines = done.stderr.strip().splitlines()
    return int(lines[-1]), "\n".join(lines[:-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", type=Path, required=True)
    parser.add_argument("dimension")
    parser.add_argument("size", type=int)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--work", type=Path)
    args = parser.parse_args()
    work = args.work or Path(f"/tmp/bench-scale-{args.dimension}-{args.size}")
    home, repo = work / "home", work / "project"
    fresh = not work.exists()
    if fresh:
        began = time.perf_counter()
        shutil.copytree(args.base, work, symlinks=True)
    prompt = grow(args.dimension, args.size, home, repo) if fresh else ""
    if not fresh:  # the prompt only, the home grown already
        prompt = grow(args.dimension, args.size, home, repo) if "prompt" in args.dimension else ""
        prompt = prompt or TYPICAL_PROMPT
    else:
        print(f"built in {time.perf_counter() - began:.1f} s")
    env = as_installed(ABCD_HOME=str(home))
    # A copied index is not the one its view names (another inode): a session start rebuilds it,
    # as it does after an upgrade, before anything is timed.
    start_session(ABCD, f"launcher-{os.getpid()}-setup", repo, env)
    if args.dimension == "sessions" and fresh:
        from abcd.session.files import file_name

        for folder in ("sessions", "fill"):
            (home / folder).mkdir(mode=0o700, exist_ok=True)
        seen = b'{"v":1,"at":"2026-12-03T12:00:00.000000Z","type":"prompt.seen","data":{}}\n'
        for n in range(args.size):
            for folder in ("sessions", "fill"):
                path = home / folder / file_name(f"past-{n}")
                path.write_bytes(seen * 40)
                path.chmod(0o600)
    hook = [ABCD, "hook", "prompt-router"]
    times: dict[str, list[float]] = {"hook": [], "statusline": [], "session-start": [], "pass": []}
    stderr: dict[str, set[str]] = {name: set() for name in times}
    long_session = f"launcher-{os.getpid()}-long"
    if args.dimension == "session":
        ledgers(home, long_session, args.size)

    def run(name: str, argv: list[str], stdin: str) -> None:
        began = time.perf_counter()
        done = subprocess.run(argv, input=stdin, text=True, capture_output=True, env=env, cwd=repo)
        times[name].append(time.perf_counter() - began)
        if done.returncode != 0:
            stderr[name].add(f"exit {done.returncode}")
        for line in done.stderr.splitlines():
            if "recalled" not in line or "failed" in line or "Traceback" in line:
                stderr[name].add(line[:300])

    for n in range(args.runs + 3):
        session = long_session if args.dimension == "session" else f"launcher-{os.getpid()}-{n}"
        if args.dimension != "session":
            start_session(ABCD, session, repo, env)
        payload = json.dumps({"session_id": session, "cwd": str(repo), "prompt": prompt})
        status = json.dumps(
            {
                "session_id": session,
                "model": {"id": "claude-opus-4-8", "display_name": "Opus"},
                "context_window": {"used_percentage": 40 + n % 3},
                "workspace": {"current_dir": str(repo)},
            }
        )
        start = json.dumps({"session_id": session, "cwd": str(repo), "source": "resume"})
        run("hook", hook, payload)
        run("statusline", [ABCD, "statusline"], status)
        run("session-start", [ABCD, "hook", "session-start"], start)
        run("pass", [PY, "-I", "-c", "pass"], "")
        if n < 3:  # the first runs warm the page cache and write the caches
            for name in times:
                times[name].pop()
    floor = statistics.median(times["pass"])
    session = long_session if args.dimension == "session" else f"launcher-{os.getpid()}-rss"
    if args.dimension != "session":
        start_session(ABCD, session, repo, env)
    payload = json.dumps({"session_id": session, "cwd": str(repo), "prompt": prompt})
    rss, _ = peak_kb(hook, payload, env, repo)
    status_rss, _ = peak_kb([ABCD, "statusline"], json.dumps({"session_id": session}), env, repo)
    print(
        f"{args.dimension} {args.size:,} (prompt {len(prompt.encode()):,} bytes): pass "
        f"{floor * 1000:.1f} ms; peak RSS hook {rss / 1024:.1f} MiB, statusline "
        f"{status_rss / 1024:.1f} MiB"
    )
    for name, took in times.items():
        median = statistics.median(took)
        print(
            f"  {name:13s} {median * 1000:7.1f} ms  {median / floor:5.2f}x  max {max(took) * 1000:.1f}"
        )
        for line in sorted(stderr[name])[:4]:
            print(f"      stderr: {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

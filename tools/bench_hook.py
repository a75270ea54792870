#!/usr/bin/env python3
"""Benchmark of the prompt hook against a bare interpreter (issue 4's targets), measured in one run.

    .venv/bin/python tools/bench_hook.py [--notes 10000] [--runs 30] [--root DIR] [--only PROMPT]
                                         [--crowd]

`--root DIR` builds the home there, or reuses the one an earlier run built
there (pass the same `--notes`, `--crowd`); `--only PROMPT` times one prompt.

`--crowd` builds the home of issue 13: one common recall word (`test`) is
carried by `CROWD_SHARE` of the notes (and pages), and the prompts hold it:
`hardest` is that word alone with words most notes' bodies hold (every
candidate scores on the same few common terms), `typical` a working prompt
around it, `none` the fixed cost.

Builds a throwaway home and repository holding N personal notes (written as
one `memory import`-style batch through the real store), 200 project notes,
100 workspace pages and 20 rule domains, then times `abcd hook prompt-router`
(the installed console script, in a new session each run, started by the
session-start hook outside the timing, so recall is never empty) against
`python -I -c pass`, alternating, and prints the medians and their ratio.
Bytecode is compiled first and PYTHONDONTWRITEBYTECODE is unset for the
runs, as on a person's machine. Targets: <= 2.5x with 10,000 notes,
<= 4x with 100,000.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from benchlib import as_installed, one_commit_repo, start_session, timed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from abcd.journal.events import NoteAdded

PY = sys.executable
ABCD = str(Path(PY).parent / "abcd")
COMMON = [
    "the",
    "a",
    "to",
    "and",
    "of",
    "in",
    "for",
    "with",
    "run",
    "use",
    "when",
    "before",
    "after",
    "not",
    "it",
    "is",
    "on",
    "this",
    "that",
    "from",
    "by",
    "be",
    "are",
]
TOPICS = [
    "test",
    "build",
    "deploy",
    "race",
    "flag",
    "cache",
    "auth",
    "login",
    "token",
    "retry",
    "timeout",
    "suite",
    "lint",
    "format",
    "docs",
    "release",
    "branch",
    "merge",
    "commit",
    "review",
    "schema",
    "migrate",
    "database",
    "index",
    "query",
    "shell",
    "quoting",
    "path",
    "config",
    "env",
    "python",
    "node",
    "rust",
    "go",
    "docker",
    "compose",
    "kubernetes",
    "helm",
    "service",
    "client",
    "server",
    "request",
    "response",
    "error",
]


def _vocabulary(rng: random.Random, size: int = 3000) -> list[str]:
    letters = "bcdfghjklmnprstvz"
    vowels = "aeiou"
    words: set[str] = set()
    while len(words) < size:
        words.add(
            "".join(rng.choice(letters) + rng.choice(vowels) for _ in range(rng.randint(2, 4)))
        )
    return sorted(words)


RNG = random.Random(7)
VOCABULARY = _vocabulary(RNG)
# Zipf-like: a few words are everywhere, most are rare, as in real notes.
WEIGHTS = [1 / (rank + 1) for rank in range(len(VOCABULARY))]
WORDS = TOPICS


CROWD_WORD = "test"
CROWD_SHARE = 0.9  # of the notes carrying `CROWD_WORD` in their recall words, with `--crowd`


def recall_words(rng: random.Random, n: int = 3, crowd: bool = False) -> list[str]:
    words = [*rng.choices(VOCABULARY, WEIGHTS, k=n), rng.choice(TOPICS)]
    if crowd and rng.random() < CROWD_SHARE:
        words.append(CROWD_WORD)
    return list(dict.fromkeys(words))


def sentence(rng: random.Random, n: int) -> str:
    pool = (
        rng.choices(VOCABULARY, WEIGHTS, k=n // 3)
        + rng.choices(COMMON, k=n // 3)
        + rng.choices(TOPICS, k=n - 2 * (n // 3))
    )
    rng.shuffle(pool)
    return " ".join(pool)


def settle(home: Path) -> None:
    """Compact the view and the index up to the journal's end, as the writers' compaction would,
    waiting out one a writer started (a home measured right after it was built)."""
    import time

    from abcd.journal.compact import compact

    while not compact(home):
        time.sleep(0.2)


def notes_added(
    rng: random.Random, numbers: range, roots: list[str | None], crowd: bool = False
) -> list[NoteAdded]:
    """An agent's `note.added` for each number: random words, a root drawn from `roots`."""
    from abcd.journal.events import NoteAdded

    return [
        NoteAdded(
            id=f"mem-{n:016d}",
            title=sentence(rng, 6),
            body=sentence(rng, 40),
            recall=tuple(recall_words(rng, crowd=crowd)),
            root=roots[0] if len(roots) == 1 else rng.choice(roots),  # one: no draw, as before
            origin="agent",
            written_by="Claude:claude-opus-4-8",
            session="bench",
        )
        for n in numbers
    ]


def build(root: Path, notes: int, crowd: bool = False) -> tuple[Path, Path]:
    rng = random.Random(7)
    home, repo = root / "home", root / "project"
    repo.mkdir()
    root_commit = one_commit_repo(repo)
    os.environ["ABCD_HOME"] = str(home)
    from abcd.journal import store

    batch = notes_added(rng, range(notes), [None, root_commit, "f" * 40], crowd=crowd)
    from abcd.recall.index import project_index

    def plan_of(chunk: list[NoteAdded]) -> Callable[[object], list[NoteAdded]]:
        return lambda _known: chunk

    for start in range(0, notes, 5000):
        store.append_records(plan_of(batch[start : start + 5000]), projections=(project_index,))
    settle(home)
    abcd = repo / ".abcd"
    (abcd / "memory").mkdir(parents=True)
    project = [
        {
            "id": f"mem-{n:016d}",
            "title": sentence(rng, 6),
            "body": sentence(rng, 40),
            "recall": recall_words(rng, crowd=crowd),
        }
        for n in range(10**9, 10**9 + 200)
    ]
    (abcd / "memory.json").write_text(json.dumps({"schema_version": 1, "notes": project}))
    for n in range(100):
        recall = ", ".join(recall_words(rng, crowd=crowd))
        (abcd / "memory" / f"ref_topic_page{n}.md").write_text(
            f"---\nrecall: [{recall}]\nsummary: {sentence(rng, 6)}\n---\n# Page {n}\n{sentence(rng, 300)}\n"
        )
    domains = {
        f"DOMAIN_{n}": {
            "recall": rng.sample(WORDS, 2),
            "rules": [sentence(rng, 12) for _ in range(4)],
        }
        for n in range(20)
    }
    (abcd / "rules.json").write_text(json.dumps({"schema_version": 1, "domains": domains}))
    return home, repo


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument(
        "--root",
        type=Path,
        help="build the home here, or reuse the one an earlier run built here with the same --notes",
    )
    parser.add_argument(
        "--only", help="time one prompt only (broad, narrow, none; crowd: hardest, typical)"
    )
    parser.add_argument(
        "--crowd", action="store_true", help=f"most notes carry the recall word {CROWD_WORD!r}"
    )
    args = parser.parse_args()
    root = args.root or Path(tempfile.mkdtemp())
    if (root / "home").is_dir():
        home, repo = root / "home", root / "project"
        os.environ["ABCD_HOME"] = str(home)
        from abcd.journal.store import load_view

        args.notes = len(load_view(home).notes)  # the home's, whatever --notes says
    else:
        root.mkdir(parents=True, exist_ok=True)
        home, repo = build(root, args.notes, args.crowd)
    subprocess.run(
        [PY, "-m", "compileall", "-q", str(Path(__file__).resolve().parent.parent / "src")],
        check=True,
    )
    env = as_installed(ABCD_HOME=str(home))
    prompt_rng = random.Random(11)
    prompts = {
        # Topic words every note may carry: a prompt like this hits ~7% of all notes.
        "broad": (
            f"the deploy is flaky after the {' '.join(prompt_rng.choices(VOCABULARY, WEIGHTS, k=3))} "
            f"change: retry the release and check the {prompt_rng.choice(VOCABULARY)} timeout"
        ),
        # Two words of the rare end of the vocabulary: a handful of candidates.
        "narrow": f"why does {VOCABULARY[-7]} break the {VOCABULARY[-300]} step",
        # Nothing hits: the fixed cost of a prompt.
        "none": "what is the weather like today",
    }
    if args.crowd:
        prompts = {
            # The crowd's word and words every note's body holds: every candidate shares them.
            "hardest": f"the {CROWD_WORD} and the {CROWD_WORD} to run, in a {CROWD_WORD} for it",
            "typical": (
                f"the {CROWD_WORD} is flaky after the deploy: retry the release and check the "
                f"{VOCABULARY[-300]} timeout"
            ),
            # Nothing hits: the fixed cost of a prompt in this home.
            "none": prompts["none"],
        }
    if "import re\n" in Path(ABCD).read_text(errors="replace"):
        # pip before 25.0 wrote console scripts that import `re` (and with it `enum`, `functools`
        # and more) before the tool's first line: milliseconds of every figure below are that.
        print(f"note: {ABCD} imports re (written by pip < 25.0); pip >= 25.0 and uv do not")
    crowd = f", {CROWD_SHARE:.0%} carrying {CROWD_WORD!r}" if args.crowd else ""
    print(f"hook: {args.notes:,} personal notes{crowd}, 200 project notes, 100 pages, 20 domains")
    for label, prompt in prompts.items():
        if args.only not in (None, label):
            continue
        sample = subprocess.run(
            [ABCD, "hook", "prompt-router", "--json"],
            text=True,
            capture_output=True,
            env=env,
            cwd=repo,
            input=json.dumps(
                {"session_id": f"probe-{label}-{os.getpid()}", "cwd": str(repo), "prompt": prompt}
            ),
        )
        envelope = json.loads(sample.stdout)
        base, ours = [], []
        for run in range(args.runs + 3):
            session = f"bench-{label}-{run}"
            payload = json.dumps({"session_id": session, "cwd": str(repo), "prompt": prompt})
            start_session(ABCD, session, repo, env)
            b = timed([PY, "-I", "-c", "pass"], env=env, cwd=repo)
            o = timed([ABCD, "hook", "prompt-router"], stdin=payload, env=env, cwd=repo)
            if run >= 3:  # the first runs warm the page cache
                base.append(b)
                ours.append(o)
        mb, mo = statistics.median(base), statistics.median(ours)
        print(
            f"  {label:>6} prompt (recalled {len(envelope['recalled'])} item(s), injected "
            f"{len(envelope['injected'])} domain(s)): python -I -c pass median {mb * 1000:.1f} ms; "
            f"abcd hook prompt-router median {mo * 1000:.1f} ms; ratio {mo / mb:.2f}x ({args.runs} runs each)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

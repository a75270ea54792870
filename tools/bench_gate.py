#!/usr/bin/env python3
"""Benchmarks for the write gate (SPEC section 5 budgets: +5 ms per add, +5 ms import).

    .venv/bin/python tools/bench_gate.py            # everything
    .venv/bin/python tools/bench_gate.py judge      # judge_note on a 2 KiB body, warm and first call
    .venv/bin/python tools/bench_gate.py import     # import cost vs abcd.errors, and -X importtime
    .venv/bin/python tools/bench_gate.py compare OTHER_SRC  # first call, this tree vs another, alternating

Figures go to stdout; docs/gate.md records them with this command. Never a
test: timings on shared machines are noisy, so the fresh-process figures give
the least time beside the median (the least is what the work costs when
nothing else competes for the core). The bodies are built at run time
and hold no secret (the worst case holds every prefilter keyword, so every
rule is compiled and run, and still passes).
"""

from __future__ import annotations

import atexit
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from benchlib import timed

PY = sys.executable

REALISTIC = (
    "The journal tests were flaky on CI because two writers raced for the lock. "
    "Fix: take the exclusive lock before re-reading the tail, then append with O_APPEND "
    "and fsync the segment; fsync the folder only when a new segment is created. "
    "Run `go test -race ./internal/...` locally and `pytest -k journal -x` before pushing. "
    "The view in memory.json records the checkpoint it was folded to (segment, offset, seq, "
    "head hash); a reader that finds the journal past it folds only the new bytes. "
    "See https://docs.python.org/3/library/os.html#os.fsync and "
    "https://github.com/jcrist/msgspec/issues/12 for the decoder notes. Versions: Python "
    "3.11.7, msgspec 0.18.6, portalocker 2.10.1. Commit 3f2a9c1 introduced the race; "
    "src/abcd/journal/store.py holds the fix. Set GITHUB_TOKEN in the CI secrets, never in code: "
    'password = os.environ["DB_PASSWORD"] is the pattern. '
)


def _seconds(code: str, body: str, env: dict[str, str]) -> float:
    """The seconds a fresh interpreter running `code` (with `body` on stdin) prints."""
    out = subprocess.run(
        [PY, "-c", code], input=body, capture_output=True, text=True, check=True, env=env
    )
    return float(out.stdout)


def realistic_body(size: int = 2048) -> str:
    body = REALISTIC
    while len(body) < size:
        body += REALISTIC
    return body[:size]


def worst_body(size: int = 2048) -> str:
    """Every rule's keywords plus the characters that wake every network check and every step
    of folding (an escape sequence, a hidden character, full-width letters); no finding."""
    from abcd.gate.secrets import RULES

    keywords = sorted({k.upper() if r.cased else k for r in RULES for k in r.keywords})
    parts = [f"the {k} word" for k in keywords]
    parts += [
        "\x1b[1mbold\x1b[0m",
        "zero\u200bwidth",
        "ｆｕｌｌ ｗｉｄｔｈ",
        "~/src",
        "/usr/home/",
        "/mnt/c/users/",
        "a::b",
        "12:30:45",
        "x-y-z-w-v-u",
        "a@b",
        "1.2.3",
        "s3://bucket/key",
        "the .local suffix",
    ]
    body = " ".join(parts)
    while len(body) < size:
        body += " " + " ".join(parts)
    return body[:size]


def wrapped_body(size: int = 2048, width: int = 76) -> str:
    """The worst case cut into lines of `width` characters wherever that falls, as a terminal
    wraps what is pasted from it: every break inside a word, so the gate judges the token
    shapes a second time, on the text unwrapped."""
    body = worst_body(size - size // (width + 1))
    return "\n".join(body[i : i + width] for i in range(0, len(body), width))[:size]


def prose_body(size: int = 2048, width: int = 72) -> str:
    """The realistic body hard-wrapped at `width` columns between words, as notes in markdown
    often are: every break inside no word but between two (so the unwrapped forms differ)."""
    import textwrap

    return "\n".join(textwrap.wrap(realistic_body(size), width))[:size]


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def bench_judge(runs: int = 2000) -> None:
    from abcd.gate import judge_note

    recall = ["journal", "lock", "fsync", "race"]
    for name, body in bodies():
        assert judge_note("A lesson about the journal lock", body, recall) is None, name
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            judge_note("A lesson about the journal lock", body, recall)
            times.append(time.perf_counter() - start)
        print(f"judge_note, warm, {name}: median {_median_ms(times):.3f} ms over {runs} runs")

    # `abcd memory import`: one process judges every line; the cost per note, the first
    # call's compiling included, over 100 notes (each body distinct, as an import's are).
    env = bytecode_env()
    for name, body in bodies():
        code = (
            "import sys, time, re\n"
            "from abcd.gate import judge_note\n"
            "body = sys.stdin.read()\n"
            "bodies = [f'{i} {body}'[:2048] for i in range(100)]\n"
            "t = time.perf_counter()\n"
            "for b in bodies: judge_note('A lesson', b, ['journal', 'lock'])\n"
            "print((time.perf_counter() - t) / 100)\n"
        )
        per_note = [_seconds(code, body, env) for _ in range(15)]
        print(
            f"judge_note per note over a 100-note import, {name}, first call's compiling included: "
            f"median {_median_ms(per_note):.3f} ms, least {min(per_note) * 1000:.3f} ms "
            "over 15 processes"
        )

    # The first call in a fresh process pays for compiling the rules it needs
    # (and for importing `re`, which the CLI has already imported via typer).
    env = bytecode_env()
    for name, body in bodies():
        for preload in ("import re", "pass"):
            code = (
                f"import sys, time; {preload}\n"
                "from abcd.gate import judge_note\n"
                "body = sys.stdin.read()\n"
                "t = time.perf_counter(); judge_note('t', body, ['w'])\n"
                "print(time.perf_counter() - t)\n"
            )
            firsts = [_seconds(code, body, env) for _ in range(30)]
            where = (
                "re already imported (as in the CLI)"
                if preload != "pass"
                else "re not yet imported"
            )
            print(
                f"judge_note, first call in a fresh process, {name}, {where}: "
                f"median {_median_ms(firsts):.2f} ms, least {min(firsts) * 1000:.2f} ms "
                "over 30 processes"
            )


def bodies() -> list[tuple[str, str]]:
    """The bodies every figure is taken on: (name, body)."""
    return [
        ("realistic", realistic_body()),
        ("worst case", worst_body()),
        ("worst case wrapped", wrapped_body()),
        ("realistic hard-wrapped", prose_body()),
    ]


_FIRST_CALL = (
    "import sys, time, re\n"
    "from abcd.gate import judge_note\n"
    "body = sys.stdin.read()\n"
    "t = time.perf_counter(); judge_note('t', body, ['w'])\n"
    "print(time.perf_counter() - t)\n"
)


def bench_compare(other_src: str, rounds: int = 40) -> None:
    """The first call in a fresh process, this tree against `other_src` (another checkout's
    `src`, e.g. `git archive main src | tar -x -C /tmp/main`), alternating so that drift
    on a shared machine hits both alike."""
    here = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    trees = {"this tree": here, other_src: other_src}
    envs = {name: {**bytecode_env(), "PYTHONPATH": src} for name, src in trees.items()}
    for name, body in bodies():
        firsts: dict[str, list[float]] = {tree: [] for tree in trees}
        for _ in range(rounds + 1):  # the first round fills the bytecode caches
            for tree, env in envs.items():
                firsts[tree].append(_seconds(_FIRST_CALL, body, env))
        for tree, times in firsts.items():
            times = times[1:]
            print(
                f"judge_note, first call, {name}, {tree}: median {_median_ms(times):.2f} ms, "
                f"least {min(times) * 1000:.2f} ms over {rounds} processes"
            )


def bytecode_env(*, cached: bool = True) -> dict[str, str]:
    """The environment for a child interpreter: with a bytecode cache (as an install has) or without.

    The cache goes to a scratch folder (`PYTHONPYCACHEPREFIX`), never into the tree.
    """
    env = dict(os.environ)
    if cached:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = _CACHE_DIR
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    return env


_CACHE_DIR = tempfile.mkdtemp(prefix="bench-gate-pycache-")
atexit.register(shutil.rmtree, _CACHE_DIR, ignore_errors=True)


def bench_import(runs: int = 30) -> None:
    imports = ("abcd.errors", "abcd.gate")
    for cached in (True, False):
        env = bytecode_env(cached=cached)
        timed([PY, "-c", "import abcd.gate, abcd.errors"], env=env)  # fill the bytecode cache
        times: dict[str, list[float]] = {m: [] for m in imports}
        # Interleave so drift on a shared machine hits each alike.
        for _ in range(runs):
            for module in imports:
                times[module].append(timed([PY, "-c", f"import {module}"], env=env))
        how = (
            "with a bytecode cache"
            if cached
            else "compiling from source (PYTHONDONTWRITEBYTECODE=1)"
        )
        base = _median_ms(times["abcd.errors"])
        print(f"import, {how}, median over {runs} runs:")
        print(f"  python -c 'import abcd.errors': {base:.2f} ms")
        gate = _median_ms(times["abcd.gate"])
        print(f"  python -c 'import abcd.gate':   {gate:.2f} ms  ({gate - base:+.2f} ms)")

    out = subprocess.run(
        [PY, "-X", "importtime", "-c", "import abcd.errors; import abcd.gate"],
        env=bytecode_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    rows: list[tuple[int, int, str]] = []
    for line in out.stderr.splitlines():
        fields = line.removeprefix("import time:").split("|")
        if len(fields) != 3 or not fields[0].strip().isdigit():
            continue  # the header line
        name = fields[2].rstrip()
        if name.strip().startswith("abcd.gate"):
            rows.append((int(fields[1]), int(fields[0]), name))
    print("-X importtime (bytecode cached), abcd.gate and its modules (cumulative us, self us):")
    for cumulative, self_time, name in sorted(rows, reverse=True)[:12]:
        print(f"  {cumulative:6d} {self_time:6d}  {name}")


def main(argv: list[str]) -> int:
    what = argv[1] if len(argv) > 1 else "all"
    if what in ("judge", "all"):
        bench_judge()
    if what in ("import", "all"):
        bench_import()
    if what == "compare" and len(argv) > 2:
        bench_compare(argv[2])
        return 0
    if what not in ("judge", "import", "all"):
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

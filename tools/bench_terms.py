"""Measure the prompt hook's recall core: the term rule, BM25F, and what importing them costs.

Run: `.venv/bin/python tools/bench_terms.py` (figures go in docs/recall.md).

- Importing `abcd.recall.terms`, `abcd.recall.bm25f` and `abcd.rules`, each
  in a fresh `python -I` process with its bytecode already compiled (the
  source tree is compiled first, and `-I` ignores PYTHONDONTWRITEBYTECODE):
  the median wall time of 20 runs, against the median of `python -I -c pass`
  run alternately with them, as milliseconds and as a multiple of it. Also
  the three on top of what the hook loads anyway (`json`, `hashlib`,
  `Stemmer`), and which modules the hook must not load that they pull in.
- `tokens()` over a 64 KiB prompt (ASCII prose, and prose with non-ASCII
  letters), first call in the process and again with the stem cache warm;
  `Prompt()` (scan + tokens + index) likewise.
- BM25F over 10,000 small items: making the items (`Doc.of`, the term rule
  over title, body and recall words), the corpus (N, lengths), and scoring
  and ranking 50 candidates for a short prompt and for a 64 KiB one.
"""

from __future__ import annotations

import compileall
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

IMPORT_RUNS = 20
KIB = 1024
SRC = Path(__file__).resolve().parent.parent / "src"
HOOK_BASE = "json, hashlib, Stemmer"
MEASURED = ("abcd.recall.terms", "abcd.recall.bm25f", "abcd.rules")


def _text(rng: random.Random, vocabulary: list[str], size: int) -> str:
    out: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(vocabulary)
        out.append(word)
        length += len(word.encode()) + 1
    return " ".join(out).encode()[:size].decode("utf-8", errors="ignore")


def _vocabulary(rng: random.Random, count: int) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = {"".join(rng.choice(letters) for _ in range(rng.randint(2, 10))) for _ in range(count)}
    suffixes = ["", "", "s", "ing", "ed", "ly", "ness"]
    return sorted(w + rng.choice(suffixes) for w in sorted(words))


def _ms(action: Callable[[], object], repeat: int = 1) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        action()
    return (time.perf_counter() - start) * 1000 / repeat


def _python_c(code: str) -> list[str]:
    """`python -I -c code`, finding this tree's `abcd` even where it is not installed."""
    return [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(SRC)!r}); {code}"]


def _import_costs() -> tuple[float, dict[str, float]]:
    """The median wall time of `python -I -c pass` and of each import, in fresh processes."""
    statements = {"pass": "pass"} | {
        name: f"import {name}"
        for name in (*MEASURED, HOOK_BASE, f"{HOOK_BASE}, {', '.join(MEASURED)}")
    }
    compileall.compile_dir(str(SRC), quiet=1)
    times: dict[str, list[float]] = {name: [] for name in statements}
    for warm_up in (True, *([False] * IMPORT_RUNS)):
        for name, statement in statements.items():  # alternated, so drift hits all alike
            start = time.perf_counter()
            subprocess.run(_python_c(statement), check=True)
            if not warm_up:
                times[name].append((time.perf_counter() - start) * 1000)
    medians = {name: statistics.median(runs) for name, runs in times.items()}
    return medians.pop("pass"), medians


def _forbidden_loaded() -> list[str]:
    code = f"import {', '.join(MEASURED)}; print(' '.join(sorted(sys.modules)))"
    run = subprocess.run(_python_c(code), check=True, capture_output=True, text=True)
    loaded = run.stdout.split()
    from abcd.host.hook import NEVER_LOADED

    return sorted({name.partition(".")[0] for name in loaded} & set(NEVER_LOADED))


def main() -> None:
    bare, imports = _import_costs()
    forbidden = _forbidden_loaded()

    t0 = time.perf_counter()
    from abcd.recall import terms
    from abcd.recall.bm25f import Corpus, Doc

    in_process = (time.perf_counter() - t0) * 1000

    rng = random.Random(0)
    vocabulary = _vocabulary(rng, 5000)
    prompt_ascii = _text(rng, vocabulary, 64 * KIB)
    accented = [w.replace("e", "é", 1) for w in vocabulary[:500]] + vocabulary
    prompt_unicode = _text(rng, accented, 64 * KIB)

    first_tokens = _ms(lambda: terms.tokens(prompt_ascii))
    warm_tokens = _ms(lambda: terms.tokens(prompt_ascii), repeat=20)
    first_unicode = _ms(lambda: terms.tokens(prompt_unicode))
    warm_unicode = _ms(lambda: terms.tokens(prompt_unicode), repeat=20)
    warm_prompt = _ms(lambda: terms.Prompt(prompt_ascii), repeat=20)
    n_words = len(terms.words(prompt_ascii))

    items: list[Doc] = []

    def make_items() -> None:
        for i in range(10_000):
            items.append(
                Doc.of(
                    f"mem-{i:016d}",
                    recall=rng.sample(vocabulary, 3),
                    title=_text(rng, vocabulary, 60),
                    body=_text(rng, vocabulary, 300),
                    scope_rank=i % 2,
                    recency=f"2026-10-{1 + i % 28:02d}",
                )
            )

    make_ms = _ms(make_items)
    corpus_ms = _ms(lambda: Corpus(items), repeat=5)
    corpus = Corpus(items)
    short_query = terms.Prompt(" ".join(rng.sample(vocabulary, 25))).distinct
    long_query = terms.Prompt(prompt_ascii).distinct
    candidates = items[::200]
    short_ms = _ms(lambda: corpus.ranked(candidates, short_query), repeat=5)
    long_ms = _ms(lambda: corpus.ranked(candidates, long_query), repeat=5)

    print(f"python {sys.version.split()[0]}")
    print(
        f"imports: fresh `python -I` process, bytecode warm, median of {IMPORT_RUNS}; "
        f"`python -I -c pass` {bare:.1f} ms"
    )
    for name, ms in imports.items():
        print(f"  import {name}: {ms:.1f} ms = {ms / bare:.2f}x pass (+{ms - bare:.1f} ms)")
    base = imports[HOOK_BASE]
    everything = imports[f"{HOOK_BASE}, {', '.join(MEASURED)}"]
    print(f"  the three on top of {HOOK_BASE}: +{everything - base:.1f} ms")
    print(f"  in this process after the benchmark's own imports: {in_process:.1f} ms")
    print(f"  modules the hook must not load that they pull in: {', '.join(forbidden) or 'none'}")
    print(
        f"tokens(64 KiB ASCII prompt, {n_words} words): first {first_tokens:.1f} ms, warm {warm_tokens:.1f} ms"
    )
    print(
        f"tokens(64 KiB prompt with non-ASCII letters): first {first_unicode:.1f} ms, warm {warm_unicode:.1f} ms"
    )
    print(f"Prompt(64 KiB) scan + tokens + set, warm: {warm_prompt:.1f} ms")
    print(f"10,000 items via Doc.of (term rule over ~360 bytes each): {make_ms:.0f} ms")
    print(f"Corpus(10,000 items): {corpus_ms:.1f} ms")
    print(
        f"rank 50 candidates over 10,000 items: 25-word prompt {short_ms:.1f} ms, "
        f"64 KiB prompt ({len(long_query)} distinct stems) {long_ms:.1f} ms"
    )


if __name__ == "__main__":
    main()

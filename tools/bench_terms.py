"""Measure the prompt hook's recall core: the term rule, BM25F, and what importing them costs.

Run: `.venv/bin/python tools/bench_terms.py` (figures go in docs/recall.md).

- `tokens()` over a 64 KiB prompt (ASCII prose, and prose with non-ASCII
  letters), first call in the process and again with the stem cache warm;
  `Prompt()` (scan + tokens + index) likewise.
- BM25F over 10,000 small items: making the items (`Doc.of`, the term rule
  over title, body and recall words), the corpus (N, lengths), and scoring
  and ranking 50 candidates for a short prompt and for a 64 KiB one.
- Importing `abcd.recall.terms` and `abcd.rules` in a fresh interpreter
  (median of several runs, less an empty interpreter's start), and a check
  that neither pulls in typer.
"""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

IMPORT_RUNS = 15
OWN_MODULES = ("abcd.recall", "abcd.rules", "Stemmer")
KIB = 1024


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
    return sorted(w + rng.choice(suffixes) for w in words)


def _ms(action: Callable[[], object], repeat: int = 1) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        action()
    return (time.perf_counter() - start) * 1000 / repeat


def _import_ms(statement: str) -> float:
    def once(code: str) -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        return time.perf_counter() - start

    base = statistics.median(once("pass") for _ in range(IMPORT_RUNS))
    full = statistics.median(once(statement) for _ in range(IMPORT_RUNS))
    return (full - base) * 1000


def _own_import_ms(module: str) -> float:
    """The self time (`-X importtime`, median of runs) of the recall and rules modules and
    PyStemmer alone: what they add to a process that loads typing, re and msgspec anyway."""

    def once() -> float:
        run = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", f"import {module}"],
            check=True,
            capture_output=True,
            text=True,
        )
        total = 0
        for line in run.stderr.splitlines():
            parts = [part.strip() for part in line.removeprefix("import time:").split("|")]
            if len(parts) == 3 and parts[2].startswith(OWN_MODULES):
                total += int(parts[0])
        return total / 1000

    return statistics.median(once() for _ in range(IMPORT_RUNS))


def _pulls_typer(module: str) -> bool:
    code = f"import sys, {module}; print('typer' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return out.stdout.strip() == "True"


def main() -> None:
    import_terms = _import_ms("import abcd.recall.terms")
    import_rules = _import_ms("import abcd.rules")
    import_bm25f = _import_ms("import abcd.recall.bm25f")
    own_terms = _own_import_ms("abcd.recall.terms")
    own_all = _own_import_ms("abcd.rules, abcd.recall.bm25f")

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
        f"import abcd.recall.terms (fresh interpreter, median of {IMPORT_RUNS}): "
        f"{import_terms:.1f} ms"
    )
    print(
        f"import abcd.recall.bm25f: {import_bm25f:.1f} ms; import abcd.rules: {import_rules:.1f} ms"
    )
    print(f"  in this process after the benchmark's own imports: {in_process:.1f} ms")
    print(
        f"  own modules' self time (-X importtime): terms + PyStemmer {own_terms:.1f} ms; "
        f"rules + bm25f + terms + PyStemmer {own_all:.1f} ms"
    )
    typer_pulled = ["abcd.recall.terms", "abcd.recall.bm25f", "abcd.rules"]
    print(f"  typer imported by them: {any(_pulls_typer(m) for m in typer_pulled)}")
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

#!/usr/bin/env python3
"""Do stop words belong in the ranking? Measured on a recall set of our own.

The set is a handful of groups of notes that share a recall word (so the
ranking, not the term rule, decides which comes first), and prompts a person
would type, each with the note it should bring first. Each prompt is ranked
twice with the real BM25F (`abcd.recall.bm25f`): with every prompt stem as a
query term (as today), and with English stop words left out of the query.
Printed: how many prompts put the right note first, and the mean reciprocal
rank, for each. Run: `python tools/stopwords.py` (docs/performance.md keeps
the figures; docs/decisions.md the decision).
"""

from __future__ import annotations

from abcd.recall.bm25f import Corpus, Doc
from abcd.recall.terms import stems, words

# A common English list (the short one search engines shipped for years), as typed.
STOP_WORDS = frozenset(
    "a an and are as at be but by do does for from how i if in into is it its me my "
    "no not of on or so that the their then there these they this to was we what when "
    "where which who why will with you your".split()
)

# (key, recall words, title, body)
NOTES = [
    (
        "race",
        ["test", "race"],
        "The tests need the race flag",
        "Run go test -race ./... before saying the tests pass.",
    ),
    (
        "clock",
        ["test", "auth"],
        "The auth tests need a frozen clock",
        "Freeze the clock in the auth tests, or the tokens expire in the middle of the run.",
    ),
    (
        "db",
        ["test", "database"],
        "Integration tests need the database",
        "Start the database with docker compose up db before the integration tests.",
    ),
    (
        "snap",
        ["test", "snapshot"],
        "Snapshot tests update with -u",
        "When a snapshot test fails after an intended change, run it with -u and review the diff.",
    ),
    (
        "flaky",
        ["test", "flaky"],
        "A flaky test is quarantined, not retried",
        "Mark a flaky test with the quarantine marker and file an issue; never add retries.",
    ),
    (
        "ci",
        ["test", "ci"],
        "CI runs the tests outside the container",
        "In CI the tests run on the host, outside the dev container, so paths differ.",
    ),
    (
        "tag",
        ["deploy", "release"],
        "Deploys need a tag",
        "Tag the commit before running the release script; the script reads the tag.",
    ),
    (
        "stage",
        ["deploy", "staging"],
        "Deploy to staging first",
        "Every deploy goes to staging first and waits for the smoke tests there.",
    ),
    (
        "roll",
        ["deploy", "rollback"],
        "Roll back with the previous tag",
        "To roll back a deploy, run the release script with the previous tag.",
    ),
    (
        "freeze",
        ["deploy", "freeze"],
        "No deploys on Fridays",
        "There is a deploy freeze from Friday noon to Monday morning.",
    ),
    (
        "lint",
        ["lint", "ruff"],
        "Run the linter before pushing",
        "Run ruff check on src and tests before every push; CI fails on any finding.",
    ),
    (
        "fmt",
        ["lint", "format"],
        "Format with ruff format, not black",
        "The project formats with ruff format; black is not installed and disagrees on a few cases.",
    ),
    (
        "types",
        ["lint", "mypy"],
        "mypy runs in strict mode",
        "mypy is strict for src and tools: annotate every function, no Any in public signatures.",
    ),
    (
        "mig",
        ["database", "migration"],
        "Migrations are never edited",
        "A migration that has been merged is never edited: write a new one that fixes it.",
    ),
    (
        "idx",
        ["database", "index"],
        "Add an index with CONCURRENTLY",
        "Create indexes on the big tables with CREATE INDEX CONCURRENTLY, in its own migration.",
    ),
    (
        "conn",
        ["database", "pool"],
        "The pool holds ten connections",
        "The connection pool is ten per process; more and the database refuses connections at peak.",
    ),
]

# (prompt, the note it should bring first)
PROMPTS = [
    ("how do I run the tests with the race detector", "race"),
    ("the auth tests fail at random, the token is expired", "clock"),
    ("why do the integration tests fail to connect", "db"),
    ("a snapshot test broke after my change", "snap"),
    ("this test is flaky, should I retry it", "flaky"),
    ("the tests pass locally but fail in CI", "ci"),
    ("what do I need before a release", "tag"),
    ("where does a deploy go first", "stage"),
    ("how do I roll back the last deploy", "roll"),
    ("can I deploy on a Friday", "freeze"),
    ("what should I run before I push", "lint"),
    ("which formatter does the project use, black?", "fmt"),
    ("mypy complains about a missing annotation", "types"),
    ("can I fix the migration that is already merged", "mig"),
    ("I want to add an index to the orders table", "idx"),
    ("the database refuses connections under load", "conn"),
    ("how are the tests run in the container", "ci"),
    ("run the tests for the auth module", "clock"),
    ("the deploy is done, how do I undo it", "roll"),
    ("is it ok to use black on this code", "fmt"),
]


def query(prompt: str, drop_stop_words: bool) -> list[str]:
    typed = [w for w in words(prompt) if not (drop_stop_words and w in STOP_WORDS)]
    return sorted(set(stems(typed)))


def measure(drop_stop_words: bool) -> tuple[int, float, list[str]]:
    docs = [Doc.of(k, recall=r, title=t, body=b) for k, r, t, b in NOTES]
    corpus = Corpus(docs)
    first, reciprocal, misses = 0, 0.0, []
    for prompt, want in PROMPTS:
        prompt_stems = set(stems(words(prompt)))
        # The term rule: an item is a candidate when one of its recall words hits the prompt.
        candidates = [d for d in docs if prompt_stems.intersection(d.recall)]
        order = [s.key for s in corpus.ranked(candidates, query(prompt, drop_stop_words))]
        if want in order:
            rank = order.index(want) + 1
            reciprocal += 1 / rank
            first += rank == 1
            if rank != 1:
                misses.append(f"{prompt!r}: {want} ranked {rank} of {len(order)}")
        else:
            misses.append(f"{prompt!r}: {want} not a candidate")
    return first, reciprocal / len(PROMPTS), misses


def main() -> None:
    for label, drop in (("stop words kept (today)", False), ("stop words left out", True)):
        first, mrr, misses = measure(drop)
        print(f"{label}: right note first for {first} of {len(PROMPTS)} prompts; MRR {mrr:.3f}")
        for miss in misses:
            print(f"  {miss}")


if __name__ == "__main__":
    main()

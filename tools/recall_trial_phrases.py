#!/usr/bin/env python3
"""A trial, not the product: would phrases ranked as terms of their own order the set's candidates better?

    .venv/bin/python tools/recall_trial_phrases.py [--json]

The seed ranks a multi-word recall phrase by its stems alone ("key rotation"
counts as `key` and `rotat`, wherever each stands). Search engines often add
a phrase or proximity feature (the sequential dependence model; Lucene's
phrase boosts). This trial adds one to BM25F as it stands and measures it
on the recall set (`tools/recallset/`, both writings of its notes), without
touching the engine: each prompt's candidates and scores are the hook's own
(`recall_eval.run`), and each candidate gets `weight` times a BM25F part per
phrase of the prompt that it holds, with the same fields, weights, `k1`,
`b`, length and idf rule as a word:

- `recall`: the phrases are the multi-word recall words of any item in
  reach that occur in the prompt as phrases (the first tier's own hit);
- `pairs`: every two adjacent stems of the prompt (the sequential
  dependence model's ordered pairs).

A phrase's count in a field is how often its stems stand there one after
another; its idf counts the items that hold it so in any field. A phrase
only reorders: it brings no candidate, so silence is unchanged, and weight
0 gives the hook's order exactly (checked on every run). The rule is the
calibration's: on both writings' tuning halves summed, the best hit@1, then
hit@5; the shipped design (weight 0) wins a tie. docs/recall.md, "The fifth
round", holds the figures.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import recall_eval
from abcd.recall.bm25f import Corpus, Doc, idf
from abcd.recall.constants import K1, WEIGHT_BODY, WEIGHT_RECALL, WEIGHT_TITLE, B
from abcd.recall.items import page_item
from abcd.recall.terms import Term, term_of, tokens

SET = recall_eval.HERE / "recallset"
MODES = ("recall", "pairs")
WEIGHTS = (0.0, 0.25, 0.5, 1.0, 2.0)


def items(folder: Path) -> dict[str, tuple[Doc, list[Term]]]:
    """Each item of a writing (notes, then the pages the hook reads as the machine's), keyed as
    `recall_eval` keys its rows: as ranking reads it, and its multi-word recall terms."""
    found: dict[str, tuple[Doc, list[Term]]] = {}
    for line in (folder / "notes.jsonl").read_text().splitlines():
        note = json.loads(line)
        doc = Doc.of(note["key"], recall=note["recall"], title=note["title"], body=note["body"])
        found[note["key"]] = doc, phrases(note["recall"])
    for path in sorted((folder / "pages").glob("*.md")):
        page = page_item(path.name, path.read_text(), "machine")
        found[page.key] = page.doc(), phrases(page.recall)
    return found


def phrases(recall: list[str] | tuple[str, ...]) -> list[Term]:
    return [term for term in map(term_of, recall) if term is not None and len(term) > 1]


def occurs(phrase: Term, stems: tuple[str, ...]) -> int:
    """How often the phrase's stems stand one after another in `stems`."""
    width = len(phrase)
    return sum(1 for at in range(len(stems) - width + 1) if stems[at : at + width] == phrase)


def weighted(doc: Doc, phrase: Term) -> int:
    return (
        WEIGHT_RECALL * occurs(phrase, doc.recall)
        + WEIGHT_TITLE * occurs(phrase, doc.title)
        + WEIGHT_BODY * occurs(phrase, doc.body)
    )


def reranked(
    row: recall_eval.Row,
    every: dict[str, tuple[Doc, list[Term]]],
    corpus: Corpus,
    mode: str,
    weight: float,
) -> list[str]:
    """The row's candidates in the order their scores with the phrase parts give (ties: as ranked)."""
    prompt = tuple(tokens(row.prompt))
    if mode == "recall":
        query = {p for _, held in every.values() for p in held if occurs(p, prompt)}
    else:
        query = {prompt[at : at + 2] for at in range(len(prompt) - 1)}
    holding = {p: sum(1 for doc, _ in every.values() if weighted(doc, p)) for p in query}
    order = []
    for place, (key, score) in enumerate(row.scored):
        doc = every[key][0]
        norm = K1 * (1.0 - B + B * doc.length / corpus.avg_len)
        extra = 0.0
        for phrase in sorted(query):
            tf = weighted(doc, phrase)
            if tf:
                extra += idf(corpus.n, holding[phrase]) * tf / (tf + norm)
        order.append((-(score + weight * extra), place, key))
    return [key for _, _, key in sorted(order)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="the figures as one JSON object")
    args = parser.parse_args()
    report: dict[str, dict[str, float]] = {}
    tuned: dict[tuple[str, float], tuple[float, float]] = {}
    for writing, folder in (("as written", SET), ("taught", SET / "taught")):
        every = items(folder)
        corpus = Corpus(doc for doc, _ in every.values())
        rows = recall_eval.run(SET, "all", None, None if folder == SET else folder)[0]
        for mode in MODES:
            for weight in WEIGHTS:
                for half in ("tune", "held"):
                    picked = [row for row in rows if row.half == half and row.expect is not None]
                    orders = [reranked(row, every, corpus, mode, weight) for row in picked]
                    if weight == 0.0 and orders != [[k for k, _ in row.scored] for row in picked]:
                        raise SystemExit("recall_trial_phrases: weight 0 is not the hook's order")
                    hit1 = sum(
                        1 for r, o in zip(picked, orders, strict=True) if o[:1] == [r.expect]
                    )
                    hit5 = sum(1 for r, o in zip(picked, orders, strict=True) if r.expect in o[:5])
                    name = f"{writing} / {mode} / {weight} / {half}"
                    report[name] = {"hit@1": hit1 / len(picked), "hit@5": hit5 / len(picked)}
                    if half == "tune":
                        was = tuned.get((mode, weight), (0.0, 0.0))
                        tuned[mode, weight] = (was[0] + hit1, was[1] + hit5)
    best = max(tuned, key=lambda setting: (tuned[setting], setting[1] == 0.0))
    if args.json:
        json.dump({"figures": report, "picked": {"mode": best[0], "weight": best[1]}}, sys.stdout)
        print()
        return 0
    for name, figures in report.items():
        print(f"{name:<36} hit@1 {figures['hit@1']:.3f}  hit@5 {figures['hit@5']:.3f}")
    print(f"tuning halves summed: the rule picks mode {best[0]}, weight {best[1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""BM25F as seed 000 designs it: weights 3/2/1 summed before saturation, k1 1.2, b 0.75, the idf,
and ties broken by scope, then recency, then key, the same on every run."""

from __future__ import annotations

import math
import os
import random
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given
from hypothesis import strategies as st

from abcd.recall.bm25f import Corpus, Doc, Scored, add_in_order, idf, ln, rank
from abcd.recall.terms import Prompt, tokens


def reference_scores(docs: list[Doc], prompt: str) -> dict[str, float]:
    """The seed's formula written out plainly, term by term, to check the module against."""
    n_items = len(docs)
    length = {d.key: 3 * len(d.recall) + 2 * len(d.title) + len(d.body) for d in docs}
    avg_len = sum(length.values()) / n_items
    scores: dict[str, float] = {}
    for doc in docs:
        score = 0.0
        for term in sorted(set(tokens(prompt))):
            tf_w = 3 * doc.recall.count(term) + 2 * doc.title.count(term) + doc.body.count(term)
            if tf_w == 0:
                continue
            holding = sum(1 for d in docs if term in d.recall + d.title + d.body)
            term_idf = math.log(1 + (n_items - holding + 0.5) / (holding + 0.5))
            score += term_idf * tf_w / (tf_w + 1.2 * (1 - 0.75 + 0.75 * length[doc.key] / avg_len))
        scores[doc.key] = score
    return scores


GOLDEN_CORPUS = [
    Doc.of(
        "mem-2610111200000001",
        recall=["test", "race"],
        title="The tests need the race flag",
        body="Run go test -race before saying the tests pass.",
        scope_rank=1,
        recency="2026-10-11T12:00:00Z",
    ),
    Doc.of(
        "mem-2610111200000002",
        recall=["deploy"],
        title="Deploys go through the release script",
        body="Never push tags by hand; run the release script.",
        scope_rank=1,
        recency="2026-10-11T12:00:01Z",
    ),
    Doc.of(
        "page:guide_ci_tests.md",
        recall=["ci", "test"],
        title="How CI runs the tests",
        body="CI runs the unit tests on every push and the race tests nightly.",
        scope_rank=0,
        recency="2026-10-01",
    ),
    Doc.of(
        "mem-2610111200000003",
        recall=["flaky"],
        title="A flaky test in the hook suite",
        body="The hook test is flaky under load; rerun it once.",
        scope_rank=0,
        recency="2026-10-12T09:00:00Z",
    ),
]
GOLDEN_PROMPT = "Why do the race tests fail in CI?"


def plain(key: str, recall: list[str], body: str = "", **keys: object) -> Doc:
    return Doc.of(key, recall=recall, title="", body=body, **keys)  # type: ignore[arg-type]


def test_a_lone_match_scores_as_worked_by_hand() -> None:
    # N=2, n=1: idf = ln(1 + 1.5/1.5) = ln 2. Both items 3 long, so the length
    # factor is 1 and the saturation is 3 / (3 + 1.2) = 5/7.
    docs = [plain("a", ["alpha"]), plain("b", ["beta"])]
    [scored] = Corpus(docs).score(docs[:1], tokens("alpha"))
    assert scored.score == pytest.approx(math.log(2) * 5 / 7, abs=1e-12)


def test_idf_is_the_seeds() -> None:
    assert idf(10, 1) == pytest.approx(math.log(1 + 9.5 / 1.5), abs=1e-12)
    assert idf(10, 10) < idf(10, 5) < idf(10, 1)


@given(st.floats(min_value=0.0, exclude_min=True, allow_infinity=False, allow_nan=False))
def test_ln_is_maths_log_within_a_few_units_in_the_last_place(x: float) -> None:
    assert abs(ln(x) - math.log(x)) <= 4 * math.ulp(math.log(x))


@given(st.integers(min_value=1, max_value=10**7), st.data())
def test_idf_is_maths_log_of_the_seeds_argument(n_items: int, data: st.DataObject) -> None:
    holding = data.draw(st.integers(min_value=0, max_value=n_items))
    exact = math.log(1.0 + (n_items - holding + 0.5) / (holding + 0.5))
    assert abs(idf(n_items, holding) - exact) <= 4 * math.ulp(exact)


@pytest.mark.parametrize("x", [0.0, -1.0, float("inf"), float("nan")])
def test_ln_refuses_what_has_no_finite_logarithm(x: float) -> None:
    with pytest.raises(ValueError):
        ln(x)


def test_golden_scores_for_a_small_fixed_corpus() -> None:
    corpus = Corpus(GOLDEN_CORPUS)
    ranked = corpus.ranked(GOLDEN_CORPUS, Prompt(GOLDEN_PROMPT).distinct)
    expected = reference_scores(GOLDEN_CORPUS, GOLDEN_PROMPT)
    for scored in ranked:
        assert scored.score == pytest.approx(expected[scored.key], abs=1e-9)
    # Pinned, so a change to the formula or the term rule is a visible diff.
    assert [s.key for s in ranked] == [
        "page:guide_ci_tests.md",
        "mem-2610111200000003",
        "mem-2610111200000001",
        "mem-2610111200000002",
    ]
    assert [s.score for s in ranked] == pytest.approx(
        [1.6790348810157079, 1.079876000285303, 0.9659682965255864, 0.07695273157261039], abs=1e-9
    )
    assert corpus.avg_len == 26.75


def test_each_term_reports_its_field_counts_and_contribution() -> None:
    corpus = Corpus(GOLDEN_CORPUS)
    [page] = corpus.score(GOLDEN_CORPUS[2:3], Prompt(GOLDEN_PROMPT).distinct)
    assert [(t.term, t.recall, t.title, t.body, t.weighted) for t in page.terms] == [
        ("ci", 1, 1, 1, 6),
        ("race", 0, 0, 1, 1),
        ("test", 1, 1, 2, 7),
        ("the", 0, 1, 2, 4),
    ]
    assert page.terms[0].idf == pytest.approx(math.log(1 + 3.5 / 1.5), abs=1e-12)
    assert page.terms[0].contribution == pytest.approx(0.9928715997138742, abs=1e-9)
    assert add_in_order(page.terms) == page.score


def test_a_rare_telling_word_outranks_a_common_one_where_a_raw_count_gets_it_wrong() -> None:
    common = [plain(f"mem-common-{i}", ["test"], "test the code") for i in range(8)]
    busy = Doc.of("mem-busy", recall=["test"], title="test tests", body="test the tests, testing")
    telling = Doc.of("mem-telling", recall=["flaky"], title="Hook", body="rerun it once")
    docs = [*common, busy, telling]
    query = tokens("the flaky test")

    def raw_count(doc: Doc) -> int:
        return sum((doc.recall + doc.title + doc.body).count(term) for term in set(query))

    assert raw_count(busy) > raw_count(telling)  # a count puts the busy note first
    ranked = Corpus(docs).ranked([busy, telling], query)
    assert [s.key for s in ranked] == ["mem-telling", "mem-busy"]


def test_a_recall_word_outweighs_the_same_word_in_the_body() -> None:
    in_recall = Doc.of("in-recall", recall=["deploy"], title="", body="one two three")
    in_body = Doc.of("in-body", recall=["ship"], title="", body="deploy two three")
    other = Doc.of("other", recall=["misc"], title="", body="one two three")
    docs = [in_recall, in_body, other]
    assert in_recall.length == in_body.length
    ranked = Corpus(docs).ranked([in_body, in_recall], tokens("deploy"))
    assert [s.key for s in ranked] == ["in-recall", "in-body"]
    assert ranked[0].score > ranked[1].score


def test_ties_break_on_narrower_scope_then_newer_then_key() -> None:
    same = {"recall": ["deploy"], "title": "Deploys", "body": "run the script"}
    docs = [
        Doc.of("b-machine-new", scope_rank=1, recency="2026-10-12", **same),  # type: ignore[arg-type]
        Doc.of("d-repo-old", scope_rank=0, recency="2026-10-01", **same),  # type: ignore[arg-type]
        Doc.of("c-repo-new", scope_rank=0, recency="2026-10-12", **same),  # type: ignore[arg-type]
        Doc.of("a-repo-new", scope_rank=0, recency="2026-10-12", **same),  # type: ignore[arg-type]
        Doc.of("e-repo-undated", scope_rank=0, recency="", **same),  # type: ignore[arg-type]
    ]
    ranked = Corpus(docs).ranked(docs, tokens("deploy"))
    assert len({s.score for s in ranked}) == 1
    assert [s.key for s in ranked] == [
        "a-repo-new",
        "c-repo-new",
        "d-repo-old",
        "e-repo-undated",
        "b-machine-new",
    ]


def test_scores_within_a_billionth_tie_and_further_apart_do_not() -> None:
    broad = Scored("z-broad", 1.0 + 5e-10, (), scope_rank=1)
    narrow = Scored("a-narrow", 1.0, (), scope_rank=0)
    assert [s.key for s in rank([broad, narrow])] == ["a-narrow", "z-broad"]
    clearly_higher = Scored("z-broad", 1.0 + 1e-8, (), scope_rank=1)
    assert [s.key for s in rank([narrow, clearly_higher])] == ["z-broad", "a-narrow"]


def test_the_order_does_not_depend_on_the_order_items_come_in() -> None:
    docs = list(GOLDEN_CORPUS) + [plain(f"mem-x{i}", ["race"], "race " * i) for i in range(6)]
    query = Prompt(GOLDEN_PROMPT).distinct
    first = [(s.key, s.score) for s in Corpus(docs).ranked(docs, query)]
    shuffler = random.Random(7)
    for _ in range(20):
        shuffler.shuffle(docs)
        again = [(s.key, s.score) for s in Corpus(docs).ranked(list(reversed(docs)), query)]
        assert again == first


def test_the_order_is_the_same_in_every_process_whatever_its_hash_seed() -> None:
    script = textwrap.dedent(
        """
        from abcd.recall.bm25f import Corpus, Doc
        from abcd.recall.terms import Prompt
        words = ["race", "test", "ci", "deploy", "flaky", "hook", "push", "script"]
        # A set's order follows the hash seed, so the items come in a different order each run.
        docs = {Doc.of(f"k{i}", recall=[w], title=" ".join(words[:i]), body=w, scope_rank=i % 2)
                for i, w in enumerate(words)}
        docs |= {Doc.of(f"t{i}", recall=["race"], title="", body="the script") for i in range(4)}
        query = Prompt("race test ci hook push the script").distinct
        print([(s.key, s.score.hex()) for s in Corpus(docs).ranked(docs, query)])
        """
    )
    outputs = set()
    for seed in ("0", "1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        run = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        )
        outputs.add(run.stdout)
    assert len(outputs) == 1


def test_a_candidate_outside_the_items_in_reach_is_refused() -> None:
    corpus = Corpus(GOLDEN_CORPUS[:1])
    with pytest.raises(ValueError, match="not an item in reach"):
        corpus.score(GOLDEN_CORPUS[1:2], tokens("deploy"))


def test_two_items_in_reach_never_share_a_key() -> None:
    with pytest.raises(ValueError, match="share a key"):
        Corpus([plain("same", ["a"]), plain("same", ["b"])])


def test_an_empty_reach_scores_nothing() -> None:
    assert Corpus([]).ranked([], tokens("anything")) == []

"""BM25F ranking of recall candidates, exactly as seed 000 designs it ("Ranking").

For a candidate item and the prompt's query terms:

    score = sum over terms t in the item of
            idf(t) * tf_w / (tf_w + k1 * (1 - b + b * len / avg_len))

    tf_w    = 3 * tf_recall(t) + 2 * tf_title(t) + 1 * tf_body(t)
    len     = 3 * |recall| + 2 * |title| + 1 * |body|        (in stems)
    avg_len = the mean of len over every item in reach
    idf(t)  = ln(1 + (N - n_t + 0.5) / (n_t + 0.5))
              N items in reach, n_t of them holding t in any field

The fields' weighted frequencies are summed before the one saturation, as
BM25F prescribes (Robertson, Zaragoza and Taylor 2004), and the length is the
weighted length of BM25F's one pseudo-document of repeated fields (seed 000,
"How the ranking counts terms and lengths"). The seed's saturation has no
`(k1 + 1)` factor in the numerator: that factor scales every score alike and
never changes an order, and leaving it out keeps the figures the seed's.

Query terms are the prompt's distinct stems (seed: "Query terms are the
prompt's stemmed tokens"; "each distinct word of the prompt is one query
term"). A recall phrase needs no term of its own: its stems are in the recall
field and each counts there.

Invariant: the order `rank` returns depends only on the items and the
prompt, never on input order, hash seeds or the machine: an item's terms are
added one by one in the sorted order of their stems, starting from 0.0 (IEEE
arithmetic in one fixed order gives the same figure everywhere, and the
index's term-by-term scoring adds the same parts in the same order), scores
within `TIE_EPSILON` tie, and ties break on narrower scope, then newer, then
key.
"""

from __future__ import annotations

from itertools import chain

from abcd.recall.constants import K1, TIE_EPSILON, WEIGHT_BODY, WEIGHT_RECALL, WEIGHT_TITLE, B
from abcd.recall.terms import stems, words
from abcd.value import Value

# The prompt hook ranks on every prompt: the values here are slotted `Value`s
# (no msgspec, dataclasses or typing to import), and the annotations' names
# are read by mypy only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Iterable

_set = object.__setattr__  # a `Value` is read-only once built; its constructor sets each field


class Doc(Value):
    """One item in reach, as the ranking sees it: three fields of stems and its tie-break keys.

    `scope_rank`: smaller is narrower (the repository's items before the
    machine's). `recency`: a sortable text, larger is newer (an RFC 3339 UTC
    time or an ISO date); `""` sorts as the oldest.
    """

    __slots__ = ("body", "key", "length", "recall", "recency", "scope_rank", "title")
    __match_args__ = ("key", "recall", "title", "body", "scope_rank", "recency")

    key: str
    recall: tuple[str, ...]
    title: tuple[str, ...]
    body: tuple[str, ...]
    scope_rank: int
    recency: str
    length: int
    """The weighted length: recall words three times, title twice, body once."""

    def __init__(
        self,
        key: str,
        recall: tuple[str, ...],
        title: tuple[str, ...],
        body: tuple[str, ...],
        scope_rank: int = 0,
        recency: str = "",
    ) -> None:
        _set(self, "key", key)
        _set(self, "recall", recall)
        _set(self, "title", title)
        _set(self, "body", body)
        _set(self, "scope_rank", scope_rank)
        _set(self, "recency", recency)
        _set(
            self,
            "length",
            WEIGHT_RECALL * len(recall) + WEIGHT_TITLE * len(title) + WEIGHT_BODY * len(body),
        )

    @classmethod
    def of(
        cls,
        key: str,
        *,
        recall: Iterable[str],
        title: str,
        body: str,
        scope_rank: int = 0,
        recency: str = "",
    ) -> Doc:
        """An item from its text, read through the term rule.

        The recall field is the recall words' terms one after another: words
        never span a space, so that is the stems of the words joined by spaces.
        """
        in_recall, in_title, in_body = words(" ".join(recall)), words(title), words(body)
        all_stems = stems(in_recall + in_title + in_body)
        split_at, end = len(in_recall), len(in_recall) + len(in_title)
        return cls(
            key,
            tuple(all_stems[:split_at]),
            tuple(all_stems[split_at:end]),
            tuple(all_stems[end:]),
            scope_rank,
            recency,
        )

    def weights(self) -> dict[str, int]:
        """Each stem's weighted count, as a term's `weighted` in `Corpus` counts it: three for
        each time in the recall words, two in the title, one in the body."""
        counts: dict[str, int] = {}
        for field, weight in (
            (self.recall, WEIGHT_RECALL),
            (self.title, WEIGHT_TITLE),
            (self.body, WEIGHT_BODY),
        ):
            for stem in field:
                counts[stem] = counts.get(stem, 0) + weight
        return counts


class TermScore(Value):
    """One query term's part in one item's score, for `abcd rules --prompt`."""

    __slots__ = ("body", "contribution", "idf", "recall", "term", "title", "weighted")
    __match_args__ = ("term", "recall", "title", "body", "weighted", "idf", "contribution")

    term: str
    recall: int
    title: int
    body: int
    weighted: int
    idf: float
    contribution: float

    def __init__(
        self,
        term: str,
        recall: int,
        title: int,
        body: int,
        weighted: int,
        idf: float,
        contribution: float,
    ) -> None:
        _set(self, "term", term)
        _set(self, "recall", recall)
        _set(self, "title", title)
        _set(self, "body", body)
        _set(self, "weighted", weighted)
        _set(self, "idf", idf)
        _set(self, "contribution", contribution)


class Scored(Value):
    """A candidate's score, the terms that made it (sorted by term), and its tie-break keys."""

    __slots__ = ("key", "recency", "scope_rank", "score", "terms")
    __match_args__ = ("key", "score", "terms", "scope_rank", "recency")

    key: str
    score: float
    terms: tuple[TermScore, ...]
    scope_rank: int
    recency: str

    def __init__(
        self,
        key: str,
        score: float,
        terms: tuple[TermScore, ...],
        scope_rank: int = 0,
        recency: str = "",
    ) -> None:
        _set(self, "key", key)
        _set(self, "score", score)
        _set(self, "terms", terms)
        _set(self, "scope_rank", scope_rank)
        _set(self, "recency", recency)


def idf(n_items: int, holding: int) -> float:
    """`ln(1 + (N - n + 0.5) / (n + 0.5))`: a word every item shares counts for little."""
    return ln(1.0 + (n_items - holding + 0.5) / (holding + 0.5))


# ln 2 in two parts: the first has zeros in its low bits, so `e * _LN2_HI` is exact for any exponent.
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_SQRT2 = 1.4142135623730951


def ln(x: float) -> float:
    """The natural logarithm of a positive finite `x` in plain float arithmetic, within a few units
    in the last place of `math.log` (tested against it).

    The prompt hook loads no `math` for it (a shared library: ~0.22 ms of every prompt,
    docs/performance.md), and a sum of IEEE operations gives the same bits on every machine,
    which a platform's `log` need not. `x = m * 2**e` with `m` in [1/sqrt 2, sqrt 2), and
    `ln m = 2 atanh(s)`, `s = (m - 1) / (m + 1)`, `|s| < 0.172`: eleven terms of the series.
    """
    if not 0.0 < x < float("inf"):
        raise ValueError(f"ln is defined for positive finite numbers, not {x!r}")
    e = 0
    if x < 2.0**-1000:
        x *= 2.0**1000  # exact (a power of two), as every scaling below
        e = -1000
    if x < 1.0:
        shift = int(1.0 / x).bit_length()
        m = x * 2.0**shift
        e -= shift
    else:
        shift = int(x).bit_length() - 1
        m = x * 2.0**-shift
        e += shift
    while m >= 2.0:  # 1 / x rounded across a power of two
        m *= 0.5
        e += 1
    while m < 1.0:
        m *= 2.0
        e -= 1
    if m > _SQRT2:
        m *= 0.5
        e += 1
    s = (m - 1.0) / (m + 1.0)
    z = s * s
    series = 1 / 21
    for k in (19, 17, 15, 13, 11, 9, 7, 5, 3):
        series = series * z + 1.0 / k
    return e * _LN2_HI + (e * _LN2_LO + 2.0 * s * (series * z + 1.0))


class Corpus:
    """Every item in reach (after the narrower scope's suppression): N, the lengths, n_t."""

    __slots__ = ("avg_len", "docs", "keys", "n", "total")

    def __init__(self, docs: Iterable[Doc]) -> None:
        self.docs: tuple[Doc, ...] = tuple(docs)
        self.keys = frozenset(doc.key for doc in self.docs)
        if len(self.keys) != len(self.docs):
            raise ValueError("two items in reach share a key")
        self.n = len(self.docs)
        self.total = sum(doc.length for doc in self.docs)
        # With no text at all every tf is zero; 1.0 only keeps the division defined.
        self.avg_len = self.total / self.n if self.total else 1.0

    def holding(self, terms: Collection[str]) -> dict[str, int]:
        """For each term, how many items hold it in any field (one pass over the corpus)."""
        wanted = frozenset(terms)
        found = dict.fromkeys(wanted, 0)
        if not wanted:
            return found
        disjoint = wanted.isdisjoint  # most items hold none: no set is built for them
        for doc in self.docs:
            if disjoint(doc.recall) and disjoint(doc.title) and disjoint(doc.body):
                continue
            for term in wanted.intersection(chain(doc.recall, doc.title, doc.body)):
                found[term] += 1
        return found

    def score(self, candidates: Iterable[Doc], query: Iterable[str]) -> list[Scored]:
        """Each candidate's score for the query stems, in the candidates' order (see `rank`)."""
        wanted = frozenset(query)
        present: list[tuple[Doc, list[str]]] = []
        for doc in candidates:
            if doc.key not in self.keys:
                raise ValueError(f"candidate {doc.key} is not an item in reach")
            present.append(
                (doc, sorted(wanted.intersection(chain(doc.recall, doc.title, doc.body))))
            )
        holding = self.holding({term for _, terms in present for term in terms})
        return [self._score(doc, terms, holding) for doc, terms in present]

    def ranked(self, candidates: Iterable[Doc], query: Iterable[str]) -> list[Scored]:
        """The candidates scored and in ranked order."""
        return rank(self.score(candidates, query))

    def _score(self, doc: Doc, terms: list[str], holding: dict[str, int]) -> Scored:
        norm = K1 * (1.0 - B + B * doc.length / self.avg_len)
        parts: list[TermScore] = []
        for term in terms:
            in_recall, in_title, in_body = (
                doc.recall.count(term),
                doc.title.count(term),
                doc.body.count(term),
            )
            weighted = WEIGHT_RECALL * in_recall + WEIGHT_TITLE * in_title + WEIGHT_BODY * in_body
            term_idf = idf(self.n, holding[term])
            contribution = term_idf * weighted / (weighted + norm)
            parts.append(
                TermScore(term, in_recall, in_title, in_body, weighted, term_idf, contribution)
            )
        return Scored(doc.key, add_in_order(parts), tuple(parts), doc.scope_rank, doc.recency)


def add_in_order(parts: Iterable[TermScore]) -> float:
    """The score: the parts added one by one, in the order given (sorted by term), from 0.0.

    Not `sum`, which adds floats with compensation from Python 3.12 on: the
    figure must be the one the index's term-by-term scoring reaches.
    """
    total = 0.0
    for part in parts:
        total += part.contribution
    return total


def _tie_order(items: Iterable[Scored]) -> list[Scored]:
    """Narrower scope first, then newer, then key: stable sorts from the last key to the first."""
    ordered = sorted(items, key=lambda s: s.key)
    ordered.sort(key=lambda s: s.recency, reverse=True)
    ordered.sort(key=lambda s: s.scope_rank)
    return ordered


def rank(scored: Iterable[Scored]) -> list[Scored]:
    """Highest score first; scores within `TIE_EPSILON` of a group's top tie and break by scope,
    recency, key. The same order on every run and every machine."""
    by_score = _tie_order(scored)
    by_score.sort(key=lambda s: s.score, reverse=True)
    result: list[Scored] = []
    group: list[Scored] = []
    for item in by_score:
        if group and group[0].score - item.score > TIE_EPSILON:
            result.extend(_tie_order(group))
            group = []
        group.append(item)
    result.extend(_tie_order(group))
    return result

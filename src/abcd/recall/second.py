"""The second tier of recall (issue 16): an item no recall word hit, whose title and body say enough.

The seed's rule stays the first tier: an item is a candidate when one of its
recall words hits the prompt. A person often types other words than the
ones the note was saved under ("the CI keeps timing out" for a note recalled
by `flaky`, `timeout`, `retry`), so an item in reach that no recall word hit
is a candidate of the second tier when the prompt's *content words* match its
recall words, title and body strongly enough:

- **Content words** are the prompt's distinct stems less a short list of
  English function words (`STOP_WORDS`, stemmed by the term rule): "the",
  "how", "should" say nothing about which item a prompt is about.
- **Score**: BM25F over the content words alone, with the first tier's
  fields, weights, `k1`, `b`, idf and mean length (the reach's), the parts
  added in the sorted order of their stems, as `bm25f.Corpus` adds them.
- **Share**: that score over the sum of the idf of the content words some
  item in reach holds, and of those no item holds each at the idf of such a
  word times `SECOND_UNHELD_WEIGHT`: how much of what the prompt says the
  item covers. A word no item holds cannot pick an item, but a prompt
  mostly of words the memory does not hold is about something else.
- **Words held**: how many of the prompt's content words the item holds.
- An item is admitted when its score is at least `SECOND_MIN_SCORE`, its
  share at least `SECOND_MIN_SHARE` and it holds at least `SECOND_MIN_WORDS`
  content words (`abcd.recall.constants`, calibrated on the tuning half of
  `tools/recallset/`; docs/recall.md has the figures).

An admitted item is then ranked with the first tier's candidates, by the
same BM25F score over every prompt stem, so a strong paraphrase can come
first and the seed's order among the first tier is unchanged. The diagnostic
prints each item's judgement (`Judged`), admitted or not.

Only an item holding a *telling* content word is judged: one fewer than
`DENSE_MIN` items in reach hold, or fewer than one in `DENSE_SHARE` (the
index's own line between a sparse and a dense term). The index's machine
notes are judged from their postings, so the work is bounded by the telling
words' holders, never every note; the fold (no index) applies the same rule
to the same reach, so both give the same candidates.

Imports nothing the hook does not load already.
"""

from __future__ import annotations

from abcd.recall.bitset import has, holding
from abcd.recall.bm25f import idf
from abcd.recall.constants import (
    K1,
    SECOND_MAX_WORDS,
    SECOND_MIN_SCORE,
    SECOND_MIN_SHARE,
    SECOND_MIN_WORDS,
    SECOND_UNHELD_WEIGHT,
    B,
)
from abcd.recall.index import DENSE_MIN, DENSE_SHARE, EVERYWHERE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable

    from abcd.recall.index import Index
    from abcd.recall.items import Item
    from abcd.recall.terms import Prompt

# English function words and the fillers people type around a request: a short list of the kind
# search engines shipped for years, with the auxiliaries and pronouns of a question ("where
# should I", "can I", "it's"). Content words are what is left.
STOP_WORDS = frozenset(
    (
        "a about after all also am an and any are as at be been before being but by can could "
        "did do does doing don't done each for from get gets getting got had has have here how "
        "i i'm if in into is isn't it it's its just keep keeps me my no not of off on one only "
        "or our out over same should so some still than that the their them then there these "
        "they this those to too up us very was we were what what's when where which while who "
        "why will with would you your"
    ).split()
)

# `STOP_WORDS` through the term rule's stemmer, written out so that no prompt stems them again;
# a test holds it to the stemmer's answers.
STOP_STEMS = frozenset(
    (
        "a about after all also am an and ani are as at be been befor but by can could did do "
        "doe don't done each for from get got had has have here how i i'm if in into is isn't it "
        "just keep me my no not of off on one onli or our out over same should so some still "
        "than that the their them then there these they this those to too up us veri was we "
        "were what when where whi which while who will with would you your"
    ).split()
)


def content(prompt: Prompt) -> list[str]:
    """The prompt's content words: its distinct stems less the stop words, sorted."""
    return sorted(prompt.distinct - STOP_STEMS)


def _cut(value: float, places: int) -> str:
    """`value` to `places` decimals, cut, not rounded: a share of 0.2954 judged below 0.3 was
    shown as "share 0.30 (at least 0.3)". Cut, a value shown is never above the value judged, and
    a bar of at most `places` decimals is met as shown exactly when it is met."""
    scale = 10**places
    return f"{int(value * scale) / scale:.{places}f}"


class Judged:
    """One item's second-tier judgement: its score, its share, the content words it holds, and the
    prompt's content words no item in reach holds (counted in the share's whole)."""

    __slots__ = ("admitted", "score", "share", "unheld", "words")

    def __init__(
        self, score: float, share: float, words: tuple[str, ...], unheld: tuple[str, ...] = ()
    ) -> None:
        self.score, self.share, self.words, self.unheld = score, share, words, unheld
        self.admitted = (
            score >= SECOND_MIN_SCORE
            and share >= SECOND_MIN_SHARE
            and len(words) >= SECOND_MIN_WORDS
        )

    def why(self) -> str:
        """The judgement in the ranking's terms, for `abcd rules --prompt`."""
        held = ", ".join(self.words) if self.words else "none"
        verdict = "admitted" if self.admitted else "below the threshold"
        return (
            f"second tier {verdict}: content words held {held}; "
            f"score {_cut(self.score, 4)} (at least {SECOND_MIN_SCORE}), "
            f"share {_cut(self.share, 2)} (at least {SECOND_MIN_SHARE}), "
            f"{len(self.words)} content word(s) held (at least {SECOND_MIN_WORDS})"
            + (
                f"; the share counts the prompt's words no item holds: {', '.join(self.unheld)}"
                if self.unheld and SECOND_UNHELD_WEIGHT
                else ""
            )
        )


class Second:
    """The second tier of one recall: the content words, their idf in the reach, and the judge.

    `holding` counts, for a collection of stems, the items in reach holding
    each (the reach's `holding`); `n` and `avg_len` are the reach's.
    """

    def __init__(
        self,
        prompt: Prompt,
        holding: Callable[[Collection[str]], dict[str, int]],
        n: int,
        avg_len: float,
    ) -> None:
        words = content(prompt)
        # A prompt of more content words than a person types (a pasted log or file) is not judged:
        # no item could cover a share of it, and judging it would cost the hook its budget.
        self.skipped = len(words) > SECOND_MAX_WORDS
        if self.skipped:
            words = []
        held = holding(words) if words else {}
        self.words = [w for w in words if held.get(w, 0) > 0]
        self.unheld = tuple(w for w in words if held.get(w, 0) == 0)
        self.idf_of = {w: idf(n, held[w]) for w in self.words}
        self.telling = frozenset(
            w for w in self.words if held[w] < DENSE_MIN or held[w] * DENSE_SHARE < n
        )
        # What the prompt says: every content word's idf, a word no item holds at the idf of a word
        # no item holds, weighed by `SECOND_UNHELD_WEIGHT` (a prompt mostly of words the memory
        # does not hold is about something else).
        unheld = SECOND_UNHELD_WEIGHT * idf(n, 0)
        self.mass = 0.0
        for w in words:  # in sorted order, as every sum here
            self.mass += self.idf_of.get(w, unheld)
        self.avg_len = avg_len

    def judge(self, length: int, weight: Callable[[str], int]) -> Judged:
        """An item's judgement from its weighted length and each stem's weighted count."""
        norm = K1 * (1.0 - B + B * length / self.avg_len)
        total = 0.0
        words = []
        for w in self.words:
            tf = weight(w)
            if tf:
                total += self.idf_of[w] * tf / (tf + norm)
                words.append(w)
        share = total / self.mass if self.mass > 0 else 0.0
        return Judged(total, share, tuple(words), self.unheld)

    def judge_weights(self, length: int, weights: dict[str, int]) -> Judged | None:
        """`judge` for an item whose weighted counts are a dictionary (a `Doc`, a forward);
        `None` when it holds no telling word (it is not judged)."""
        if self.telling.isdisjoint(weights):
            return None
        return self.judge(length, lambda w: weights.get(w, 0))

    def indexed(self, index: Index, skip: int) -> dict[int, Judged]:
        """The index's notes holding a telling content word, but `skip` (a bitset of note numbers,
        `abcd.recall.bitset`), each with its judgement.

        Only notes whose judgement is admitted are returned; whether a note
        is in reach (its group) is the caller's to check.
        """
        if not self.words:
            return {}
        known = index.terms(self.words)
        postings = {w: index.postings(known[w]) for w in self.words if w in known}
        # Each holder of a telling word, with its weighted count of each content word it holds:
        # the work is the telling words' postings, then one look-up a holder for each other word.
        held: dict[int, dict[str, int]] = {}
        excluded = holding(skip, index.count)
        for w in sorted(self.telling):
            weights = postings.get(w)
            if weights is None:
                continue
            # Dense in the index but telling in this reach: every note's count; else a dictionary
            # of its few holders.
            pairs = enumerate(weights) if known[w][3] else weights.items()
            for no, count in pairs:
                if not count:
                    continue
                if not has(excluded, no):
                    held.setdefault(no, {})[w] = int(count)
        if not held:
            return {}
        for w in self.words:
            weights = postings.get(w)
            if w in self.telling or weights is None:
                continue
            for no, counts in held.items():
                count = weights[no] if known[w][3] else weights.get(no, 0)
                if count:
                    counts[w] = int(count)
        lengths = index.lengths()
        out: dict[int, Judged] = {}
        for no in sorted(held):
            judged = self.judge_weights(int(lengths[no]), held[no])
            if judged is not None and judged.admitted:
                out[no] = judged
        return out


def skipped_why(prompt: Prompt) -> str:
    """Why the second tier judged nothing for this prompt, or `""` when it judged."""
    if len(content(prompt)) > SECOND_MAX_WORDS:
        return (
            f"second tier: not judged (the prompt holds more than {SECOND_MAX_WORDS} content words)"
        )
    return ""


def widen(
    prompt: Prompt,
    reach: Iterable[Item],
    forward: Callable[[Item, frozenset[str]], tuple[int, dict[str, int]] | None],
    holding: Callable[[Collection[str]], dict[str, int]],
    n: int,
    avg_len: float,
    index: Index | None = None,
    skip: int = 0,
    groups: Collection[str] = (),
) -> tuple[list[Item], dict[int, Judged], dict[str, Judged]]:
    """The second tier's candidates: `(items, index notes by number, every judgement by key)`.

    `reach` holds the items in reach no recall word hit; `forward(item,
    telling)` gives an item's weighted length and counts, or `None` when it
    certainly holds none of the telling words (it is then not judged). With
    `index`, its notes holding a telling word are judged too, but those in
    `skip` (a bitset: candidates already, or not in reach) and those of a group not in
    `groups` (a note tied to another repository is never read).
    """
    second = Second(prompt, holding, n, avg_len)
    items: list[Item] = []
    judged: dict[str, Judged] = {}
    if not second.telling:
        return items, {}, judged
    for item in reach:
        weights = forward(item, second.telling)
        verdict = second.judge_weights(*weights) if weights is not None else None
        if verdict is None:
            continue
        judged[item.key] = verdict
        if verdict.admitted:
            items.append(item)
    machine: dict[int, Judged] = {}
    if index is not None:
        for no, verdict in second.indexed(index, skip).items():
            if (index.record(no)[4] or EVERYWHERE) in groups:
                machine[no] = verdict
    return items, machine, judged


def forward_of(item: Item, _telling: frozenset[str]) -> tuple[int, dict[str, int]]:
    """An item's weighted length and counts from its text (no stem cache: the fold, the tests)."""
    doc = item.doc()
    return doc.length, doc.weights()

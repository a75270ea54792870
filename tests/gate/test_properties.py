"""Property: any secret of any kind, anywhere in ordinary prose, in any field, is refused naming that field."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abcd.gate import judge_note

from .samples import TRUE_SECRETS

# Words that trip no rule on their own, joined with spaces around the secret.
VOCABULARY = [
    "the",
    "tests",
    "need",
    "race",
    "flag",
    "on",
    "CI",
    "build",
    "cache",
    "was",
    "stale",
    "after",
    "upgrade",
    "run",
    "ruff",
    "before",
    "commit",
    "hook",
    "reads",
    "config",
    "from",
    "repo",
    "root",
    "use",
    "pytest",
    "with",
    "x",
    "to",
    "stop",
    "early",
    "journal",
    "append",
    "takes",
    "lock",
    "then",
    "fsync",
    "segment",
    "and",
    "view",
    "rebuild",
    "folds",
    "events",
]

prose = st.lists(st.sampled_from(VOCABULARY), min_size=0, max_size=30)
fields = st.sampled_from(["title", "body", "recall"])


def holds_run(haystack: str, secret: str) -> bool:
    return any(secret[i : i + 5] in haystack for i in range(len(secret) - 4))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rule_id=st.sampled_from(sorted(TRUE_SECRETS)),
    seed=st.integers(min_value=0, max_value=2**64),
    before=prose,
    after=prose,
    field=fields,
    recall_index=st.integers(min_value=0, max_value=11),
)
def test_a_secret_anywhere_in_prose_is_refused_in_every_field_without_echoing_it(
    rule_id: str,
    seed: int,
    before: list[str],
    after: list[str],
    field: str,
    recall_index: int,
) -> None:
    # A seeded PRNG, not hypothesis' own random: the name-and-value rules judge
    # entropy, and a shrunk "random" value of one repeated letter is rightly no secret.
    sample = TRUE_SECRETS[rule_id](random.Random(seed))
    text = " ".join([*before, sample.text, *after])
    title, body = "A lesson about the build", "The build needs the race flag."
    recall = [
        "race",
        "flag",
        "ci",
        "build",
        "lock",
        "fsync",
        "view",
        "hook",
        "ruff",
        "pytest",
        "cache",
        "fold",
    ]
    if field == "title":
        title, expected = text, "title"
    elif field == "body":
        body, expected = text, "body"
    else:
        recall[recall_index] = text
        expected = f"recall[{recall_index}]"

    finding = judge_note(title, body, recall)

    assert finding is not None, rule_id
    assert finding.field == expected
    assert finding.kind.startswith("secret: ")
    assert not holds_run(f"{finding.kind} {finding.field} {finding!r}", sample.secret)


@settings(max_examples=200, deadline=None)
@given(words=st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=60))
def test_prose_made_only_of_ordinary_words_always_passes(words: list[str]) -> None:
    assert judge_note(" ".join(words[:8]), " ".join(words), words[:12]) is None

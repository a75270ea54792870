"""A `Shape` (a prefix and a run of one alphabet) answers as the expression it writes would."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abcd.gate.secrets import RULES
from abcd.gate.shape import Shape, chars

from .samples import FALSE_SECRETS, TRUE_SECRETS

SHAPED = [rule for rule in RULES if rule.shape is not None]


def test_most_of_the_table_is_shapes_that_need_no_regular_expression() -> None:
    assert len(SHAPED) >= 30


def test_a_class_is_read_as_a_regular_expression_reads_it() -> None:
    assert chars("a-f0-9") == "abcdef0123456789"
    assert chars("A-Za-z0-9_-")[-2:] == "_-"
    assert chars("+/=") == "+/="


@pytest.mark.parametrize("rule", SHAPED, ids=lambda r: r.id)
def test_each_shaped_rule_agrees_with_its_expression_on_its_samples(rule: object) -> None:
    from abcd.gate.secrets import SecretRule

    assert isinstance(rule, SecretRule) and rule.shape is not None
    rng = random.Random(rule.id)
    texts = [f"see {TRUE_SECRETS[rule.id](rng).text} here" for _ in range(20)]
    texts += FALSE_SECRETS[rule.id]
    # Near misses: one character short, one too many, glued to a word on either side.
    sample = TRUE_SECRETS[rule.id](rng).text
    texts += [sample[:-1], sample + "Zz9", "x" + sample, "_" + sample, sample + "_", sample.lower()]
    expression = re.compile(rule.pattern)
    for text in texts:
        assert rule.shape.search(text, text.lower()) == bool(expression.search(text)), text


# Small alphabets and prefixes so that random text often holds the shape or nearly does.
shapes = st.builds(
    lambda prefix, low, extra, before, after, fold: Shape(
        (prefix,),
        "a-c0-1",
        low,
        low + extra,
        before=before,
        after="a-c0-1_" if after else "",
        fold_case=fold,
    ),
    prefix=st.sampled_from(["k-", "Q_", "ab"]),
    low=st.integers(min_value=1, max_value=4),
    extra=st.integers(min_value=0, max_value=3),
    before=st.sampled_from(["", "a-z", "A-Za-z0-9_"]),
    after=st.booleans(),
    fold=st.booleans(),
)


@settings(max_examples=400, deadline=None)
@given(shape=shapes, text=st.text(alphabet="abcABC01_-kKQq ", max_size=24))
def test_a_shape_and_its_expression_agree_on_any_text(shape: Shape, text: str) -> None:
    assert shape.search(text, text.lower()) == bool(re.search(shape.regex(), text))

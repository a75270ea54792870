"""A `Shape` (a prefix and a run of one alphabet) answers as the expression it writes would."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abcd.gate.secrets import RULES
from abcd.gate.shape import Chain, Either, Shape, chars

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


# The expressions the chains replaced, as the table held them: each chain must answer as its own.
REPLACED = {
    "gitlab-cicd-job-token": r"(?a)glcbt-[^\W_]{1,5}_[\w-]{20}",
    "slack-bot-token": r"(?a)xoxb-\d{8,14}-[A-Za-z0-9-]{8,100}",
    "slack-user-token": r"(?a)xox[pe]-\d{8,14}-\d{8,14}-[A-Za-z0-9-]{8,100}",
    "slack-legacy-token": r"(?a)xox[os]-\d{1,14}-\d{1,14}-\d{1,14}-[a-fA-F0-9]{8,64}",
    "slack-app-token": r"(?ai)xapp-\d-[A-Z0-9]{4,32}-\d{4,32}-[A-Z0-9]{8,128}",
    "sendgrid-api-token": r"(?a)\bSG\.[\w-]{20,24}\.[\w-]{40,45}",
    "anthropic-admin-api-key": r"(?a)sk-ant-admin\d{2}-[\w-]{32,200}",
    "anthropic-api-key": r"(?a)sk-ant-[a-z]{2,8}\d{2}-[\w-]{32,200}",
    "jwt": r"(?a)(?<![\w-])ey[\w-]{17,2000}\.ey[\w-]{17,4000}",
    "putty-private-key": r"(?ai)PuTTY-User-Key-File-\d{1,2}:",
    "azure-ad-client-secret": r"(?a)(?<![\w~.-])[\w~.]{3}\dQ~[\w~.-]{31,34}(?![\w~.-])",
    "slack-legacy-workspace-token": r"(?a)xox[ar]-(?:\d-)?[^\W_]{8,48}",
    "azure-storage-key": (
        r"(?ai)(?:AccountKey=[A-Za-z0-9+/]{86}==|SharedAccessKey=[A-Za-z0-9+/=]{40,50})"
    ),
}
CHAINED = [rule for rule in RULES if isinstance(rule.shape, (Chain, Either))]


def test_every_chain_names_the_expression_it_replaced() -> None:
    assert sorted(rule.id for rule in CHAINED) == sorted(REPLACED)


def _near_misses(sample: str) -> list[str]:
    """The sample cut, grown, glued to a word, re-cased, and with each character in turn changed."""
    texts = [sample[:-1], sample + "Zz9", "x" + sample, "_" + sample, "-" + sample, sample + "_"]
    texts += [sample.lower(), sample.upper(), sample + ":", "a " + sample + " b"]
    for i in range(len(sample)):
        for ch in "a9-_.:Z":
            texts.append(sample[:i] + ch + sample[i + 1 :])
        texts.append(sample[:i] + sample[i + 1 :])  # one character gone
        for times in (2, 3, 5, 9):  # one repeated, so a run crosses its bounds
            texts.append(sample[:i] + sample[i] * times + sample[i + 1 :])
    return texts


def _runs_of_every_length(prefixes: tuple[str, ...]) -> list[str]:
    """Each prefix (in both cases) then a run of 1 to 90 of one character, and maybe an ending,
    so that every run's bounds are crossed whatever the samples hold."""
    texts = []
    for prefix in {*prefixes, *(p.upper() for p in prefixes)}:
        for head in ("", "1-", "12-1-", "ab12-"):
            for size in range(1, 91):
                for ch in ("a", "7"):
                    texts += [prefix + head + ch * size + end for end in ("", "==", ":", " ")]
    return texts


@pytest.mark.parametrize("rule", CHAINED, ids=lambda r: r.id)
def test_each_chain_agrees_with_the_expression_it_replaced(rule: object) -> None:
    from abcd.gate.secrets import SecretRule

    assert isinstance(rule, SecretRule) and rule.shape is not None
    rng = random.Random(rule.id)
    replaced = re.compile(REPLACED[rule.id])
    texts = list(FALSE_SECRETS[rule.id])
    for _ in range(5):
        texts += _near_misses(TRUE_SECRETS[rule.id](rng).text)
    texts += _runs_of_every_length(rule.shape.prefixes)
    for text in texts:
        assert rule.shape.search(text, text.lower()) == bool(replaced.search(text)), text
    assert any(replaced.search(text) for text in texts)  # the samples do hold the shape


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_each_chain_agrees_with_the_expression_it_replaced_on_random_text(
    data: st.DataObject,
) -> None:
    rule = data.draw(st.sampled_from(CHAINED))
    assert rule.shape is not None
    sample = TRUE_SECRETS[rule.id](random.Random(data.draw(st.integers(0, 999)))).text
    # Random text around, inside and instead of parts of a real sample.
    noise = st.text(alphabet="aZ09_-.:ey xobpSG", max_size=12)
    cut = data.draw(st.integers(0, len(sample)))
    text = data.draw(noise) + sample[:cut] + data.draw(noise) + sample[cut:] + data.draw(noise)
    assert rule.shape.search(text, text.lower()) == bool(re.search(REPLACED[rule.id], text))


# Small alphabets so that random text often holds the chain or nearly does.
chains = st.builds(
    lambda prefix, first, gap, last, before, fold, lead, after: Chain(
        (prefix,),
        ("a-c", first, first + gap),
        "-",
        ("0-1", 1, 1),
        ("a-c0-1", last, last + 2),
        before=before,
        after="a-c0-1_" if after else "",
        lead=(("a-c_", 2), ("0-1", 1)) if lead else (),
        fold_case=fold,
    ),
    prefix=st.sampled_from(["k-", "Q_", "ab"]),
    first=st.integers(min_value=1, max_value=3),
    gap=st.integers(min_value=0, max_value=3),
    last=st.integers(min_value=1, max_value=3),
    before=st.sampled_from(["", "a-z", "A-Za-z0-9_"]),
    fold=st.booleans(),
    lead=st.booleans(),
    after=st.booleans(),
)


@settings(max_examples=600, deadline=None)
@given(chain=chains, text=st.text(alphabet="abcABC01_-kKQq ", max_size=24))
def test_a_chain_and_its_expression_agree_on_any_text(chain: Chain, text: str) -> None:
    assert chain.search(text, text.lower()) == bool(re.search(chain.regex(), text))


def test_a_chain_whose_run_could_end_in_two_places_is_refused() -> None:
    chain = Chain(("k",), ("a-c", 1, 3), ("a", 1, 1))
    with pytest.raises(ValueError):
        chain.search("kaaa", "kaaa")


def test_either_refuses_chains_that_fold_case_differently() -> None:
    with pytest.raises(ValueError):
        Either(Chain(("a",), ("0-9", 1, 1)), Chain(("b",), ("0-9", 1, 1), fold_case=True))

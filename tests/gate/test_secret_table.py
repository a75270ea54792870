"""The secret table, rule by rule: each rule refuses its own shape and lets its near misses pass."""

from __future__ import annotations

import random
import re
from re import _constants as sre_constants  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abcd.gate import judge_note, secrets
from abcd.gate.secrets import RULES, find_secret

from .samples import FALSE_SECRETS, TRUE_SECRETS

RULE_IDS = [rule.id for rule in RULES]
BY_ID = {rule.id: rule for rule in RULES}
# Scanners whose public rule catalogues the table names as sources.
# `abcd`: a shape no public catalogue holds, written from the format's own documentation.
KNOWN_SCANNERS = ("gitleaks", "detect-secrets", "abcd")


def embedded(secret_text: str) -> str:
    return f"The deploy step failed until we set {secret_text} in the job settings."


def test_every_rule_has_true_and_false_samples_and_no_sample_names_a_missing_rule() -> None:
    assert set(TRUE_SECRETS) == set(RULE_IDS)
    assert set(FALSE_SECRETS) == set(RULE_IDS)
    assert len(RULE_IDS) == len(set(RULE_IDS)), "rule ids are unique"


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_each_rule_names_the_public_scanner_rule_its_shape_comes_from(rule_id: str) -> None:
    rule = BY_ID[rule_id]
    scanner, _, source_id = rule.source.partition(":")
    assert scanner in KNOWN_SCANNERS
    assert source_id
    if scanner == "gitleaks" and rule_id not in ("authorization-header", "session-cookie"):
        assert source_id == rule_id, "a rule taken from gitleaks keeps gitleaks' rule id"


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_each_rule_refuses_its_own_shape_embedded_in_prose(rule_id: str) -> None:
    rng = random.Random(rule_id)
    for _ in range(25):
        sample = TRUE_SECRETS[rule_id](rng)
        text = embedded(sample.text)
        found = find_secret(text, text.lower())
        assert found is not None, f"{rule_id} missed its own shape"
        assert found.id == rule_id
        finding = judge_note("a title", text, ["deploy"])
        assert finding is not None
        assert (finding.kind, finding.field) == (BY_ID[rule_id].kind, "body")


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_each_rule_lets_its_near_misses_and_prose_about_it_pass(rule_id: str) -> None:
    for text in FALSE_SECRETS[rule_id]:
        found = find_secret(text, text.lower())
        assert found is None, f"{found} fired on a false sample of {rule_id}"
        assert judge_note("a title", text, ["deploy"]) is None


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_each_rule_has_keywords_in_lower_case_that_its_true_samples_hold(rule_id: str) -> None:
    rule = BY_ID[rule_id]
    assert rule.keywords
    assert all(k == k.lower() for k in rule.keywords)
    sample = TRUE_SECRETS[rule_id](random.Random(7))
    assert any(k in sample.text.lower() for k in rule.keywords)


def _unbounded_repeats(parsed: Any) -> list[str]:
    found: list[str] = []
    for op, arg in parsed:
        if op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT):
            low, high, sub = arg
            if high == sre_constants.MAXREPEAT:
                found.append(f"{op} {{{low},}}")
            found += _unbounded_repeats(sub)
        elif op == sre_constants.SUBPATTERN:
            found += _unbounded_repeats(arg[-1])
        elif op == sre_constants.BRANCH:
            for branch in arg[1]:
                found += _unbounded_repeats(branch)
        elif op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
            found += _unbounded_repeats(arg[1])
    return found


def _other_expressions() -> dict[str, str]:
    """The module-level expressions of the network, home-path and literal checks."""
    from abcd.gate import homepath, literal, network

    found: dict[str, str] = {}
    for module in (network, homepath, literal):
        for name, value in vars(module).items():
            if name.startswith("_") and isinstance(value, str) and value.startswith("(?a"):
                found[f"{module.__name__}.{name}"] = value
    return found


EXPRESSIONS = {**{rule.id: rule.pattern for rule in RULES}, **_other_expressions()}


@pytest.mark.parametrize("name", sorted(EXPRESSIONS))
def test_every_expression_of_the_gate_compiles_and_every_quantifier_in_it_is_bounded(
    name: str,
) -> None:
    pattern = EXPRESSIONS[name]
    re.compile(pattern)
    assert _unbounded_repeats(sre_parse.parse(pattern)) == []


def test_the_expressions_checked_for_bounds_include_the_network_and_home_checks() -> None:
    assert {"abcd.gate.network._IPV6", "abcd.gate.homepath._UNIX"} <= set(EXPRESSIONS)


def test_a_github_token_of_one_repeated_letter_is_refused_since_prefixed_shapes_need_no_entropy() -> (
    None
):
    finding = judge_note("t", "gh" + "p_" + "a" * 36, ["w"])
    assert finding is not None
    assert finding.kind == "secret: github token"


def test_a_rule_is_not_compiled_when_none_of_its_keywords_appear(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import abcd.gate.compiled as compiled_module

    cache: dict[str, re.Pattern[str]] = {}
    monkeypatch.setattr(compiled_module, "_CACHE", cache)
    assert judge_note("plain title", "plain prose about the build and its cache", ["word"]) is None
    assert not any(key in cache for key in RULE_IDS)


def test_a_body_made_of_every_rule_keyword_and_nothing_secret_passes() -> None:
    keywords = sorted({k for rule in RULES for k in rule.keywords})
    body = " ".join(f"the {k} word" for k in keywords)
    assert len(body) <= 2048
    assert find_secret(body, body.lower()) is None
    assert judge_note("t", body, ["w"]) is None


@pytest.mark.parametrize(
    "adversarial",
    [
        "token=" + "a1" * 4000,
        "sk-" + "-" * 8000,
        "password: " + "=" * 8000,
        "x://" + ":" * 8000,
        "-----BEGIN " + " " * 8000,
        "ey" + "A" * 4000 + "." + "ey" * 1500,
    ],
)
def test_long_adversarial_input_within_the_cap_gets_a_definite_answer(adversarial: str) -> None:
    text = adversarial[:8192]
    finding = judge_note("t", text, ["w"])
    assert finding is None or finding.field == "body"


# `last_word` finds what the expression it stands for finds, on names as the table's names run.
_NAME_CHARS = st.sampled_from(["a", "z", "Z", "K", "9", "0", "_", ".", "-", "é", "ab", "XY"])


@settings(max_examples=1500, deadline=None)
@given(
    pieces=st.lists(_NAME_CHARS, max_size=10),
    run=st.sampled_from(["", "a" * 39, "a" * 40, "a" * 41, "A" * 40, "9" * 41, "B" + "c" * 40]),
)
def test_the_last_word_of_a_name_is_what_its_expression_finds(pieces: list[str], run: str) -> None:
    name = "".join(pieces) + run
    found = re.search(secrets._LAST_WORD, name)
    assert secrets.last_word(name) == (found.group(0) if found else None), name


@settings(max_examples=1500, deadline=None)
@given(word=st.text(alphabet=st.sampled_from("aZ09_+~!@#^&*-/=.$%:,;'\"( é\u0661"), max_size=240))
def test_the_value_prose_is_read_for_is_what_the_rules_expression_finds(word: str) -> None:
    found = re.match(f"(?a){secrets._VALUE}", word)
    assert secrets._leading_value(word) == (found.group(0) if found else "")


def test_the_last_word_of_the_names_people_write() -> None:
    words = ["input_tokens", "tokenSha", "SECRET_NAME", "password.hash", "api-key", "x_", "KEY"]
    assert [secrets.last_word(w) for w in words] == [
        "tokens",
        "Sha",
        "NAME",
        "hash",
        "key",
        None,
        "KEY",
    ]

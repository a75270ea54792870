"""Which domains a prompt brings back: words and aliases by the term rule, dormant ones on `*NAME`."""

from __future__ import annotations

from typing import Any

from abcd.recall.terms import Prompt
from abcd.rules import RuleSet, match, merge, parse_layer, summoned


def ruleset(domains: dict[str, Any], *, disabled: bool = False) -> RuleSet:
    import json

    data = json.dumps({"disabled": disabled, "domains": domains}).encode()
    layer = parse_layer(data, "repo", ".abcd/rules.json")
    merged, notes = merge([layer])
    return RuleSet(merged, (layer.shown,) if disabled else (), notes)


RULES = ruleset(
    {
        "TESTING": {"recall": ["test", "pytest"], "aliases": ["race detector"], "rules": ["r"]},
        "DEPLOY": {"recall": ["deploy"], "rules": ["r"]},
        "SECRETS": {"state": "dormant", "recall": ["token"], "rules": ["r"]},
    }
)


def names(prompt: str, rules: RuleSet = RULES) -> list[str]:
    return [m.domain.name for m in match(rules, Prompt(prompt))]


def test_a_recall_word_brings_its_domain_back_in_any_inflection() -> None:
    assert names("why are the tests failing?") == ["TESTING"]
    assert names("we attested the release") == []  # "attest" is not "test"


def test_an_alias_brings_its_domain_back_as_a_phrase() -> None:
    [found] = match(RULES, Prompt("turn on the race detectors"))
    assert found.words == ("race detector",)
    assert names("race to the detector") == []


def test_the_match_names_every_word_that_hit() -> None:
    [found] = match(RULES, Prompt("pytest tests with the race detector"))
    assert found.words == ("test", "pytest", "race detector")
    assert not found.summoned


def test_a_dormant_domain_stays_away_on_its_own_words() -> None:
    assert names("rotate the token") == []


def test_a_dormant_domain_comes_back_on_its_name_starred_as_a_word_of_its_own() -> None:
    for prompt in ("*SECRETS rotate it", "rotate it *SECRETS", "see (*SECRETS), then", "*SECRETS."):
        assert names(prompt) == ["SECRETS"], prompt


def test_a_starred_name_inside_something_else_is_no_summons() -> None:
    for prompt in ("**SECRETS**", "*SECRETS*", "a*SECRETS", "*SECRETS_X", "*secrets", "*SECRETSX"):
        assert names(prompt) == [], prompt


def test_pythons_star_args_never_wake_a_domain() -> None:
    assert summoned("def f(*args, **kwargs)") == frozenset()


def test_an_active_domain_can_be_summoned_too() -> None:
    [found] = match(RULES, Prompt("*DEPLOY please"))
    assert found.summoned and found.domain.name == "DEPLOY"


def test_domains_come_back_in_the_rule_sets_order() -> None:
    assert names("deploy after the tests, *SECRETS") == ["TESTING", "DEPLOY", "SECRETS"]


def test_the_kill_switch_brings_nothing_back() -> None:
    silenced = ruleset({"TESTING": {"recall": ["test"], "rules": ["r"]}}, disabled=True)
    assert names("run the tests *TESTING", silenced) == []

"""One rules.json layer: what it may hold, and every refusal naming the file and the field."""

from __future__ import annotations

import json
from typing import Any

import pytest

from abcd.errors import CorruptFile
from abcd.rules import parse_layer

SHOWN = "~/project/.abcd/rules.json"


def parse(content: Any) -> Any:
    data = content if isinstance(content, bytes) else json.dumps(content).encode()
    return parse_layer(data, "repo", SHOWN)


def refusal(content: Any) -> str:
    with pytest.raises(CorruptFile) as caught:
        parse(content)
    assert caught.value.shown_path == SHOWN
    return caught.value.reason


def test_the_original_tools_shape_loads_unchanged() -> None:
    layer = parse(
        {
            "schema_version": 1,
            "disabled": False,
            "domains": {
                "TESTING": {
                    "state": "active",
                    "recall": ["test", "pytest"],
                    "aliases": ["race detector"],
                    "rules": ["Run the tests with -race."],
                }
            },
        }
    )
    [testing] = layer.domains
    assert testing.name == "TESTING"
    assert [w.text for w in testing.recall or ()] == ["test", "pytest"]
    assert [w.term for w in testing.aliases or ()] == [("race", "detector")]
    assert layer.notes == ()


def test_a_field_a_layer_leaves_out_is_left_to_the_layer_below() -> None:
    [only_rules] = parse({"domains": {"TESTING": {"rules": ["r"]}}}).domains
    assert only_rules.state is None and only_rules.recall is None and only_rules.aliases is None


def test_an_empty_file_object_is_an_empty_layer() -> None:
    layer = parse({})
    assert layer.domains == () and not layer.disabled


def test_a_newer_schema_version_is_refused_by_name() -> None:
    assert "schema_version 2 is newer" in refusal({"schema_version": 2, "domains": "anything"})


def test_a_schema_version_below_one_is_refused() -> None:
    assert refusal({"schema_version": 0}).startswith("schema_version")


def test_malformed_json_is_refused() -> None:
    assert refusal(b'{"domains": ').startswith("not valid JSON")
    assert refusal(b"\xff\xfe").startswith("not valid JSON")


def test_a_file_left_mid_merge_is_refused_naming_git_s_conflict_markers() -> None:
    merged = (
        b'{\n  "domains": {\n<<<<<<< HEAD\n    "A": {}\n=======\n    "B": {}\n>>>>>>> b\n  }\n}\n'
    )
    said = refusal(merged)
    assert said.startswith("holds git's conflict markers (<<<<<<< on line 3)"), said
    assert "git add" in said


def test_a_byte_order_mark_is_passed_over_only_at_the_start() -> None:
    assert parse(b"\xef\xbb\xbf{}").domains == ()
    assert refusal(b"{}\xef\xbb\xbf").startswith("not valid JSON")


def test_the_top_level_must_be_an_object() -> None:
    assert "top level" in refusal([1, 2])


@pytest.mark.parametrize(
    ("content", "field"),
    [
        ({"disabled": "yes"}, "disabled:"),
        ({"domains": []}, "domains:"),
        ({"domains": {"TESTING": []}}, "domains.TESTING:"),
        ({"domains": {"TESTING": {"state": "asleep"}}}, "domains.TESTING.state:"),
        ({"domains": {"TESTING": {"rules": ["ok", 3]}}}, "domains.TESTING.rules[1]:"),
        ({"domains": {"TESTING": {"rules": ["ok", "  "]}}}, "domains.TESTING.rules[1]:"),
        ({"domains": {"TESTING": {"recall": None}}}, "domains.TESTING.recall:"),
        ({"domains": {"TESTING": {"recall": ["--"]}}}, "domains.TESTING.recall[0]:"),
    ],
)
def test_each_malformed_field_is_named(content: Any, field: str) -> None:
    assert refusal(content).startswith(field)


@pytest.mark.parametrize("name", ["testing", "1ST", "_X", "TEST-ING", "TÉST", ""])
def test_a_domain_name_must_be_capitals_digits_and_underscores(name: str) -> None:
    assert "is not a domain name" in refusal({"domains": {name: {"rules": ["r"]}}})


def test_a_recall_word_must_be_one_word_by_the_term_rule() -> None:
    reason = refusal({"domains": {"HOOKS": {"recall": ["pre-commit"], "rules": ["r"]}}})
    assert reason.startswith("domains.HOOKS.recall[0]:")
    assert "put phrases in aliases" in reason


def test_an_alias_must_be_a_phrase_of_two_or_more_words() -> None:
    reason = refusal({"domains": {"TESTING": {"aliases": ["tests"], "rules": ["r"]}}})
    assert reason.startswith("domains.TESTING.aliases[0]:")
    assert "put it in recall" in reason


def test_unknown_fields_are_ignored_and_each_is_named_in_a_note() -> None:
    layer = parse({"version": 3, "domains": {"TESTING": {"recal": ["test"], "rules": ["r"]}}})
    assert layer.notes == (
        f"{SHOWN}: unknown field `version` ignored",
        f"{SHOWN}: unknown field `recal` in domain TESTING ignored",
    )

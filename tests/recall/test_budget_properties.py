"""Properties of the host's budget: whatever matches, what the hook prints stays within the limit.

The recall runs as the hook runs it (`abcd.recall.engine.recall`) over a
checkout whose rules and project notes hypothesis writes: any number of rule
domains and notes, any text (characters outside the Basic Multilingual Plane
included), any limit a person may set, any bracket.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from abcd.recall.budget import Limit, context_limit, host_len
from abcd.recall.constants import (
    HOST_CONTEXT_CHARS,
    HOST_CONTEXT_MAX_CHARS,
    HOST_CONTEXT_MIN_CHARS,
    MEMORY_FLOOR_SHARE,
)
from abcd.recall.engine import recall, render_full
from abcd.repo import find_repo
from abcd.rules import render_domain
from abcd.session.brackets import bracket_for
from abcd.session.fill import Fill

# Any character a file can hold (no lone surrogates): astral ones count two for the host.
TEXT = st.characters(exclude_categories=("Cs",))
ASTRAL = st.characters(min_codepoint=0x10000, max_codepoint=0x1FFFF, exclude_categories=("Cs",))
body_text = st.text(st.one_of(TEXT, ASTRAL, st.just("~")), min_size=1, max_size=2_500)
one_line = st.text(
    st.one_of(TEXT, ASTRAL).filter(lambda c: c not in "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"),
    min_size=1,
    max_size=120,
)
rule_text = st.text(st.one_of(TEXT, ASTRAL), min_size=1, max_size=200)
domains = st.lists(st.lists(rule_text, min_size=1, max_size=10), max_size=15)
notes = st.lists(st.tuples(one_line, body_text), max_size=25)
fills = st.one_of(st.none(), st.floats(min_value=0, max_value=100))
limits = st.integers(HOST_CONTEXT_MIN_CHARS, 30_000)


def checkout(top: Path, rule_sets: list[list[str]], note_texts: list[tuple[str, str]]) -> None:
    (top / ".git").mkdir(parents=True)
    (top / ".abcd").mkdir()
    rules = {
        f"D{n:02}": {"recall": ["deploy"], "rules": rules} for n, rules in enumerate(rule_sets)
    }
    (top / ".abcd" / "rules.json").write_text(
        json.dumps({"schema_version": 1, "disabled": False, "domains": rules})
    )
    notes = [
        {"id": f"mem-26110100000{n:05}", "title": title, "body": body, "recall": ["deploy"]}
        for n, (title, body) in enumerate(note_texts)
    ]
    (top / ".abcd" / "memory.json").write_text(json.dumps({"schema_version": 1, "notes": notes}))


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(rule_sets=domains, note_texts=notes, used=fills, limit=limits)
@example(  # rules past the limit, and a top note whose line alone is larger than the share
    rule_sets=[["r" * 40]] * 15,
    note_texts=[("\U0001f600" * 120, "body")],
    used=None,
    limit=HOST_CONTEXT_MIN_CHARS,
)
def test_whatever_matches_the_printed_text_stays_within_the_hosts_limit(
    rule_sets: list[list[str]],
    note_texts: list[tuple[str, str]],
    used: float | None,
    limit: int,
) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        top = Path(scratch) / "repo"
        checkout(top, rule_sets, note_texts)
        fill = Fill(used, "statusline") if used is not None else Fill(None, "unknown")
        with recall(
            "deploy", home=None, repo=find_repo(top), bracket=bracket_for(fill), limit=limit
        ) as outcome:
            printed = outcome.text + "\n" if outcome.text else ""
            candidates = outcome.candidates

            assert host_len(printed) <= limit
            for choice in outcome.injected:  # a kept domain block is never cut
                block = render_domain(choice.match.domain, short=choice.form == "short")
                assert block.rstrip("\n") in outcome.rules_text
            for cand in outcome.recalled:
                if cand.form == "full":
                    assert render_full(cand.item) in outcome.memory_text
            forms = {c.form for c in candidates}
            assert forms <= {"full", "line", "too large", "does not fit"}
            if forms - {"too large"}:  # recall never sends nothing when something can go
                assert outcome.recalled
            if outcome.recalled and outcome.left_out:  # the rules left memory its floor
                assert host_len(outcome.rules_text) <= limit * (1 - MEMORY_FLOOR_SHARE)


@given(st.text(st.one_of(TEXT, ASTRAL, st.characters(categories=("Cs",)))))
def test_host_len_counts_utf16_code_units_as_javascript_length_does(text: str) -> None:
    assert host_len(text) == sum(2 if ord(c) > 0xFFFF else 1 for c in text)


@given(st.integers(HOST_CONTEXT_MIN_CHARS, HOST_CONTEXT_MAX_CHARS))
def test_any_whole_number_within_the_bounds_sets_the_limit(chars: int) -> None:
    limit = context_limit({"ABCD_HOST_CONTEXT_CHARS": f" {chars}\n"})
    assert limit == Limit(chars, "set by ABCD_HOST_CONTEXT_CHARS")


@given(st.text(max_size=20))
def test_any_other_value_is_a_problem_and_the_measured_limit_stands(raw: str) -> None:
    text = raw.strip()
    fits = (
        text.isascii()
        and text.isdigit()
        and HOST_CONTEXT_MIN_CHARS <= int(text) <= HOST_CONTEXT_MAX_CHARS
    )
    limit = context_limit({"ABCD_HOST_CONTEXT_CHARS": raw})
    if not text:
        assert limit == Limit(HOST_CONTEXT_CHARS, "measured on Claude Code 2.1.197")
    elif not fits:
        assert limit.chars == HOST_CONTEXT_CHARS
        assert limit.problem is not None and "ABCD_HOST_CONTEXT_CHARS=" in limit.problem


def test_unset_the_limit_is_the_one_measured_on_the_host() -> None:
    assert context_limit({}) == Limit(10_000, "measured on Claude Code 2.1.197")
    assert context_limit(dict(os.environ, ABCD_HOST_CONTEXT_CHARS="")).chars == 10_000

"""Brackets: the free share of the window picks how much of what matched is sent, boundaries as the table says."""

from __future__ import annotations

import math

import pytest

from abcd.recall.constants import DEPLETED_LINES_CHARS, MODERATE_FULL_CHARS
from abcd.session.brackets import BRACKETS, bracket_for
from abcd.session.fill import Fill


def used_for_free(free: float) -> float:
    return 100.0 - free


@pytest.mark.parametrize(
    ("free", "name"),
    [
        (100.0, "fresh"),
        (70.0, "fresh"),
        (69.9, "moderate"),
        (40.0, "moderate"),
        (39.9, "depleted"),
        (0.0, "depleted"),
    ],
)
def test_the_free_share_falls_in_the_bracket_the_table_gives(free: float, name: str) -> None:
    assert bracket_for(Fill(used_for_free(free), "statusline")).name == name


def test_no_figure_is_the_unknown_bracket() -> None:
    bracket = bracket_for(Fill(None, "unknown"))
    assert bracket.name == "unknown"
    assert bracket.reason == "unknown: no status line reading and no usable transcript"


def test_a_fresh_window_sends_rules_in_full_and_candidates_in_full_then_one_line_each() -> None:
    bracket = bracket_for(Fill(23, "statusline"))
    assert bracket.rules_form == "full"
    assert bracket.memory.full_budget_chars is None  # only the host's limit bounds it
    assert bracket.memory.line_budget_chars is None  # then the rest one line each, as it allows
    assert bracket.reason == "fresh: 23% used (status line)"


def test_a_moderate_window_shortens_rules_and_sends_the_top_in_full_within_8192_chars() -> None:
    bracket = bracket_for(Fill(45.5, "transcript"))
    assert bracket.rules_form == "short"
    assert bracket.memory.full_budget_chars == MODERATE_FULL_CHARS == 8 * 1024
    assert bracket.memory.line_budget_chars is None  # the rest one line each
    assert bracket.reason == "moderate: 45.5% used (transcript)"


def test_a_depleted_window_sends_one_line_each_within_2048_chars_and_always_the_top() -> None:
    bracket = bracket_for(Fill(90, "statusline"))
    assert bracket.rules_form == "short"
    assert bracket.memory.full_budget_chars == 0
    assert bracket.memory.line_budget_chars == DEPLETED_LINES_CHARS == 2 * 1024
    assert bracket.memory.at_least_one


def test_an_unknown_fill_sends_rules_as_fresh_and_memory_as_depleted() -> None:
    unknown = bracket_for(Fill(None, "unknown"))
    assert unknown.rules_form == BRACKETS["fresh"][0]
    assert unknown.memory == BRACKETS["depleted"][1]


def test_figures_outside_zero_to_one_hundred_are_held_to_the_ends() -> None:
    assert bracket_for(Fill(250.0, "statusline")).name == "depleted"
    assert bracket_for(Fill(-20.0, "statusline")).name == "fresh"
    assert bracket_for(Fill(math.nan, "statusline")).name == "unknown"


def test_the_bracket_keeps_the_fill_it_was_given() -> None:
    fill = Fill(12.0, "transcript")
    assert bracket_for(fill).fill is fill

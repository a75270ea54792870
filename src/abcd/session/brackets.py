"""The context brackets: how much of what matched the hook sends, by how much of the window is free.

One table, one place (SPEC section 9):

| bracket  | free      | rules                             | notes and pages                                       |
|----------|-----------|-----------------------------------|-------------------------------------------------------|
| fresh    | >= 70%    | every matched domain in full      | in full, ranked, while they fit; then one line each   |
| moderate | 40-70%    | heading, first rule, count + hint | top-ranked in full within 8,192 chars, rest one line  |
| depleted | < 40%     | as moderate                       | one line each within 2,048 chars, at least the top one |
| unknown  | no source | as fresh                          | as depleted                                           |

All of it inside the host's limit on a hook's output (10,000 characters on
Claude Code 2.1.197, `abcd.recall.budget`), rules first; characters are
counted as the host counts them.

The invariant: `bracket_for` is pure and total (every `Fill` has exactly one
bracket); free is `100 - used`, and a boundary belongs to the roomier
bracket (70% free is fresh, 40% free is moderate). The thresholds and
budgets are read from `abcd.recall.constants`, where every recall figure is
named once. On the prompt hook's path: no msgspec, no `typing` at run time.
"""

from __future__ import annotations

from abcd.recall.constants import (
    DEPLETED_LINES_CHARS,
    FRESH_MIN_FREE_PERCENT,
    MODERATE_FULL_CHARS,
    MODERATE_MIN_FREE_PERCENT,
)
from abcd.session.fill import Fill
from abcd.value import Value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, Literal

    BracketName = Literal["fresh", "moderate", "depleted", "unknown"]
    RulesForm = Literal["full", "short"]


class MemoryPolicy(Value):
    """How notes and pages are sent, in rank order, inside the shared injection budget.

    For each budget (characters, as the host counts them), `None` means
    bounded only by what is left of the shared budget, and `0` means no item
    takes that form. Items go in full
    while `full_budget_chars` lasts, then one line each while
    `line_budget_chars` lasts; with `at_least_one` the top candidate is sent
    (one line) even when it alone passes the line budget.
    """

    __slots__ = ("at_least_one", "full_budget_chars", "line_budget_chars")
    __match_args__ = ("full_budget_chars", "line_budget_chars", "at_least_one")
    full_budget_chars: int | None
    line_budget_chars: int | None
    at_least_one: bool

    def __init__(
        self, *, full_budget_chars: int | None, line_budget_chars: int | None, at_least_one: bool
    ) -> None:
        object.__setattr__(self, "full_budget_chars", full_budget_chars)
        object.__setattr__(self, "line_budget_chars", line_budget_chars)
        object.__setattr__(self, "at_least_one", at_least_one)


class Bracket(Value):
    """The bracket a fill falls in, what it sends, and why (the diagnostic prints `reason`)."""

    __slots__ = ("fill", "memory", "name", "reason", "rules_form")
    __match_args__ = ("name", "rules_form", "memory", "reason", "fill")
    name: BracketName
    rules_form: RulesForm
    memory: MemoryPolicy
    reason: str
    fill: Fill

    def __init__(
        self,
        *,
        name: BracketName,
        rules_form: RulesForm,
        memory: MemoryPolicy,
        reason: str,
        fill: Fill,
    ) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "rules_form", rules_form)
        object.__setattr__(self, "memory", memory)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "fill", fill)


_IN_FULL_THEN_LINES: Final = MemoryPolicy(
    full_budget_chars=None, line_budget_chars=None, at_least_one=False
)
_TOP_IN_FULL: Final = MemoryPolicy(
    full_budget_chars=MODERATE_FULL_CHARS, line_budget_chars=None, at_least_one=False
)
_LINES_ONLY: Final = MemoryPolicy(
    full_budget_chars=0, line_budget_chars=DEPLETED_LINES_CHARS, at_least_one=True
)

# The table: rules form and memory policy per bracket.
BRACKETS: Final[dict[BracketName, tuple[RulesForm, MemoryPolicy]]] = {
    "fresh": ("full", _IN_FULL_THEN_LINES),
    "moderate": ("short", _TOP_IN_FULL),
    "depleted": ("short", _LINES_ONLY),
    # Unknown fill: rules cost little and are the project's standing orders,
    # so they go in full; notes and pages are where the bytes are, so they
    # take the smallest form until a figure is known.
    "unknown": ("full", _LINES_ONLY),
}

_SOURCE_WORDS: Final = {"statusline": "status line", "transcript": "transcript"}


def _name_for(free: float) -> BracketName:
    if free >= FRESH_MIN_FREE_PERCENT:
        return "fresh"
    if free >= MODERATE_MIN_FREE_PERCENT:
        return "moderate"
    return "depleted"


def _percent(value: float) -> str:
    return f"{round(value, 1):g}%"


def bracket_for(fill: Fill) -> Bracket:
    """The bracket for `fill`, e.g. `fresh: 23% used (status line)`."""
    used = fill.used_percentage
    if used is None or fill.source == "unknown" or used != used:  # NaN is no figure
        name: BracketName = "unknown"
        reason = "unknown: no status line reading and no usable transcript"
    else:
        used = min(100.0, max(0.0, used))
        name = _name_for(100.0 - used)
        reason = f"{name}: {_percent(used)} used ({_SOURCE_WORDS[fill.source]})"
    rules_form, memory = BRACKETS[name]
    return Bracket(name=name, rules_form=rules_form, memory=memory, reason=reason, fill=fill)

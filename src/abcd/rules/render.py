"""Rule domains as text for the agent's context, and the byte budget that bounds them.

A domain renders in one of two forms (SPEC section 9):

    full                                short (moderate and depleted brackets)
    ## TESTING (repo override)          ## TESTING (repo override)
    - Run the tests with -race.         - Run the tests with -race.
    - Never skip a failing test.        2 rules: `abcd rules TESTING`

A rule is a list item. A rule that spans lines, or whose line would read as
markdown structure (a heading, quote, list item, rule, fence, table or HTML),
sits inside a tilde fence within its item (`fence`, the one fence for another
party's text, which notes and pages reuse), so a project's file can never put
an unmarked heading in front of the reader (seed 000, iss-2609020219265817).

`fit` keeps whole domain blocks within a byte budget, in order, leaving out
each block that does not fit in what remains, and then says so in one loud
`INJECTION TRUNCATED` line that is itself counted in the budget.

Invariant: rendering is pure and deterministic; a kept block is never cut.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import msgspec

from abcd.rules.loader import Domain

_TILDES = re.compile(r"~+")
# A line that markdown would read as structure rather than as a list item's text.
_STRUCTURE = re.compile(
    r"\s*(?:#{1,6}(?:\s|$)|>|[-*+](?:\s|$)|([-*_])\s*\1\s*\1|\d{1,9}[.)](?:\s|$)|```|~~~|<|\|)"
)


def fence(text: str) -> str:
    """`text` inside a tilde fence longer than any run of tildes in it (at least three)."""
    longest = max((len(run) for run in _TILDES.findall(text)), default=0)
    bar = "~" * max(3, longest + 1)
    return f"{bar}\n{text.rstrip(chr(10))}\n{bar}"


def _is_plain(rule: str) -> bool:
    return len(rule.splitlines()) == 1 and not _STRUCTURE.match(rule)


def render_rule(rule: str) -> str:
    """One rule as a list item; fenced inside the item when it is not one plain line."""
    text = rule.strip()
    if _is_plain(text):
        return f"- {text}"
    lines = fence("\n".join(line.rstrip() for line in rule.strip("\n").splitlines())).split("\n")
    return "\n".join(["- " + lines[0], *("  " + line if line else "" for line in lines[1:])])


def heading(domain: Domain) -> str:
    """`## NAME`, and whose override it is when a layer overrode it."""
    return f"## {domain.name} {domain.label}" if domain.label else f"## {domain.name}"


def render_domain(domain: Domain, *, short: bool = False) -> str:
    """The domain's block: in full, or (`short`) its heading, first rule and where the rest are."""
    if not short:
        return "\n".join([heading(domain), *(render_rule(rule) for rule in domain.rules)]) + "\n"
    count = len(domain.rules)
    noun = "rule" if count == 1 else "rules"
    pointer = f"{count} {noun}: `abcd rules {domain.name}`"
    return "\n".join([heading(domain), render_rule(domain.rules[0]), pointer]) + "\n"


class Fitted(msgspec.Struct, frozen=True):
    """What a budget let through: the text, the names kept and left out, the bytes used."""

    text: str
    kept: tuple[str, ...]
    left_out: tuple[str, ...]
    used: int


def truncated_line(left_out: int, total: int, budget: int) -> str:
    """The loud line that says how many domain blocks a budget left out."""
    return (
        f"INJECTION TRUNCATED: {left_out} of {total} matched rule domains left out "
        f"to stay within {budget} bytes; they come back on a later prompt."
    )


def _take(blocks: Sequence[tuple[str, str]], budget: int) -> tuple[list[int], int]:
    taken: list[int] = []
    used = 0
    for at, (_, text) in enumerate(blocks):
        cost = len(text.encode("utf-8")) + (1 if taken else 0)  # a blank line between blocks
        if used + cost <= budget:
            taken.append(at)
            used += cost
    return taken, used


def fit(blocks: Sequence[tuple[str, str]], budget: int) -> Fitted:
    """Keep whole `(name, block)`s, in order, within `budget` bytes of UTF-8.

    When any is left out, the `INJECTION TRUNCATED` line comes last and its
    bytes come out of the budget first (reserved at its longest), so the
    whole text stays within the budget; only a budget smaller than that line
    alone is exceeded, by the line, because a silent truncation is worse.
    """
    taken, used = _take(blocks, budget)
    if len(taken) == len(blocks):
        texts = [text for _, text in blocks]
        return Fitted("\n".join(texts), tuple(n for n, _ in blocks), (), used)
    total = len(blocks)
    reserve = len(truncated_line(total, total, budget).encode("utf-8")) + 2
    taken, used = _take(blocks, max(0, budget - reserve))
    kept = [blocks[at] for at in taken]
    chosen = set(taken)
    left = [name for at, (name, _) in enumerate(blocks) if at not in chosen]
    line = truncated_line(len(left), total, budget)
    text = "\n".join([*(t for _, t in kept), line + "\n"])
    return Fitted(text, tuple(n for n, _ in kept), tuple(left), len(text.encode("utf-8")))

"""Rule domains as text for the agent's context, and the budget that bounds them.

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

`fit` keeps whole domain blocks within a budget of characters as the host
counts them (`abcd.recall.budget.host_len`), in order, leaving out each block
that does not fit in what remains, and then says so in one loud
`INJECTION TRUNCATED` line that is itself counted in the budget.

Invariant: rendering is pure and deterministic; a kept block is never cut.
"""

from __future__ import annotations

from abcd.recall.budget import host_len
from abcd.value import Value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from abcd.rules.loader import Domain

# Read by hand rather than by pattern: the hook renders on every prompt that
# matched, and compiling the patterns cost it more than reading the lines.
# A line opening with one of these is structure whatever follows: a quote, a
# fence, HTML or a table.
_OPENERS = (">", "```", "~~~", "<", "|")


def _longest_tilde_run(text: str) -> int:
    """The length of the longest run of `~` in `text`, by substring search (in C), never
    character by character: a run of length k holds every shorter one, so double, then halve."""
    if "~" not in text:
        return 0
    present = 1
    while "~" * (present * 2) in text:
        present *= 2
    absent = present * 2
    while absent - present > 1:
        middle = (present + absent) // 2
        if "~" * middle in text:
            present = middle
        else:
            absent = middle
    return present


def fence(text: str) -> str:
    """`text` inside a tilde fence longer than any run of tildes in it (at least three)."""
    bar = "~" * max(3, _longest_tilde_run(text) + 1)
    return f"{bar}\n{text.rstrip(chr(10))}\n{bar}"


def _ends_marker(line: str, at: int) -> bool:
    """Whether a marker ending at `at` is followed by whitespace or the line's end."""
    return at == len(line) or line[at].isspace()


def _is_structure(rule: str) -> bool:
    """Whether markdown would read the line as structure rather than as a list item's text.

    After any leading whitespace: a heading (`#` to `######`, then a space or
    the end), a quote, a list item (`-`, `*` or `+`, then a space or the end),
    a thematic break (three of `-`, `*` or `_`, spaces between allowed), a
    numbered item (one to nine digits, `.` or `)`, then a space or the end), a
    fence, HTML or a table.
    """
    line = rule.lstrip()
    if not line:
        return False
    if line.startswith(_OPENERS):
        return True
    first = line[0]
    if first == "#":
        hashes = len(line) - len(line.lstrip("#"))
        return hashes <= 6 and _ends_marker(line, hashes)
    if first in "-*+" and _ends_marker(line, 1):
        return True
    if first in "-*_":
        rest = line[1:].lstrip()
        return rest[:1] == first and rest[1:].lstrip()[:1] == first
    digits = 0
    while digits < 10 and digits < len(line) and line[digits].isdecimal():
        digits += 1
    return (
        1 <= digits <= 9
        and line[digits : digits + 1] in (".", ")")
        and _ends_marker(line, digits + 1)
    )


def _is_plain(rule: str) -> bool:
    return len(rule.splitlines()) == 1 and not _is_structure(rule)


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


class Fitted(Value):
    """What a budget let through: the text, the names kept and left out, the characters used."""

    __slots__ = ("kept", "left_out", "text", "used")
    __match_args__ = ("text", "kept", "left_out", "used")

    text: str
    kept: tuple[str, ...]
    left_out: tuple[str, ...]
    used: int

    def __init__(
        self, text: str, kept: tuple[str, ...], left_out: tuple[str, ...], used: int
    ) -> None:
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "kept", kept)
        object.__setattr__(self, "left_out", left_out)
        object.__setattr__(self, "used", used)


def truncated_line(left_out: int, total: int, limit: int) -> str:
    """The loud line that says how many domain blocks the host's `limit` left out."""
    return (
        f"INJECTION TRUNCATED: {left_out} of {total} matched rule domains left out "
        f"to stay within the host's {limit} characters; they come back on a later prompt."
    )


def _take(blocks: Sequence[tuple[str, str]], budget: int) -> tuple[list[int], int]:
    taken: list[int] = []
    used = 0
    for at, (_, text) in enumerate(blocks):
        cost = host_len(text) + (1 if taken else 0)  # a blank line between blocks
        if used + cost <= budget:
            taken.append(at)
            used += cost
    return taken, used


def fit(blocks: Sequence[tuple[str, str]], budget: int, limit: int | None = None) -> Fitted:
    """Keep whole `(name, block)`s, in order, within `budget` characters as the host counts them.

    When any is left out, the `INJECTION TRUNCATED` line (naming the host's
    `limit`, by default the budget) comes last and its characters come out of
    the budget first (reserved at its longest), so the whole text stays
    within the budget; only a budget smaller than that line alone is
    exceeded, by the line, because a silent truncation is worse.
    """
    shown = budget if limit is None else limit
    taken, used = _take(blocks, budget)
    if len(taken) == len(blocks):
        texts = [text for _, text in blocks]
        return Fitted("\n".join(texts), tuple(n for n, _ in blocks), (), used)
    total = len(blocks)
    reserve = host_len(truncated_line(total, total, shown)) + 2
    taken, used = _take(blocks, max(0, budget - reserve))
    kept = [blocks[at] for at in taken]
    chosen = set(taken)
    left = [name for at, (name, _) in enumerate(blocks) if at not in chosen]
    line = truncated_line(len(left), total, shown)
    text = "\n".join([*(t for _, t in kept), line + "\n"])
    return Fitted(text, tuple(n for n, _ in kept), tuple(left), host_len(text))

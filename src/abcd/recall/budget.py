"""The injection budget: how much the host hands the model whole, and how it counts.

Claude Code keeps a prompt hook's output whole only up to a number of
characters (`HOST_CONTEXT_CHARS`, measured on the version named beside it)
and counts them as JavaScript does: a string's `length`, in UTF-16 code
units, so a character outside the Basic Multilingual Plane (an emoji, most
CJK extensions) counts two. `host_len` counts the same way; a text it says
is within the limit is within it for the host, whatever it holds.

A person running a newer host, or another one, sets the figure with
`ABCD_HOST_CONTEXT_CHARS` (`context_limit`); a value that is not a whole
number within the bounds is named in one line and the measured figure used.
On the prompt hook's path: nothing imported but the constants.
"""

from __future__ import annotations

from abcd.recall.constants import (
    HOST_CONTEXT_CHARS,
    HOST_CONTEXT_MAX_CHARS,
    HOST_CONTEXT_MEASURED_ON,
    HOST_CONTEXT_MIN_CHARS,
)
from abcd.value import Value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Final

HOST_CONTEXT_ENV: Final = "ABCD_HOST_CONTEXT_CHARS"


def host_len(text: str) -> int:
    """`text`'s length as the host counts it: UTF-16 code units (JavaScript's `length`)."""
    if text.isascii():  # a flag CPython keeps on every string: no pass over the text
        return len(text)
    # A lone surrogate (from a file decoded with `surrogateescape`) is one unit, as in JavaScript.
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


class Limit(Value):
    """The host's limit in force: its figure, where it came from, and what was wrong with an override."""

    __slots__ = ("chars", "problem", "source")
    __match_args__ = ("chars", "source", "problem")
    chars: int
    source: str
    problem: str | None

    def __init__(self, chars: int, source: str, problem: str | None = None) -> None:
        object.__setattr__(self, "chars", chars)
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "problem", problem)


DEFAULT_LIMIT: Final = Limit(HOST_CONTEXT_CHARS, f"measured on {HOST_CONTEXT_MEASURED_ON}")


def context_limit(environ: Mapping[str, str]) -> Limit:
    """The limit `ABCD_HOST_CONTEXT_CHARS` sets, else the measured one; a bad value is a problem."""
    raw = environ.get(HOST_CONTEXT_ENV)
    if raw is None or not raw.strip():
        return DEFAULT_LIMIT
    text = raw.strip()
    if text.isascii() and text.isdigit():
        chars = int(text)
        if HOST_CONTEXT_MIN_CHARS <= chars <= HOST_CONTEXT_MAX_CHARS:
            return Limit(chars, f"set by {HOST_CONTEXT_ENV}")
    shown = raw if len(raw) <= 40 else raw[:37] + "..."
    problem = (
        f"{HOST_CONTEXT_ENV}={shown!r} is not a whole number of characters from "
        f"{HOST_CONTEXT_MIN_CHARS} to {HOST_CONTEXT_MAX_CHARS}; using {HOST_CONTEXT_CHARS} "
        f"(measured on {HOST_CONTEXT_MEASURED_ON})"
    )
    return Limit(HOST_CONTEXT_CHARS, DEFAULT_LIMIT.source, problem)

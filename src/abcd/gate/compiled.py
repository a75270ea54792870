"""Regular expressions compiled on first use, and `GateUnavailable`, raised when one cannot be.

Importing `re` and compiling the whole table would cost more than the gate's
import budget, and most notes need only a few rules, so nothing is compiled at
import: a pattern is compiled the first time a scan needs it and kept for the
life of the process. Every pattern carries its own flags inline (`(?a)`,
`(?ai)`), so a pattern's source string is the whole rule.

Invariant: a pattern that fails to compile raises `GateUnavailable`; it never
lets a note through unjudged.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re


class GateUnavailable(Exception):
    """The gate cannot judge (a rule does not compile); the caller refuses the write."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


_CACHE: dict[str, re.Pattern[str]] = {}


def compiled(key: str, source: str) -> re.Pattern[str]:
    """The compiled form of `source`, cached under `key` (a rule id)."""
    pattern = _CACHE.get(key)
    if pattern is None:
        import re

        try:
            pattern = re.compile(source)
        except (re.error, TypeError, ValueError, OverflowError, RecursionError):
            # The message of re.error quotes the pattern, never the judged text;
            # still, only the rule id leaves this module.
            raise GateUnavailable(f"rule {key} does not compile") from None
        _CACHE[key] = pattern
    return pattern

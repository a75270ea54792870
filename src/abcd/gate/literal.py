"""Whether a value written after `password =`, `token:` or `Bearer` is a literal secret.

Used by the rules that see a name and a value rather than a token's own shape
(generic assignments, `Authorization` headers, passwords in URLs). A value is
a literal secret when it is long enough, is not a reference to one (a lookup,
an environment variable, a placeholder, an identifier, a path, a version) and
its characters are spread widely (Shannon entropy).

Invariant: these functions only answer yes or no; they never return, keep or
log the value they judge.
"""

from __future__ import annotations

from abcd.gate.compiled import compiled
from abcd.gate.limits import GENERIC_ENTROPY_MIN, GENERIC_VALUE_MIN_CHARS

# Characters that start a reference rather than a value: `$VAR`, `${VAR}`,
# `<placeholder>`, `{{ template }}`, `%VAR%`.
_REFERENCE_STARTS = "$<{%"
# A value followed by one of these is a call or a lookup: `os.environ["X"]`, `get_token()`.
_CALL_OR_LOOKUP = "(["
# Values are at most 2000 characters (the rules bound them), so these bounds cut no value short.
# Letters and the separators of identifiers and paths only (no digit, no other
# symbol): a word, `GITHUB_TOKEN`, `settings.SECRET_KEY`, `your-api-key-here`.
_WORDISH = r"(?a)[A-Za-z_./-]{1,2000}"
# snake_case or UPPER_SNAKE identifiers that hold digits: `get_token_v2`, `API_KEY_2`.
_SNAKE = (
    r"(?a)[a-z][a-z0-9]{0,99}(?:_[a-z0-9]{1,99}){1,50}|[A-Z][A-Z0-9]{0,99}(?:_[A-Z0-9]{1,99}){1,50}"
)
# Version numbers, optionally after a name: `3.11.7`, `v2.10.1`, `python3.11.7`, `1.2.0-rc1`.
_VERSION = r"(?a)[A-Za-z]{0,16}[-_]?v?[0-9]{1,4}(?:\.[0-9]{1,4}){1,3}(?:[-+.][A-Za-z0-9.]{1,16})?"


def shannon_entropy(value: str) -> float:
    """Bits per character of `value`'s character distribution (0.0 for an empty string)."""
    if not value:
        return 0.0
    import math

    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(value)
    return -sum((c / n) * math.log2(c / n) for c in counts.values())


def is_reference(value: str, following: str = "") -> bool:
    """True when `value` names or looks up a secret rather than holding one."""
    if not value or value[0] in _REFERENCE_STARTS:
        return True
    if following[:1] and following[0] in _CALL_OR_LOOKUP:
        return True
    if compiled("literal-wordish", _WORDISH).fullmatch(value):
        return True
    if compiled("literal-snake", _SNAKE).fullmatch(value):
        return True
    return compiled("literal-version", _VERSION).fullmatch(value) is not None


def is_literal_secret(value: str, following: str = "") -> bool:
    """True when `value` (followed in the text by `following`) reads as a literal secret."""
    if len(value) < GENERIC_VALUE_MIN_CHARS:
        return False
    if is_reference(value, following):
        return False
    return shannon_entropy(value) >= GENERIC_ENTROPY_MIN


def is_placeholder_password(value: str) -> bool:
    """True when the password part of a URL is a placeholder or a masked value, not a password."""
    if not value or value[0] in _REFERENCE_STARTS:
        return True
    # `****`, `xxxx`: a password shown masked.
    return len(set(value.lower())) == 1 and value[0] in "*x."

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
from abcd.gate.limits import (
    GENERIC_ENTROPY_MIN,
    GENERIC_VALUE_MIN_CHARS,
    RANDOM_LETTERS_MIN_CHARS,
)

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

_PERCENT_VAR = r"(?a)%[A-Za-z_][A-Za-z0-9_]{0,99}%"
# A word's case: lower, UPPER, Capitalised, or camelCase/PascalCase parts.
_WORD_CASE = r"(?a)[A-Z]{1,2000}|[A-Za-z][a-z]{0,1999}(?:[A-Z][a-z]{1,1999}){0,100}"
# An environment variable's name: upper-case letters, digits and underscores.
_ENV_NAME = r"(?a)[A-Z][A-Z0-9_]{0,99}"
# Words that stand in for a password in examples (gitleaks' curl-auth-user allowlist).
_PLACEHOLDER_PASSWORDS = frozenset(
    ("changeit", "changeme", "pass", "password", "passwd", "pwd", "test", "token", "secret")
)


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


def _starts_reference(value: str) -> bool:
    # `%` starts a reference only as `%NAME%`: a percent-encoded value (`%21x...`) is a value.
    if value[0] == "%":
        return compiled("literal-percent-var", _PERCENT_VAR).fullmatch(value) is not None
    return value[0] in _REFERENCE_STARTS or value.startswith("~/")  # a path under home


def looks_random_letters(value: str) -> bool:
    """True when a value of letters only reads as random rather than as a word or a name.

    A word or an identifier has vowels (a quarter of its letters or more), no
    run of five consonants, and its case follows a word's shape (`lower`,
    `UPPER`, `Capitalised`, `camelCase`); a value that breaks any of these and
    is at least `RANDOM_LETTERS_MIN_CHARS` long with entropy at or above the
    floor reads as random (`kXqPzLmWvRtBnHy`).
    """
    if len(value) < RANDOM_LETTERS_MIN_CHARS or not value.isalpha() or not value.isascii():
        return False
    if shannon_entropy(value) < GENERIC_ENTROPY_MIN:
        return False
    lowered = value.lower()
    vowels = sum(ch in "aeiouy" for ch in lowered)
    run = longest = 0
    for ch in lowered:
        run = 0 if ch in "aeiouy" else run + 1
        longest = max(longest, run)
    word_case = compiled("literal-word-case", _WORD_CASE).fullmatch(value) is not None
    return vowels * 4 < len(value) or longest >= 5 or not word_case


def is_reference(value: str, following: str = "") -> bool:
    """True when `value` names or looks up a secret rather than holding one."""
    if not value or _starts_reference(value):
        return True
    if following[:1] and following[0] in _CALL_OR_LOOKUP:
        return True
    if compiled("literal-wordish", _WORDISH).fullmatch(value):
        return not looks_random_letters(value)
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
    """True when a password given outright (in a URL, after `-u user:`, `--password`) is a
    placeholder, a masked value or the name of one, not a password."""
    if not value or _starts_reference(value):
        return True
    if value.lower() in _PLACEHOLDER_PASSWORDS:
        return True
    if compiled("literal-env-name", _ENV_NAME).fullmatch(value):
        return True  # `--password DB_PASSWORD`: the name of a variable, written bare
    # `****`, `xxxx`: a password shown masked.
    return len(set(value.lower())) == 1 and value[0] in "*x."

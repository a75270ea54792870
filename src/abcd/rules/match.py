"""Which rule domains a prompt brings back, and the words that did it.

- An active domain matches when any recall word or alias hits the prompt by
  the term rule (`abcd.recall.terms`), or when the prompt summons it.
- A dormant domain matches only when summoned: the prompt carries `*NAME` as
  a word of its own. The name is written as the domain is (upper case), so
  Python's `*args` never wakes a domain `ARGS`; a `*` or word character on
  either side makes it part of something else (`**NAME**`, `*NAME*`,
  `a*NAME`), so markdown emphasis is never a summons.
- The kill switch matches nothing.

Invariant: matching is pure (no I/O), reads only the prompt's scanned text,
and returns domains in the rule set's order.
"""

from __future__ import annotations

from abcd.value import Value

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

    from abcd.recall.terms import Prompt
    from abcd.rules.loader import Domain, RuleSet

_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_NAME_REST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
# Up to this many stars a prompt is read by hand (microseconds, nothing to
# compile); past it the pattern (0.1 ms to compile, then C speed) is cheaper.
_STARS_BY_HAND = 256
_SUMMONS: re.Pattern[str] | None = None


class Match(Value):
    """A domain the prompt brings back: the words that hit it, and whether it was summoned."""

    __slots__ = ("domain", "summoned", "words")
    __match_args__ = ("domain", "words", "summoned")

    domain: Domain
    words: tuple[str, ...]
    summoned: bool

    def __init__(self, domain: Domain, words: tuple[str, ...], summoned: bool) -> None:
        object.__setattr__(self, "domain", domain)
        object.__setattr__(self, "words", words)
        object.__setattr__(self, "summoned", summoned)


def _is_word_char(char: str) -> bool:
    r"""What `\w` matches: a letter, a digit or `_` (any script)."""
    return char.isalnum() or char == "_"


def summoned(text: str) -> frozenset[str]:
    """The domain names a prompt summons with `*NAME`.

    `*` then `[A-Z][A-Z0-9_]*`, with neither a word character nor a `*` just
    before the star or just after the name (the name runs as far as it can).
    A prompt with a few stars is read by hand, so the hook compiles nothing
    for it; one with many (a pasted log, a table) by the same rule as a
    pattern, compiled then, which is faster over thousands of stars.
    """
    stars = text.count("*")
    if not stars:
        return frozenset()
    if stars > _STARS_BY_HAND:
        return frozenset(_summons_pattern().findall(text))
    names: set[str] = set()
    end = len(text)
    at = text.find("*")
    while at != -1:
        start = after = at + 1
        if start < end and text[start] in _NAME_START:
            after = start + 1
            while after < end and text[after] in _NAME_REST:
                after += 1
            before_ok = at == 0 or not (_is_word_char(text[at - 1]) or text[at - 1] == "*")
            after_ok = after == end or not (_is_word_char(text[after]) or text[after] == "*")
            if before_ok and after_ok:
                names.add(text[start:after])
        at = text.find("*", after)
    return frozenset(names)


def _summons_pattern() -> re.Pattern[str]:
    global _SUMMONS
    if _SUMMONS is None:
        import re

        _SUMMONS = re.compile(r"(?<![\w*])\*([A-Z][A-Z0-9_]*)(?![\w*])")
    return _SUMMONS


def hitting_words(domain: Domain, prompt: Prompt) -> tuple[str, ...]:
    """The domain's recall words and aliases, as written, that hit the prompt."""
    return tuple(word.text for word in domain.words if prompt.hits(word.term))


def match(rules: RuleSet, prompt: Prompt) -> list[Match]:
    """The matched domains, in the rule set's order; nothing under the kill switch."""
    if rules.disabled:
        return []
    called = summoned(prompt.text)
    found: list[Match] = []
    for domain in rules.domains:
        words = hitting_words(domain, prompt)
        is_summoned = domain.name in called
        if is_summoned or (domain.state == "active" and words):
            found.append(Match(domain, words, is_summoned))
    return found

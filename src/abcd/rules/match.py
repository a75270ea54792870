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

import re

import msgspec

from abcd.recall.terms import Prompt
from abcd.rules.loader import Domain, RuleSet

_SUMMONS = re.compile(r"(?<![\w*])\*([A-Z][A-Z0-9_]*)(?![\w*])")


class Match(msgspec.Struct, frozen=True):
    """A domain the prompt brings back: the words that hit it, and whether it was summoned."""

    domain: Domain
    words: tuple[str, ...]
    summoned: bool


def summoned(text: str) -> frozenset[str]:
    """The domain names a prompt summons with `*NAME`."""
    if "*" not in text:
        return frozenset()
    return frozenset(_SUMMONS.findall(text))


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

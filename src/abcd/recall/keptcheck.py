"""Whether the prompt hook's parsed copies hold what their files hold (`abcd journal verify`).

The hook reads a page or the project's `.abcd/memory.json` from its kept
parse (`abcd.recall.stemcache`) while the file's stat is the one it was
parsed under, so the text it sends under a page's name may come from
`<home>/cache/` rather than the page. The cache's checks catch a damaged
file, not one rewritten with abcd's own formats: a program running as you
can make the hook show, under a committed page's name, words the page does
not hold, and leave nothing for `git status` to show. This check makes that
visible: every file a cache keeps under the stat the file still has is read
and parsed again, and a kept parse the hook would use that differs from it
is named, as is a kept recall word whose term is not the term rule's.

It checks the copies of one checkout (the one verify runs in) and those of
the machine's pages, kept for the prompts outside any checkout and in each
checkout's copies alike; another checkout's files are not known here. It
reads the files as the hook does, through the same checks, and writes
nothing.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from abcd.errors import AbcdError
from abcd.recall.items import (
    read_machine_pages,
    read_project_notes,
    read_workspace_pages,
    usable_kept,
)
from abcd.recall.stemcache import CacheDamaged, StemCache, cache_rel, stat_key, with_bodies
from abcd.recall.terms import term_of
from abcd.trust.guarded import Checkout, Home


class _Parsing:
    """The cache's side of the readers (`abcd.recall.items.ParsedFiles`) that parses every file
    again and holds each fresh parse beside the kept one the hook would have used."""

    def __init__(self, kept: StemCache) -> None:
        self.kept = kept
        self.fresh: list[str] = []  # bodies this check set apart (numbered -1, -2, ...)
        self.differs: list[str] = []

    def parsed(self, rel: str, st: os.stat_result) -> Any | None:
        return None  # every file read and parsed again

    def keep(self, rel: str, st: os.stat_result, read_ns: int, parsed: Any) -> bool:
        found = self.kept.files.get(rel)
        if found is None or found[0] != stat_key(st):
            return False  # not kept, or kept for an earlier version: the hook parses it too
        try:
            if usable_kept(found[1], rel) and self._texts(found[1]) != self._texts(parsed):
                self.differs.append(rel)
        except CacheDamaged:
            pass  # a body that does not read back: the hook parses the file again, as here
        return False

    def apart(self, text: str) -> int:
        self.fresh.append(text)
        return -len(self.fresh)

    def text(self, number: int) -> str:
        raise AssertionError("this check reads no kept file's items")  # parsed() keeps nothing

    def _texts(self, value: Any) -> Any:
        """`value` with each body number replaced by its text (kept ones from the cache)."""
        return with_bodies(value, self._text)

    def _text(self, number: int) -> str:
        return self.fresh[-number - 1] if number < 0 else self.kept.text(number)


def kept_differences(home: Home, top: str | None) -> list[str]:
    """One line for each file whose kept parse the hook would use and which differs from the file
    (the checkout at `top`, when given, and the machine pages), and for each kept recall word
    whose term is not the term rule's."""
    found: list[str] = []
    for where in ([top] if top else []) + [""]:
        kept = StemCache(home, where)
        try:
            found += _differences(home, where, kept)
        finally:
            kept.close()
    return found


def _differences(home: Home, top: str, kept: StemCache) -> list[str]:
    name = home.shown(cache_rel(top, "parsed"))
    parsing = _Parsing(kept)
    readers: list[Callable[[], object]] = [lambda: read_machine_pages(home, parsing)]
    checkout = Checkout.open(top) if top else None
    try:
        if checkout is not None:
            readers += [
                lambda: read_project_notes(checkout, parsing),
                lambda: read_workspace_pages(checkout, parsing),
            ]
        for read in readers:
            try:
                read()
            except (AbcdError, OSError):
                continue  # a file the hook refuses too, and so uses no copy of
    finally:
        if checkout is not None:
            checkout.close()
    said = [f"{name} holds {rel} other than the file does" for rel in parsing.differs]
    words = kept.usable_terms()
    said += [
        f"{name} holds the recall word {word!r} as {term!r}, not as the term rule reads it"
        for word, term in sorted(words.items())
        if term != term_of(word)
    ]
    return said

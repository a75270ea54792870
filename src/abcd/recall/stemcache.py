"""The stems of the repository layer's items, kept between prompts: `<home>/cache/stems-<digest>.marshal`.

Ranking counts every item in reach, so each prompt with a candidate would
re-stem the project's notes and every page. This cache maps an item's
content signature (a digest of its kind, layer, title, body and recall
words: `Item.signature`) to the stems of its three fields, so an item is
stemmed once per change of its text. It is keyed by content, so a stale entry
is simply never asked for, and the prompt hook, its only writer, rewrites the
file (atomically, keeping only the entries it used) only when it stemmed
something new. One file per checkout (named by the digest of its top
folder); the session-start sweep removes files untouched for 7 days. A cache
that cannot be read is ignored, never trusted: the items' text always comes
from their own files.
"""

from __future__ import annotations

import marshal
import sys

from abcd.digest import sha256_hex
from abcd.errors import AbcdError
from abcd.recall.bm25f import Doc
from abcd.recall.index import TERM_RULE_VERSION
from abcd.session.files import CACHE_DIR

TYPE_CHECKING = False
if TYPE_CHECKING:
    from abcd.recall.items import Item
    from abcd.trust.guarded import Home

FORMAT = 1
# 10,000 items of ~1 KiB of stems each, with room: past this it is not a file this tool wrote.
CACHE_MAX_BYTES = 32 * 1024 * 1024

Stems = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]


def cache_rel(top: str) -> str:
    return f"{CACHE_DIR}/stems-{sha256_hex(top.encode('utf-8'))[:32]}.marshal"


class StemCache:
    """The entries read at the start of a prompt, and those this prompt used or added."""

    def __init__(self, home: Home | None, top: str) -> None:
        self.home = home
        self.rel = cache_rel(top)
        self.entries: dict[str, Stems] = {}
        self.used: dict[str, Stems] = {}
        self.added = 0
        if home is None:
            return
        try:
            data = home.read(self.rel, CACHE_MAX_BYTES)
            stored = marshal.loads(data) if data else None
        except (AbcdError, OSError, ValueError, EOFError, TypeError):
            stored = None
        if (
            isinstance(stored, dict)
            and stored.get("format") == FORMAT
            and stored.get("python") == sys.implementation.cache_tag
            and stored.get("terms") == TERM_RULE_VERSION
            and isinstance(stored.get("entries"), dict)
        ):
            self.entries = stored["entries"]

    def doc(self, item: Item) -> Doc:
        """The item's document, from the cache when its text was stemmed before."""
        signature = item.signature()
        stems = self.entries.get(signature)
        if stems is None:
            doc = Doc.of(
                item.key,
                recall=item.recall,
                title=item.title,
                body=item.body,
                scope_rank=item.scope_rank,
                recency=item.recency,
            )
            stems = (doc.recall, doc.title, doc.body)
            self.added += 1
        self.used[signature] = stems
        return Doc(item.key, stems[0], stems[1], stems[2], item.scope_rank, item.recency)

    def save(self) -> None:
        """Write the entries this prompt used, when it stemmed anything new (never raises)."""
        if self.home is None or not self.added:
            return
        blob = marshal.dumps(
            {
                "format": FORMAT,
                "python": sys.implementation.cache_tag,
                "terms": TERM_RULE_VERSION,
                "entries": self.used,
            }
        )
        try:
            self.home.write_atomic(self.rel, blob)
        except (AbcdError, OSError):
            pass  # a cache not written costs the next prompt some stemming, nothing else

"""What the repository layer costs to read, kept between prompts: `<home>/cache/stems-<digest>.marshal`.

Every prompt reads the project's notes and pages, checks each recall word
against the prompt and, when something hits, ranks over all of them. Doing
that from scratch parses every page, stems every recall word and every body,
in a new process each prompt. This cache keeps three things, each keyed so
that a stale entry is never used:

- **stems**, by an item's content signature (a digest of its kind, layer,
  title, body and recall words: `Item.signature`): the stems of its fields,
  so an item is stemmed once per change of its text;
- **terms**, by recall word: the word's term under the term rule (the file
  names the term rule's version, and another version's file is ignored);
- **parsed files**, by the file's path under the repository (or the home's
  pages folder) and its stat (size, modification and change times to the
  nanosecond, inode, device): the items parsed from it. A file is kept only
  when it was last modified at least `RACY_NS` before it was read, so a write
  within the file system's timestamp granularity of the read can never leave
  an entry that matches new content (git's "racily clean" rule). A reused
  file is still checked as a read would check it (a regular file, not a
  link, within its bound, and for machine pages owned by this account and
  not writable by others); only its bytes are not read again.

The prompt hook, its only writer, rewrites the file (atomically, keeping only
the entries this prompt used) only when something was new. One file per
checkout (named by the digest of its top folder); the session-start sweep
removes files untouched for 7 days. A cache that cannot be read is ignored,
never trusted: it can only spare work, and holds nothing that is not in the
files it was taken from.
"""

from __future__ import annotations

import marshal
import sys

from abcd.digest import sha256_hex
from abcd.errors import AbcdError
from abcd.recall.bm25f import Doc
from abcd.recall.index import TERM_RULE_VERSION
from abcd.recall.terms import term_of
from abcd.session.files import CACHE_DIR

TYPE_CHECKING = False
if TYPE_CHECKING:
    import os
    from typing import Any

    from abcd.recall.items import Item
    from abcd.recall.terms import Term
    from abcd.trust.guarded import Home

FORMAT = 2
# 10,000 items of ~1 KiB of stems each, with room: past this it is not a file this tool wrote.
CACHE_MAX_BYTES = 32 * 1024 * 1024
# A file modified this close to its read may change again within one timestamp tick (a coarse
# file system's is up to 2 s) without its stat changing: such a file is not kept.
RACY_NS = 2_000_000_000

Stems = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]
StatKey = tuple[int, int, int, int, int]


def cache_rel(top: str) -> str:
    return f"{CACHE_DIR}/stems-{sha256_hex(top.encode('utf-8'))[:32]}.marshal"


def _key(st: os.stat_result) -> StatKey:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)


class StemCache:
    """The entries read at the start of a prompt, and those this prompt used or added."""

    def __init__(self, home: Home | None, top: str) -> None:
        self.home = home
        self.rel = cache_rel(top)
        self.entries: dict[str, Stems] = {}
        self.used: dict[str, Stems] = {}
        self.terms: dict[str, Term | None] = {}
        self.terms_used: dict[str, Term | None] = {}
        self.files: dict[str, tuple[StatKey, Any]] = {}
        self.files_used: dict[str, tuple[StatKey, Any]] = {}
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
            and isinstance(stored.get("words"), dict)
            and isinstance(stored.get("files"), dict)
        ):
            self.entries = stored["entries"]
            self.terms = stored["words"]
            self.files = stored["files"]

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

    def term(self, word: str) -> Term | None:
        """The recall word's term (`None`: it holds no word), from the cache when seen before."""
        if word in self.terms_used:
            return self.terms_used[word]
        if word in self.terms:
            term = self.terms[word]
        else:
            term = term_of(word)
            self.added += 1
        self.terms_used[word] = term
        return term

    def parsed(self, rel: str, st: os.stat_result) -> Any | None:
        """What was parsed from `rel` when it had this very stat, else `None`."""
        kept = self.files.get(rel)
        if kept is None or kept[0] != _key(st):
            return None
        self.files_used[rel] = kept
        return kept[1]

    def keep(self, rel: str, st: os.stat_result, read_ns: int, parsed: Any) -> None:
        """Remember what was parsed from `rel` (read at `read_ns`, with stat `st`), unless racy."""
        if st.st_mtime_ns + RACY_NS < read_ns:
            self.files_used[rel] = (_key(st), parsed)
            self.added += 1

    def save(self) -> None:
        """Write the entries this prompt used, when anything was new (never raises)."""
        if self.home is None or not self.added:
            return
        stored = {
            "format": FORMAT,
            "python": sys.implementation.cache_tag,
            "terms": TERM_RULE_VERSION,
            # A prompt that ranked nothing used no stems: what it did not look at stays as it was.
            "entries": self.used or self.entries,
            "words": self.terms_used or self.terms,
            "files": self.files_used or self.files,
        }
        blob = marshal.dumps(stored)
        if len(blob) > CACHE_MAX_BYTES:  # pages past the bound: keep the stems, read the pages
            stored["files"] = {}
            blob = marshal.dumps(stored)
        try:
            self.home.write_atomic(self.rel, blob)
        except (AbcdError, OSError):
            pass  # a cache not written costs the next prompt some work, nothing else

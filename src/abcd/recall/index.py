"""The derived index of the machine's notes: `<home>/memory.idx`, kept beside `memory.json`.

The prompt hook must not re-read and re-stem every note on every prompt (a
10,000-note view is several megabytes). So each writer, under the journal
lock and right after the view, writes this index from the same fold, with
the same checkpoint. It is a cache: rebuilt from the view whenever it is
missing, stale or from another version, never believed past its checkpoint.

Layout: `MAGIC`, an 8-byte header length, a `marshal`led header, then blobs.
Everything the hook reads per prompt is reached by key without loading the
rest:

- header: format, term-rule version, checkpoint, per root group `(n, total
  length)`, and the offsets of the buckets below;
- recall buckets: first stem of a recall term -> `[(note no, term, group)]`;
- df buckets, per group: stem -> number of notes holding it (any field);
- id buckets: note id -> note no;
- records: per note `(id, title, body, recall, root, written_at,
  recall_stems, title_stems, body_stems, recall_terms)`, and a table of their offsets.

Buckets are keyed by a stem's first two characters, so a prompt reads only
the few buckets its own stems fall in. `marshal` is the interpreter's own
format (no import cost); the header names the interpreter's cache tag and a
reader refuses any other.
"""

from __future__ import annotations

import marshal
import os
import sys

from abcd.digest import sha256_hex
from abcd.errors import AbcdError
from abcd.recall import terms as _terms
from abcd.recall.constants import WEIGHT_BODY, WEIGHT_RECALL, WEIGHT_TITLE
from abcd.recall.terms import stems, term_of, words

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from abcd.trust.guarded import Home

INDEX_FILE = "memory.idx"
MAGIC = b"ABCDIDX1"
FORMAT = 3
# The index is bounded like the view it derives from, with room for the stems it adds.
INDEX_MAX_BYTES = 256 * 1024 * 1024
EVERYWHERE = ""  # the group of notes recalled in every repository (root null)

Record = tuple[
    str,
    str,
    str,
    tuple[str, ...],
    "str | None",
    str,
    tuple[str, ...],
    tuple[str, ...],
    tuple[str, ...],
    tuple[tuple[str, ...], ...],
]


def _term_rule_version() -> str:
    """A digest of the term rule's source: an index built by another term rule is never used."""
    with open(_terms.__file__, "rb") as source:
        return sha256_hex(source.read())[:16]


TERM_RULE_VERSION = _term_rule_version()


def bucket_of(stem: str) -> str:
    return stem[:2]


def id_bucket(note_id: str) -> str:
    """Ids share their `mem-YYMMDD` start; their last digits are random, so they spread the buckets."""
    return note_id[-3:]


def note_record(note: Any) -> Record:
    """A note's record: its seed fields and the stems of its three fields (the term rule's)."""
    in_recall = stems(words(" ".join(note.recall)))
    return (
        note.id,
        note.title,
        note.body,
        tuple(note.recall),
        note.root,
        note.written_at,
        tuple(in_recall),
        tuple(stems(words(note.title))),
        tuple(stems(words(note.body))),
        tuple(term_of(word) or () for word in note.recall),
    )


def weighted_length(record: Record) -> int:
    return (
        WEIGHT_RECALL * len(record[6])
        + WEIGHT_TITLE * len(record[7])
        + WEIGHT_BODY * len(record[8])
    )


def build(
    records: Iterable[Record],
    checkpoint: tuple[int, int, int, str],
    raw: dict[str, bytes] | None = None,
) -> bytes:
    """The index file's bytes for these records (in view order).

    `raw` holds records already marshalled (by note id), reused as they are.
    The per-group counts are taken with `Counter` over each note's distinct
    stems, in C, then split into buckets: a 10,000-note index builds in a
    fraction of a second.
    """
    from collections import Counter

    raw = raw or {}
    recall: dict[str, dict[str, list[tuple[int, tuple[str, ...], str]]]] = {}
    counts: dict[str, Counter[str]] = {}
    ids: dict[str, dict[str, int]] = {}
    groups: dict[str, list[int]] = {}
    blobs: list[bytes] = []
    offsets: list[bytes] = []
    pos = 0
    for no, record in enumerate(records):
        group = record[4] or EVERYWHERE
        stats = groups.setdefault(group, [0, 0])
        stats[0] += 1
        stats[1] += weighted_length(record)
        ids.setdefault(id_bucket(record[0]), {})[record[0]] = no
        for term in record[9]:
            if term:
                recall.setdefault(bucket_of(term[0]), {}).setdefault(term[0], []).append(
                    (no, term, group)
                )
        counter = counts.get(group)
        if counter is None:
            counter = counts[group] = Counter()
        counter.update(set(record[6]).union(record[7], record[8]))
        blob = raw.get(record[0]) or marshal.dumps(record)
        offsets.append(pos.to_bytes(6, "little") + len(blob).to_bytes(4, "little"))
        blobs.append(blob)
        pos += len(blob)
    df: dict[tuple[str, str], dict[str, int]] = {}
    for group, counter in counts.items():
        for stem, n in counter.items():
            key = (group, bucket_of(stem))
            table = df.get(key)
            if table is None:
                table = df[key] = {}
            table[stem] = n
    layout: dict[str, Any] = {}
    sections: list[bytes] = []
    at = 0

    def place(data: bytes) -> tuple[int, int]:
        nonlocal at
        sections.append(data)
        at += len(data)
        return at - len(data), len(data)

    layout["records"] = place(b"".join(blobs))
    layout["offsets"] = place(b"".join(offsets))
    layout["recall"] = {b: place(marshal.dumps(v)) for b, v in recall.items()}
    layout["df"] = {k: place(marshal.dumps(v)) for k, v in df.items()}
    layout["ids"] = {b: place(marshal.dumps(v)) for b, v in ids.items()}
    header = marshal.dumps(
        {
            "format": FORMAT,
            "python": sys.implementation.cache_tag,
            "terms": TERM_RULE_VERSION,
            "checkpoint": tuple(checkpoint),
            "count": len(offsets),
            "groups": {g: tuple(s) for g, s in groups.items()},
            "layout": layout,
        }
    )
    return MAGIC + len(header).to_bytes(8, "little") + header + b"".join(sections)


class IndexUnusable(AbcdError):
    """The index is absent, stale or from another version: recall folds the view instead."""


class Index:
    """An open index: reads its header once, then buckets and records on demand."""

    def __init__(self, fd: int, size: int) -> None:
        self.fd = fd
        head = os.pread(fd, 16, 0)
        if len(head) < 16 or head[:8] != MAGIC:
            raise IndexUnusable("not an abcd index")
        length = int.from_bytes(head[8:16], "little")
        if length > size - 16:
            raise IndexUnusable("the index's header runs past its end")
        header = marshal.loads(os.pread(fd, length, 16))
        if (header.get("format"), header.get("python"), header.get("terms")) != (
            FORMAT,
            sys.implementation.cache_tag,
            TERM_RULE_VERSION,
        ):
            raise IndexUnusable("the index was written by another version")
        self.base = 16 + length
        self.checkpoint: tuple[int, int, int, str] = header["checkpoint"]
        self.count: int = header["count"]
        self.groups: dict[str, tuple[int, int]] = header["groups"]
        self.layout: dict[str, Any] = header["layout"]
        self._records_at: int = self.layout["records"][0]
        self._ids: dict[str, dict[str, int]] = {}

    @classmethod
    def open(cls, home: Home) -> Index:
        opened = home.open_file(INDEX_FILE)
        if opened is None:
            raise IndexUnusable("no index")
        fd, st = opened
        if st.st_size > INDEX_MAX_BYTES:
            os.close(fd)
            raise IndexUnusable("the index is larger than its bound")
        try:
            return cls(fd, st.st_size)
        except (ValueError, EOFError, TypeError, KeyError) as err:
            os.close(fd)
            raise IndexUnusable(f"the index does not decode ({err})") from None
        except BaseException:
            os.close(fd)
            raise

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def _blob(self, where: tuple[int, int]) -> Any:
        return marshal.loads(os.pread(self.fd, where[1], self.base + where[0]))

    def recall_entries(self, first_stems: Iterable[str]) -> list[tuple[int, tuple[str, ...], str]]:
        """`(note no, term, group)` for every recall term starting with one of `first_stems`."""
        wanted: dict[str, list[str]] = {}
        for stem in first_stems:
            wanted.setdefault(bucket_of(stem), []).append(stem)
        found: list[tuple[int, tuple[str, ...], str]] = []
        table = self.layout["recall"]
        for bucket, stems_here in wanted.items():
            if bucket in table:
                entries = self._blob(table[bucket])
                for stem in stems_here:
                    found += entries.get(stem, ())
        return found

    def df(self, group: str, terms: Iterable[str]) -> dict[str, int]:
        """How many notes of `group` hold each term."""
        wanted: dict[str, list[str]] = {}
        for term in terms:
            wanted.setdefault(bucket_of(term), []).append(term)
        out: dict[str, int] = {}
        table = self.layout["df"]
        for bucket, terms_here in wanted.items():
            where = table.get((group, bucket))
            if where is not None:
                counts = self._blob(where)
                for term in terms_here:
                    if term in counts:
                        out[term] = counts[term]
        return out

    def number_of(self, note_id: str) -> int | None:
        bucket = id_bucket(note_id)
        if bucket not in self._ids:
            where = self.layout["ids"].get(bucket)
            self._ids[bucket] = {} if where is None else self._blob(where)
        return self._ids[bucket].get(note_id)

    def record(self, no: int) -> Record:
        entry = os.pread(self.fd, 10, self.base + self.layout["offsets"][0] + 10 * no)
        at, length = int.from_bytes(entry[:6], "little"), int.from_bytes(entry[6:], "little")
        record: Record = marshal.loads(os.pread(self.fd, length, self.base + self._records_at + at))
        return record

    def records(self) -> list[Record]:
        """Every record, in view order (for a writer bringing the index forward)."""
        return [record for record, _ in self.records_raw()]

    def records_raw(self) -> list[tuple[Record, bytes]]:
        """Every record with its stored bytes, in view order."""
        data = os.pread(self.fd, self.layout["records"][1], self.base + self._records_at)
        table = os.pread(self.fd, self.layout["offsets"][1], self.base + self.layout["offsets"][0])
        out = []
        for i in range(0, len(table), 10):
            at, length = (
                int.from_bytes(table[i : i + 6], "little"),
                int.from_bytes(table[i + 6 : i + 10], "little"),
            )
            blob = data[at : at + length]
            out.append((marshal.loads(blob), blob))
        return out


def write_index(home: Home, notes: Iterable[Any], checkpoint: tuple[int, int, int, str]) -> None:
    """Write the index for the view's notes; reuse the records the old index already holds."""
    known: dict[str, tuple[Record, bytes]] = {}
    try:
        old = Index.open(home)
        try:
            known = {record[0]: (record, blob) for record, blob in old.records_raw()}
        finally:
            old.close()
    except (IndexUnusable, OSError, ValueError, EOFError):
        known = {}
    records = []
    raw: dict[str, bytes] = {}
    for note in notes:
        cached = known.get(note.id)
        fields = (note.title, note.body, tuple(note.recall), note.root, note.written_at)
        if cached is not None and cached[0][1:6] == fields:
            records.append(cached[0])
            raw[note.id] = cached[1]
        else:
            records.append(note_record(note))
    home.write_atomic(INDEX_FILE, build(records, checkpoint, raw))


def index_usable(home: Home) -> bool:
    """Whether the index opens under this interpreter and term rule (lagging is fine: it folds forward)."""
    try:
        Index.open(home).close()
    except (IndexUnusable, OSError, ValueError, EOFError):
        return False
    return True


def project_index(home: Home, view: Any) -> None:
    """The journal writer's projection: the index of the view it just wrote, at the same checkpoint."""
    cp = view.journal
    write_index(home, view.notes, (cp.segment, cp.offset, cp.seq, cp.head))

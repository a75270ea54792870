"""`abcd journal verify`: walk the whole chain, name the first seq where it breaks, and check
that the view and the recall index hold exactly what the journal's fold holds.

Why re-derive every hash rather than trust the view: the view is a cache and
the journal is the record; a line edited, deleted, swapped or cut away shows
only as a link whose stored `prev` no longer matches the recomputed hash, a
seq out of its place, or a view whose checkpoint the journal no longer holds.
The break is named by `abcd.journal.chain.diagnose`, the one rule every
command and the hook use.

Why re-fold: a note written into `memory.json` or `memory.idx` by hand
breaks no link. So verify folds the journal to each cache's checkpoint and
names every note the cache holds differently (added, changed or dropped).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from abcd.constants import VIEW_MAX_BYTES
from abcd.digest import view_digest_span
from abcd.errors import TrustError
from abcd.journal.chain import Break, Link, first_break
from abcd.journal.envelope import decode_typed
from abcd.journal.fold import Projection
from abcd.journal.head import Head, read_head
from abcd.journal.segments import Scan, Segments
from abcd.journal.store import VIEW_FILE, last_witnessed, read_links
from abcd.journal.view import EMPTY_VIEW, Checkpoint, View, decode_view, digest_matches
from abcd.trust import Home

if TYPE_CHECKING:
    from abcd.recall.index import Index


@dataclass
class Report:
    events: int = 0
    segments: int = 0
    head: str = ""
    breaks: list[Break] = field(default_factory=list)
    # Notes a cache (the view, the recall index) holds other than the journal's fold does.
    differs: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.breaks and not self.differs


def _fold_to(links: list[Link], seq: int) -> View:
    """The fold of the (intact) journal through `seq`."""
    projection = Projection(EMPTY_VIEW)
    for link in links:
        if link.seq is None or link.seq > seq:
            break
        typed = decode_typed(link.data)
        projection.apply_event(typed.data, typed.at)
    return projection.view(Checkpoint())


def _differences(name: str, held: dict[str, Any], folded: dict[str, Any]) -> list[str]:
    out = []
    for note_id in sorted(held.keys() - folded.keys()):
        out.append(f"{name} holds {note_id}, which the journal never added or has removed")
    for note_id in sorted(folded.keys() - held.keys()):
        out.append(f"{name} lacks {note_id}, which the journal holds")
    for note_id in sorted(k for k in held.keys() & folded.keys() if held[k] != folded[k]):
        out.append(f"{name} holds {note_id} other than the journal wrote it")
    return out


def _view_fields(view: View) -> dict[str, Any]:
    return {n.id: n for n in view.notes}


def _index_fields(view: View) -> dict[str, Any]:
    return {n.id: (n.title, n.body, tuple(n.recall), n.root, n.written_at) for n in view.notes}


def _open_index(home: Home, report: Report) -> Index | None:
    """The recall index as it is now (held open: a compaction's rename leaves it as read), or
    None, said in `report`, when it is not used."""
    from abcd.recall.index import Index, IndexUnusable

    try:
        return Index.open(home)
    except (IndexUnusable, TrustError, OSError, ValueError, EOFError) as err:
        report.notes.append(f"the recall index is not used ({err}); the hook folds the view")
        return None


def _compare_index(index: Index, links: list[Link], report: Report) -> None:
    cp = index.checkpoint
    held = {r[0]: tuple(r[1:6]) for r, _, _ in index.records_raw()}
    found = [link for link in links if link.seq == cp[2]]
    if cp[2] and (not found or found[0].hash() != cp[3]):
        report.breaks.append(
            Break(
                cp[2],
                "the recall index was folded to a line the journal no longer holds",
                "memory.idx",
            )
        )
        return
    report.differs += _differences("memory.idx", held, _index_fields(_fold_to(links, cp[2])))


def verify(home: Home, *, on_bytes: Callable[[int], None] | None = None) -> Report:
    """Check every link of the chain, the view's checkpoint, and both caches against the fold."""
    report = Report()
    scan = Scan()
    # The witnesses first, then the lines: a writer appends its lines before it writes a
    # witness, so lines read after every witness hold each one's line, however busy the home.
    # Read the other way, a writer's append and compaction in between made a witness of a line
    # not read yet, and verify named a break in an intact journal.
    head = read_head(home)
    index = _open_index(home, report)
    try:
        _check(home, head, index, scan, report, on_bytes)
    finally:
        if index is not None:
            index.close()
    return report


def _check(
    home: Home,
    head: Head | None,
    index: Index | None,
    scan: Scan,
    report: Report,
    on_bytes: Callable[[int], None] | None,
) -> None:
    view: View | None = None
    try:
        data = home.read(VIEW_FILE, VIEW_MAX_BYTES)
        if data is not None:
            view = decode_view(data)
            if view.journal.seq and not digest_matches(data):
                if view_digest_span(data) is None:
                    # As every reader and writer takes it: a stale cache, not a witness.
                    report.notes.append(
                        "memory.json predates view digests (an older abcd wrote it): it is "
                        "folded as a stale cache, and the next write replaces it"
                    )
                else:
                    report.differs.append(
                        "memory.json was changed outside abcd (its digest does not match its notes)"
                    )
        else:
            report.notes.append("there is no memory.json; `abcd journal rebuild` writes it")
    except TrustError as err:
        report.notes.append(f"the view cannot be read: {err}; `abcd journal rebuild` replaces it")
    except ValueError as err:
        report.notes.append(f"the view does not decode ({err}); `abcd journal rebuild` replaces it")
    checkpoint = view.journal if view is not None else None
    with Segments(home) as segs:
        links = read_links(segs, scan, on_bytes)
    report.events = len(links)
    report.segments = len({link.segment for link in links})
    report.head = links[-1].hash() if links else ""

    view_cp = (
        (checkpoint.segment, checkpoint.offset, checkpoint.seq, checkpoint.head)
        if checkpoint is not None
        else None
    )
    cp, witness = last_witnessed(head, view_cp) or (None, VIEW_FILE)
    found = first_break(links, cp, torn_inside=scan.torn_inside, witness_file=witness)
    if found is not None:
        report.breaks.append(found)
    if not report.breaks:
        if view is not None:
            folded = _fold_to(links, view.journal.seq)
            report.differs += _differences("memory.json", _view_fields(view), _view_fields(folded))
        if index is not None:
            _compare_index(index, links, report)
    if scan.torn_tail:
        report.notes.append(
            "the last line is torn (an append cut off, or one still being written); the next "
            "write cuts it away if it is not finished"
        )

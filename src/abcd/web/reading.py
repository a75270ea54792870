"""What the desk's pages show, read through the core, and the acts they ask of it.

Nothing here reads the journal its own way: every note, story, send, act,
timeline and replay comes from `abcd.notes.desk`, the one core the CLI's
`memory show/revise/keep/promote` call too. What is added is only what a
page needs on top: the queue's near-duplicates paired for showing side by
side, the distinct authors and sessions a filter offers, which events lie
after a replay's point, and each object flattened into what a template reads.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from abcd.errors import Refused, UsageError
from abcd.journal.history import AuditRow, matches_by, parse_time
from abcd.journal.view import Note
from abcd.notes import desk, listing
from abcd.notes.limits import PERSON
from abcd.notes.project import ProjectNote
from abcd.repo import Repo
from abcd.shapes import count_of

# Near-duplicate pairs shown side by side at most: a home of templated notes can hold
# thousands of pairs, and a page of them helps nobody (the rest are counted, and each
# card still carries its flag).
PAIRS_SHOWN = 30
# The form a send was made in, as a reviewer reads it.
FORMS = {"full": "the whole note", "line": "its title line", "short": "short"}


@dataclass
class Card:
    """A note as the desk shows it: its text, stamps, reach, review state and send count."""

    id: str
    title: str
    body: str
    recall: list[str]
    layer: str  # "machine" (personal) or "project"
    reach: str
    origin: str | None  # None: a project note written by hand, without one
    written_by: str | None
    written_at: str | None
    session: str | None
    revision: int = 0
    revised: str | None = None  # "by WHO at TIME", after a revision
    reviewed: str | None = None  # "by WHO at TIME", when a person kept it as it stands
    waiting: bool = False  # a personal note no person kept or promoted as it stands
    removed: str | None = None  # "by WHO at TIME", when removed (the card shows it as it stood)
    promoted: str | None = None  # "by WHO at TIME", once promoted into a project file
    sends: int | None = None  # None where not counted (the search)
    last_sent: str | None = None
    twins: list[str] = field(default_factory=list)


@dataclass
class Step:
    """One event in a note's history, with the text it gave the note (an add, a revision)."""

    seq: int
    at: str
    type: str
    kind: str  # the class on the timeline: added, revised, reviewed, promoted, removed
    by: str
    session: str | None
    revision: int
    title: str | None
    body: str | None
    recall: list[str]
    what: str | None


@dataclass
class SendRow:
    session: str
    at: str
    form: str
    fill: str
    key: str = ""  # the item sent: a note id, `page:<file>` or `domain:<name>`
    text: str = ""  # which of the note's texts it carried (`revision 1`), when known


@dataclass
class Story:
    note: Card
    events: list[Step]
    sends: list[SendRow]
    removed: bool
    shadowed: bool  # a project note of the same id is recalled instead
    problems: list[str]
    removal: int | None = None  # a removed note's last removal, the seq a restore undoes
    removed_by: str | None = None  # "by WHO at TIME" of that removal

    @property
    def actionable(self) -> bool:
        """Whether the desk offers keep, revise, promote and remove: a live personal note."""
        return not self.removed and self.note.layer == "machine"


@dataclass(frozen=True)
class CardPair:
    first: Card
    second: Card


@dataclass
class Queue:
    notes: list[Card]
    pairs: list[CardPair]
    more_pairs: int  # pairs not shown (past `PAIRS_SHOWN`)


def _stamp(by: str | None, at: str | None) -> str | None:
    """`by WHO at TIME`, the time to the second (the journal's `at` has microseconds)."""
    return f"by {by} at {at[:19].replace('T', ' ')}" if at else None


def _card(note: Note, reach: str) -> Card:
    return Card(
        id=note.id,
        title=note.title,
        body=note.body,
        recall=list(note.recall),
        layer="machine",
        reach=reach,
        origin=note.origin,
        written_by=note.written_by,
        written_at=note.written_at,
        session=note.session,
        revision=note.revision,
        revised=_stamp(note.revised_by, note.revised_at),
        reviewed=_stamp(note.reviewed_by, note.reviewed_at),
        promoted=_stamp(note.promoted_by, note.promoted_at),
        waiting=note.awaits_review,
    )


def _project_card(note: ProjectNote, reach: str) -> Card:
    return Card(
        id=note.id,
        title=note.title,
        body=note.body,
        recall=list(note.recall),
        layer="project",
        reach=reach,
        origin=note.origin,
        written_by=note.written_by,
        written_at=note.written_at,
        session=note.session,
    )


def _entry_card(entry: dict[str, Any]) -> Card:
    """A card from `memory list`'s entry (either layer)."""
    return Card(
        id=entry["id"],
        title=entry["title"],
        body=entry["body"],
        recall=list(entry["recall"]),
        layer=entry["layer"],
        reach=entry["reach"],
        origin=entry["origin"],
        written_by=entry["written_by"],
        written_at=entry["written_at"],
        session=entry["session"],
        revision=entry.get("revision", 0),
        revised=_stamp(entry.get("revised_by"), entry.get("revised_at")),
        reviewed=_stamp(entry.get("reviewed_by"), entry.get("reviewed_at")),
        promoted=_stamp(entry.get("promoted_by"), entry.get("promoted_at")),
        waiting=entry["layer"] == "machine" and not entry["reviewed"],
    )


@dataclass
class Found:
    """`/notes`: the notes of both layers a search admits, and a layer that could not be read."""

    cards: list[Card]
    unreadable: list[str]
    asked: dict[str, str]


def find(repo: Repo | None, asked: dict[str, str]) -> Found:
    """`memory list --search/--by/--since/--unreviewed`, as the page's form asks it."""
    flt = desk.Filter(
        text=asked.get("search") or None,
        by=asked.get("by") or None,
        since=asked.get("since") or None,
        unreviewed=asked.get("unreviewed") == "yes",
    )
    listed = desk.find(flt, repo)
    return Found([_entry_card(e) for e in listed.entries], list(listed.unreadable), asked)


def queue(repo: Repo | None) -> Queue:
    """Unreviewed personal notes, the most-sent first, and their near-duplicates in pairs."""
    cards: list[Card] = []
    for item in desk.queue(repo):
        card = _card(item.note, item.reach)
        card.sends, card.last_sent, card.twins = item.sends, item.last_sent, list(item.twins)
        cards.append(card)
    pairs, more = _pairs(cards, repo)
    return Queue(cards, pairs, more)


def _pairs(cards: list[Card], repo: Repo | None) -> tuple[list[CardPair], int]:
    """Each near-duplicate pair once, the most-sent first, at most `PAIRS_SHOWN` of them, and
    how many more there are; a twin outside the queue (already kept) is read too."""
    by_id = {card.id: card for card in cards}
    pairs: list[CardPair] = []
    total = 0
    for card in cards:
        for twin in card.twins:
            if twin in by_id and twin < card.id:
                continue  # the pair of two queued notes is met twice: counted at the first
            total += 1
            if len(pairs) < PAIRS_SHOWN:
                other = by_id.get(twin) or _live_card(twin, repo)
                if other is not None:
                    pairs.append(CardPair(card, other))
    return pairs, total - len(pairs)


def _live_card(note_id: str, repo: Repo | None) -> Card | None:
    told = desk.story(note_id, repo)
    return _card(told.note, told.reach) if told.note is not None else None


def story(note_id: str, repo: Repo | None) -> Story | None:
    """A note's whole story, or None when no layer and no event knows the id."""
    try:
        told = desk.story(note_id, repo)
    except Refused:
        return None
    steps = [
        Step(
            seq=entry.seq,
            at=entry.at,
            type=entry.type,
            kind=entry.type.rpartition(".")[2],
            by=entry.by,
            session=entry.session,
            revision=entry.revision,
            title=entry.title,
            body=entry.body,
            recall=list(entry.recall or ()),
            what=entry.detail,
        )
        for entry in told.history
    ]
    if told.note is not None:
        card = _card(told.note, told.reach)
    elif told.project is not None:
        card = _project_card(told.project, told.reach)
    elif told.removal is not None:  # removed: as it stood, with who removed it
        card = _card(told.removal.note, listing.reach(told.removal.note, repo))
        card.waiting = False
        card.removed = _stamp(told.removal.by, told.removal.at)
    else:  # removed, and no removal event holds it (cannot be, but never a blank page)
        last = next(step for step in reversed(steps) if step.title is not None)
        card = Card(
            id=note_id,
            title=last.title or "",
            body=last.body or "",
            recall=last.recall,
            layer="machine",
            reach=told.reach,
            origin="",
            written_by=steps[0].by,
            written_at=steps[0].at,
            session=steps[0].session,
        )
    card.sends = len(told.sent)
    sends = [_send_row(send) for send in told.sent]
    return Story(
        card,
        steps,
        sends,
        removed=told.removed,
        shadowed=told.note is not None and told.project is not None,
        problems=list(told.problems),
        removal=next((s.seq for s in reversed(steps) if s.type == "note.removed"), None)
        if told.removed
        else None,
        removed_by=_stamp(told.removal.by, told.removal.at) if told.removal is not None else None,
    )


def _send_row(send: desk.Send) -> SendRow:
    return SendRow(
        session=send.shown_session,
        at=send.at,
        form=FORMS.get(send.form, send.form),
        fill=f"{send.percent:.0f}% ({send.fill})" if send.percent is not None else send.fill,
        key=send.key,
        text=send.text or "",
    )


def as_sent(text: str, *, one_line: bool = False) -> str:
    """What a browser sends back for `text` held in the revise form, untouched (HTML's parsing
    and form submission): every line break as CRLF (a textarea's) or none at all (an input's),
    and a NUL as U+FFFD. A note's own body (`two\\nlines`) came back `two\\r\\nlines`, so an
    unchanged save revised every note of more than one line."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "\ufffd")
    return text.replace("\n", "" if one_line else "\r\n")


def draft_of(story: Story) -> dict[str, str]:
    """The revise form's fields, filled with the note's current text."""
    note = story.note
    return {"title": note.title, "body": note.body, "recall": ", ".join(note.recall)}


# The acts: a person's, at the desk (its form carried the run's token).


def _cwd(repo: Repo | None) -> Path | None:
    return Path(repo.top) if repo is not None else None


def _seen(text: str) -> int:
    """The revision the person read, from the form. The desk's forms always send it, so a form
    without it, or with anything but a revision number, is refused, never read as "not said"
    (which would act on a text no one read)."""
    seen = count_of(text)
    if seen is None:
        raise Refused(
            "not a revision", "seen", message="refused: the form's seen is not a revision number"
        )
    return seen


@contextmanager
def _landed() -> Iterator[list[str]]:
    """The warnings list an act appends to once its line is in the journal (a cache that could
    not be written), said on the desk's terminal as the commands say them. Without one, the
    core raises them, and the page called refused an act the journal holds."""
    warnings: list[str] = []
    try:
        yield warnings
    finally:
        for warning in warnings:
            try:
                print(f"abcd review: warning: written, but {warning}", file=sys.stderr, flush=True)
            except OSError:  # the terminal is gone (closed while the act was finished)
                pass


def keep(note_id: str, repo: Repo | None, seen: str) -> None:
    with _landed() as warnings:
        desk.keep(note_id, by=PERSON, seen=_seen(seen), cwd=_cwd(repo), warnings=warnings)


def revise(note_id: str, repo: Repo | None, draft: dict[str, str], seen: str) -> None:
    # A line the person typed ends as a command's does; a field sent back as a browser sends the
    # note's own text (`as_sent`) is the note's text, unchanged.
    title, body = draft["title"], draft["body"].replace("\r\n", "\n")
    held = story(note_id, repo)
    if held is not None:
        current = draft_of(held)
        if draft["title"] == as_sent(current["title"], one_line=True):
            title = current["title"]
        if draft["body"] == as_sent(current["body"]):
            body = current["body"]
    with _landed() as warnings:
        desk.revise(
            note_id,
            by=PERSON,
            title=title,
            body=body,
            # The form's one field holds the words split by commas; blanks between them dropped.
            recall=[word for word in draft["recall"].split(",") if word.strip()],
            seen=_seen(seen),
            cwd=_cwd(repo),
            warnings=warnings,
        )


def promote(note_id: str, repo: Repo | None, seen: str) -> str:
    """Promote the note; the project file it was written into, as shown."""
    with _landed() as warnings:
        return desk.promote(
            note_id, by=PERSON, seen=_seen(seen), cwd=_cwd(repo), warnings=warnings
        ).file


def remove(note_id: str, repo: Repo | None, seen: str) -> None:
    with _landed() as warnings:
        desk.remove(note_id, by=PERSON, seen=_seen(seen), cwd=_cwd(repo), warnings=warnings)


def check_promote(note_id: str, repo: Repo | None) -> None:
    """`Refused` when a promotion of the note would be (said on the page before the person ticks)."""
    desk.check_promotion(desk.story(note_id, repo), repo)


def check_restore(note_id: str, repo: Repo | None) -> None:
    """`Refused` when a restore of the note would be (said on the page before the person ticks)."""
    desk.check_restore(note_id, repo)


def restore(note_id: str, repo: Repo | None, seen: str) -> None:
    """Restore the note; `seen` is the seq of the removal the page showed (`_seen`'s rule)."""
    with _landed() as warnings:
        desk.restore(note_id, by=PERSON, seen=_seen(seen), cwd=_cwd(repo), warnings=warnings)


@dataclass
class Timeline:
    """The journal's events (filtered) and the view as of a point, for `/journal`."""

    rows: list[AuditRow]
    after: set[int]  # seqs of the shown rows that lie after the replay's point
    notes: tuple[Note, ...]  # the view as of the point
    last_seq: int
    seq: int  # the replay's point: the last event folded
    at: str  # the time asked for, as given ("" when a seq was asked for)
    by: str | None
    session: str | None
    authors: list[str]
    sessions: list[str]
    sent: list[SendRow]  # every item sent to the session filtered by, from its ledger


def timeline(
    *,
    seq: str | None = None,
    at: str | None = None,
    by: str | None = None,
    session: str | None = None,
) -> Timeline:
    """The events matching `by` and `session`, and the view as of `at` (a time) or `seq`."""
    if at:
        parse_time(at)  # a time that is not one is said even before there is a journal
    if seq and count_of(seq) is None:
        raise UsageError(f"not a seq: {seq!r} (the number of an event in the journal)")
    every = desk.timeline()
    last_seq = every[-1].seq if every else 0
    point_asked = at or seq
    view = desk.as_of(point_asked or str(last_seq))
    point = view.journal.seq
    rows = [
        row
        for row in every
        if (by is None or matches_by(row.by, by)) and (session is None or row.session == session)
    ]
    return Timeline(
        rows=rows,
        after={row.seq for row in rows if row.seq > point},
        notes=view.notes,
        last_seq=last_seq,
        seq=point,
        at=at or "",
        by=by,
        session=session,
        authors=_authors(row.by for row in every),
        sessions=_distinct(row.session for row in every if row.session),
        sent=[_send_row(send) for send in desk.session_sends(session)] if session else [],
    )


def _distinct(values: Iterable[str | None]) -> list[str]:
    return sorted({value for value in values if value})


def _authors(values: Iterable[str]) -> list[str]:
    """The authors a filter offers: each writer, and each vendor of a model among them
    (`Claude`, which `--by Claude` and the filter match for every Claude model)."""
    found = {value for value in values if value}
    return sorted(found | {value.split(":", 1)[0] for value in found if ":" in value})

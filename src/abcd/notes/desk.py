"""The reviewer's desk: one core that `abcd memory show/revise/keep/promote/list` and the
desk's web page (`abcd review`) both call, so neither has its own reading of the journal.

What is final (the web page builds against it): every name in `__all__`, the
signatures below and the fields of the frozen dataclasses they return. A
person's act (`keep`, `promote`) is done here once the edge has told it is a
person's: the CLI asks at a terminal, the page on a form carrying its token;
these functions do not ask. Refusals raise `abcd.errors.Refused` (one line,
nothing written); the edge maps them to an exit code or a page's message.

- `story(id)`: the note now (personal and/or project), its history (every
  event on it, each revision's text) and its sends (`Story.to_json(repo)` is the
  `memory show --json` form: `note`, `history`, `sent`).
- `queue()`: unreviewed personal notes, the most-sent first, near-duplicates
  flagged (`QueueItem.twins`).
- `find(Filter)`: `memory list`'s entries with `--search/--by/--since/--unreviewed`.
- `removed(by, since)`: `memory removed`'s notes, each as it stood when last removed.
- `revise`, `keep`, `promote`, `remove`, `restore`: the acts, each one
  journal event; `check_promotion(story, repo)` and `check_restore(id,
  repo)` say before the person is asked whether the act would be refused.
- `session_sends(id)`: every item one session was sent.
- `timeline(...)` and `as_of(...)`: the journal's audit rows and the replayed view.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from abcd.errors import AbcdError, Refused
from abcd.journal.events import (
    NoteAdded,
    NotePromoted,
    NoteRemoved,
    NoteRestored,
    NoteReviewed,
    NoteRevised,
)
from abcd.journal.history import (
    AuditRow,
    Removal,
    audit,
    audit_row,
    matches_by,
    now_and_as_removed,
    parse_time,
    records,
    removed_notes,
    replay,
)
from abcd.journal.view import Note, View, waits_for_review
from abcd.notes import listing
from abcd.notes.limits import check_note_id
from abcd.notes.project import ProjectNote, read_project_notes
from abcd.notes.promote import Promoted, check_promotable, promote_note, promotion_target
from abcd.notes.provenance import Send, read_ledgers
from abcd.notes.provenance import session_sends as _session_sends
from abcd.notes.review import (
    check_not_kept,
    check_restorable,
    keep_note,
    removed_note,
    restore_note,
    revise_note,
)
from abcd.notes.service import Removed, missing_note, project_note_refused, remove_note
from abcd.repo import Repo
from abcd.trust import Home

__all__ = [
    "Filter",
    "HistoryEntry",
    "Promoted",
    "QueueItem",
    "Removal",
    "Send",
    "Story",
    "as_of",
    "check_promotion",
    "check_restore",
    "find",
    "keep",
    "promote",
    "queue",
    "remove",
    "removed",
    "restore",
    "revise",
    "session_sends",
    "story",
    "timeline",
]

# Two notes are flagged as near-duplicates when this share of their words is common to both
# (Jaccard over the lower-cased words of title, body and recall words): a retry reworded,
# or the same lesson learned twice, shares most words; two notes on one subject share fewer.
# Or when this share of their titles' content stems is (the term rule's stems, less the second
# tier's stop words): a lesson learned twice is often titled alike and told in other words
# ("Use npm ci in CI", "CI uses npm ci"); no two of the recall set's 133 notes are, at 0.5.
NEAR_DUPLICATE = 0.6
# Pairs are found through the words they share, never by comparing every note with every
# other (10,000 notes would be 50 million pairs). A word in more notes than this ("the",
# the project's name) finds no pair alone: two notes alike enough share rarer words too.
TWIN_WORD_MAX_NOTES = 64
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class HistoryEntry:
    """One event on a note, oldest first: what it was, who did it, and the text it wrote."""

    seq: int
    at: str
    type: str  # the event's tag: note.added, note.revised, note.reviewed, ...
    by: str
    session: str | None
    revision: int  # the note's revision this event wrote (add 0, revise n) or acted on
    title: str | None = None  # the text an add or a revision wrote; None for other events
    body: str | None = None
    recall: tuple[str, ...] | None = None
    detail: str | None = None  # what a keep, promotion or removal did, in words


@dataclass(frozen=True)
class Story:
    """A note's whole story: as it is now in each layer, every event on it, every send."""

    id: str
    note: Note | None  # the personal note now; None when removed (or only a project note)
    project: ProjectNote | None  # this checkout's project note of the same id
    reach: str  # where it is recalled, in `memory list`'s words
    removed: bool
    history: tuple[HistoryEntry, ...]
    sent: tuple[Send, ...]
    problems: tuple[str, ...] = ()  # ledgers or a layer that could not be read
    removal: Removal | None = None  # when removed: its last removal, and the note as it stood

    def promoted_then_changed(self) -> int | None:
        """The revision this home last promoted, when the project's note of the same id no
        longer holds its text (a teammate's hand edit, pulled): `None` when it does, or when
        this home promoted no text of it. The file's stamps are the promotion's, not the edit's."""
        if self.project is None:
            return None
        promoted = [h.revision for h in self.history if h.type == "note.promoted"]
        texts = {h.revision: (h.title, h.body, h.recall) for h in self.history if h.title}
        if not promoted or promoted[-1] not in texts:
            return None
        p = self.project
        same = texts[promoted[-1]] == (p.title, p.body, tuple(p.recall))
        return None if same else promoted[-1]

    def to_json(self, repo: Repo | None) -> dict[str, Any]:
        """`abcd memory show --json`: `note`, `removed` (and `removal`: the note as it stood),
        `history` and `sent` (and `problems`)."""
        return {
            "note": _note_json(self),
            "removed": self.removed,
            "removal": removal_entry(self.removal, repo) if self.removal is not None else None,
            "history": [_plain(h) for h in self.history],
            "sent": [_plain(s) for s in self.sent],
            "problems": list(self.problems),
        }


@dataclass(frozen=True)
class QueueItem:
    """A personal note awaiting a person's review, how often it was sent, and its look-alikes."""

    note: Note
    reach: str
    sends: int
    last_sent: str | None
    twins: tuple[str, ...]  # ids of near-duplicate live notes


@dataclass(frozen=True)
class Filter:
    """`memory list`'s filters; each given one must hold."""

    text: str | None = None  # in the id, title, body or a recall word (any case)
    by: str | None = None  # who wrote or revised it (`Claude` matches every Claude model)
    since: str | None = None  # written or revised at or after this time (RFC 3339 or a date)
    unreviewed: bool = False  # personal notes no person has kept or promoted as they stand
    here: bool = False  # notes recalled in this checkout (its own, everywhere, its project's)

    def matches(self, entry: dict[str, Any]) -> bool:
        if self.text is not None:
            needle = self.text.casefold()
            hay = (entry["id"], entry["title"], entry["body"], *entry["recall"])
            if not any(needle in part.casefold() for part in hay):
                return False
        if self.by is not None:
            writers = [w for w in (entry.get("written_by"), entry.get("revised_by")) if w]
            if not any(matches_by(w, self.by) for w in writers):
                return False
        if self.since is not None:
            since = parse_time(self.since)
            times = [t for t in (entry.get("written_at"), entry.get("revised_at")) if t]
            if not any(t >= since for t in times):
                return False
        if self.here and entry["reach"] == listing.ANOTHER_REPOSITORY:
            return False
        if not self.unreviewed:
            return True
        return entry["layer"] == "machine" and waits_for_review(
            entry["reviewed_at"], entry["promoted_at"], entry["revised_at"]
        )


def find(flt: Filter, repo: Repo | None = None) -> listing.Listed:
    """Every note in both layers that `flt` admits (as `memory list` shows them)."""
    if flt.since is not None:
        parse_time(flt.since)  # a bad time is a usage error before anything is read
    listed = listing.list_notes(repo)
    listed.entries = [e for e in listed.entries if flt.matches(e)]
    return listed


def removed(*, by: str | None = None, since: str | None = None) -> list[Removal]:
    """The personal notes removed now, each as it stood at its last removal, the newest removal
    first; `by`: removed by (as `matches_by`), `since`: removed at or after (RFC 3339 or a date)."""
    since_at = parse_time(since) if since is not None else None
    home = Home.open()
    if home is None:
        return []
    with home:
        gone = removed_notes(home)
    return [
        r
        for r in gone
        if (by is None or matches_by(r.by, by)) and (since_at is None or r.at >= since_at)
    ]


def story(note_id: str, repo: Repo | None = None) -> Story:
    """The note's story; `Refused` when no layer and no event knows the id."""
    check_note_id(note_id)
    problems: list[str] = []
    try:
        project = next((p for p in read_project_notes(repo) if p.id == note_id), None)
    except AbcdError as err:
        project = None
        problems.append(f"project notes unreadable: {err}")
    history: list[HistoryEntry] = []
    sessions: set[str | None] = set()
    note: Note | None = None
    removed = False
    home = Home.open()
    if home is not None:
        with home:
            revision = 0
            for record in records(home):
                event = record.event
                sessions.add(event.session)
                if getattr(event, "id", None) != note_id:
                    continue
                if isinstance(event, NoteRevised):
                    revision += 1
                elif isinstance(event, NoteAdded):
                    revision = 0
                elif isinstance(event, NoteRestored):
                    revision = event.note.revision
                history.append(_entry(audit_row(record), event, revision))
            note = next((n for n in _view(home).notes if n.id == note_id), None)
            removed = note is None and bool(history)
            removal = now_and_as_removed(home, note_id)[1] if removed else None
            ledgers = read_ledgers(home, sessions)
    else:
        ledgers = read_ledgers(None)
        removal = None
    if note is None and project is None and not history:
        # The project's file may hold it: a file no reader reads is named, not passed over.
        unread = "".join(f"; {problem}" for problem in problems)
        found = " in what could be read" if problems else ""
        raise Refused("unknown id", message=f"refused: no note {note_id}{found}{unread}")
    reach = listing.PROJECT if project is not None else "removed"
    if note is not None:
        reach = listing.reach(note, repo)
    texts = _texts_sent(history, project)
    return Story(
        id=note_id,
        note=note,
        project=project,
        reach=reach,
        removed=removed,
        history=tuple(history),
        sent=tuple(replace(s, text=texts.get(s.signature)) for s in ledgers.of(note_id)),
        problems=tuple(problems + ledgers.problems),
        removal=removal,
    )


def _texts_sent(history: Sequence[HistoryEntry], project: ProjectNote | None) -> dict[str, str]:
    """Which of a note's texts a send carried, by the ledger's signature of it: `revision N` for
    each text an add or a revision wrote (the personal note's), `the project's copy` for the
    checkout's project note of the same id."""
    from abcd.recall.items import content_signature

    texts = {}
    for entry in history:
        if entry.title is not None and entry.body is not None and entry.recall is not None:
            signature = content_signature("note", "machine", entry.title, entry.body, entry.recall)
            texts[signature] = f"revision {entry.revision}"
    if project is not None:
        signature = content_signature(
            "note", "project", project.title, project.body, project.recall
        )
        texts[signature] = "the project's copy"
    return texts


def queue(repo: Repo | None = None) -> tuple[QueueItem, ...]:
    """Unreviewed live personal notes, the most-sent first (then the newest), twins flagged."""
    home = Home.open()
    if home is None:
        return ()
    with home:
        view = _view(home)
        ledgers = read_ledgers(home, {n.session for n in view.notes})
    counts = ledgers.counts()
    last: dict[str, str] = {s.key: s.at for s in ledgers.sends}
    waiting = [n for n in view.notes if n.awaits_review]
    twins = _twins(view.notes, {n.id for n in waiting})
    items = [
        QueueItem(
            note=n,
            reach=listing.reach(n, repo),
            sends=counts.get(n.id, 0),
            last_sent=last.get(n.id),
            twins=twins.get(n.id, ()),
        )
        for n in waiting
    ]
    items.sort(key=lambda q: q.note.revised_at or q.note.written_at, reverse=True)
    items.sort(key=lambda q: q.sends, reverse=True)
    return tuple(items)


def revise(
    note_id: str,
    *,
    by: str,
    title: str | None = None,
    body: str | None = None,
    recall: Sequence[str] | None = None,
    session: str | None = None,
    seen: int | None = None,
    cwd: Path | None = None,
    warnings: list[str] | None = None,
) -> Note:
    """Revise a personal note (the gate judges the new text as an add); the note after it."""
    return revise_note(
        note_id,
        title=title,
        body=body,
        recall=recall,
        revised_by=by,
        session=session,
        seen=seen,
        cwd=cwd,
        warnings=warnings,
    )


def keep(
    note_id: str,
    *,
    by: str = "person",
    session: str | None = None,
    seen: int | None = None,
    cwd: Path | None = None,
    warnings: list[str] | None = None,
) -> Note:
    """A person keeps the note as it stands (`note.reviewed`); the note after it."""
    return keep_note(
        note_id, reviewed_by=by, session=session, seen=seen, cwd=cwd, warnings=warnings
    )


def promote(
    note_id: str,
    *,
    by: str = "person",
    session: str | None = None,
    seen: int | None = None,
    cwd: Path | None = None,
    warnings: list[str] | None = None,
) -> Promoted:
    """Write the note into this checkout's `.abcd/memory.json` (uncommitted) and record it.

    Call only after a person confirmed it (the edge's job: a terminal, or the
    desk's form).
    """
    return promote_note(
        note_id, promoted_by=by, session=session, seen=seen, cwd=cwd, warnings=warnings
    )


def _personal(story: Story) -> Note:
    """The story's personal note, or `Refused` saying why there is none to act on."""
    if story.note is None:
        if story.project is not None:
            raise project_note_refused(story.id)
        raise Refused("not a personal note", message=f"refused: {story.id} is removed")
    return story.note


def check_promotion(story: Story, repo: Repo | None) -> Note:
    """The personal note a promotion would write into `repo`, or `Refused` saying why not.

    For the edge to call before it asks the person (the act checks again,
    under the journal lock).
    """
    target = promotion_target(repo)
    note = _personal(story)
    check_promotable(note, target)
    return note


def check_keep(story: Story) -> Note:
    """The personal note a keep would keep, or `Refused` saying why not (removed, a project
    note only, already kept as it stands). For the edge to call before it shows the text and
    asks; the act checks again under the journal lock, against the revision shown."""
    note = _personal(story)
    check_not_kept(note)
    return note


def remove(
    note_id: str,
    *,
    by: str = "person",
    session: str | None = None,
    seen: int | None = None,
    cwd: Path | None = None,
    warnings: list[str] | None = None,
) -> Removed:
    """Remove a personal note (`note.removed`); its id and title, as the command says them."""
    return remove_note(
        note_id, removed_by=by, session=session, seen=seen, cwd=cwd, warnings=warnings
    )


def check_restore(note_id: str, repo: Repo | None) -> Removal:
    """The removal a restore would undo (the note as it stood, and the removal's seq), or
    `Refused` saying why not: not removed, never a personal note, or a text the gate refuses
    today. For the edge to call before it shows the text and asks, and to pass the seq back as
    `restore`'s `seen`; the act checks again under the journal lock."""
    check_note_id(note_id)
    home = Home.open()
    if home is None:
        raise missing_note(note_id, repo, removed=False)
    with home:
        removal = removed_note(home, note_id, repo)
    check_restorable(removal.note, repo)
    return removal


def restore(
    note_id: str,
    *,
    by: str = "person",
    session: str | None = None,
    seen: int | None = None,
    cwd: Path | None = None,
    warnings: list[str] | None = None,
) -> Note:
    """Bring a removed personal note back as it stood (`note.restored`); the note restored.

    Call only after a person confirmed it, with `seen` the seq of the removal they read about.
    """
    return restore_note(
        note_id, restored_by=by, session=session, seen=seen, cwd=cwd, warnings=warnings
    )


def session_sends(session_id: str) -> tuple[Send, ...]:
    """Every item (notes, pages, rule domains) the hook sent to one session, oldest first."""
    home = Home.open()
    if home is None:
        return ()
    with home:
        return tuple(_session_sends(home, session_id).sends)


def timeline(
    *,
    note: str | None = None,
    by: str | None = None,
    session: str | None = None,
    since: str | None = None,
) -> list[AuditRow]:
    """The journal's events as `journal audit` lists them, oldest first, filtered."""
    home = Home.open()
    if home is None:
        return []
    with home:
        return audit(home, note=note, by=by, session=session, since=since)


def as_of(when: str) -> View:
    """The personal notes as they were after seq `when`, or at time `when` (`journal replay`)."""
    home = Home.open()
    if home is None:
        return View()
    with home:
        return replay(home, when)


# --- helpers ---------------------------------------------------------------------------


def _view(home: Home) -> View:
    from abcd.journal.store import load

    return load(home).view


def _entry(row: AuditRow, event: Any, revision: int) -> HistoryEntry:
    if isinstance(event, NoteAdded | NoteRevised):
        return HistoryEntry(
            row.seq,
            row.at,
            row.type,
            row.by,
            row.session,
            revision,
            event.title,
            event.body,
            tuple(event.recall),
        )
    acted = event.revision if isinstance(event, NoteReviewed | NotePromoted) else revision
    if isinstance(event, NoteRestored):
        acted = event.note.revision
    detail = "removed" if isinstance(event, NoteRemoved) else row.said
    return HistoryEntry(row.seq, row.at, row.type, row.by, row.session, acted, detail=detail)


def _twins(notes: Sequence[Note], wanted: set[str]) -> dict[str, tuple[str, ...]]:
    """For each note in `wanted`, the live notes alike enough to be flagged, oldest first: alike
    in all their words, or in their titles' content stems (`NEAR_DUPLICATE`)."""
    words = [_words(n) for n in notes]
    titles = [_title_stems(n) for n in notes]
    postings, title_postings = _postings(words), _postings(titles)
    out: dict[str, tuple[str, ...]] = {}
    for number, note in enumerate(notes):
        if note.id not in wanted:
            continue
        alike = _near(number, words, postings) | _near(number, titles, title_postings)
        if alike:
            out[note.id] = tuple(notes[o].id for o in sorted(alike))
    return out


def _postings(sets: Sequence[frozenset[str]]) -> dict[str, list[int]]:
    postings: dict[str, list[int]] = {}
    for number, held in enumerate(sets):
        for word in held:
            postings.setdefault(word, []).append(number)
    return postings


def _near(number: int, sets: Sequence[frozenset[str]], postings: dict[str, list[int]]) -> set[int]:
    """The notes whose set is alike note `number`'s, found through the words they share."""
    near: set[int] = set()
    for word in sets[number]:
        found = postings[word]
        if len(found) <= TWIN_WORD_MAX_NOTES:
            near.update(found)
    near.discard(number)
    return {o for o in near if _alike(sets[number], sets[o])}


def _words(note: Note) -> frozenset[str]:
    text = " ".join((note.title, note.body, *note.recall)).casefold()
    return frozenset(_WORD.findall(text))


def _title_stems(note: Note) -> frozenset[str]:
    """The content stems of a note's title (the term rule's, less the stop words); none when it
    has fewer than two, since one word ("Tests", "Testing") says too little to pair two notes."""
    from abcd.recall.second import STOP_STEMS
    from abcd.recall.terms import tokens

    stems = frozenset(tokens(note.title)) - STOP_STEMS
    return stems if len(stems) >= 2 else frozenset()


def _alike(a: frozenset[str], b: frozenset[str]) -> bool:
    if not a or not b:
        return False
    return len(a & b) / len(a | b) >= NEAR_DUPLICATE


def _plain(obj: Any) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in obj.__dict__.items()}


def removal_entry(removal: Removal, repo: Repo | None) -> dict[str, Any]:
    """A removed note as it stood just before its last removal, and that removal's stamps, as
    `memory removed --json` and `memory show --json` give them."""
    return {
        **listing.machine_entry(removal.note, repo),
        "removed_by": removal.by,
        "removed_at": removal.at,
        "removed_seq": removal.seq,
        "removed_session": removal.session,
        "live_as": removal.twin,
    }


def _note_json(s: Story) -> dict[str, Any] | None:
    """The note as `memory list --json` gives it (the personal one when it is live)."""
    if s.note is not None:
        out = listing.note_entry(s.note, s.reach)
        out["shadowed_by_project"] = s.project is not None
        return out
    if s.project is not None:
        return listing.project_entry(s.project)
    return None

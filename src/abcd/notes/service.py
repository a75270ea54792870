"""The note commands' core: add, import, remove and the summary, called by the thin CLI.

Every write runs shape checks, then the gate, then one journal append whose
plan (ids minted and checked unique, a removed note checked present) runs
under the journal lock. A refusal raises before anything is written.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from abcd.constants import SESSION_ENV
from abcd.errors import AbcdError, Refused
from abcd.gate import judge_note, judge_stamps, load_private_names
from abcd.journal import store
from abcd.journal.events import Event, NoteAdded, NoteRemoved, Origin
from abcd.journal.view import Note
from abcd.notes.ids import Minter
from abcd.notes.limits import Draft, check_note_id
from abcd.notes.project import ProjectNote, read_project_notes
from abcd.recall.index import project_index
from abcd.repo import Repo, find_repo
from abcd.trust import Home
from abcd.trust.guarded import foreign_repository

# Caches derived from the view, written with it under the journal lock.
PROJECTIONS = (project_index,)


def session_from(flag: str | None) -> tuple[str | None, str]:
    """The session stamp and where it came from: `--session`, else the host's environment."""
    if flag:
        return flag, "--session"
    return os.environ.get(SESSION_ENV) or None, SESSION_ENV


@dataclass(frozen=True)
class Judged:
    """A draft that passed the gate, with the root it will be tied to."""

    draft: Draft
    root: str | None


def _private_names(repo: Repo | None) -> list[str]:
    return load_private_names(repo.private_names_checkouts()) if repo else []


def check_stamps(stamps: Sequence[tuple[str, str | None]], repo: Repo | None) -> None:
    """Refuse a write whose stamps (`--by`, the session) hold a secret or a private name.

    A stamp goes into the append-only journal for ever; each is `(field, value)`.
    """
    refusal = stamp_refusal(stamps, repo)
    if refusal is not None:
        raise refusal


def stamp_refusal(stamps: Sequence[tuple[str, str | None]], repo: Repo | None) -> Refused | None:
    """The gate's refusal of stamps, each `(field, value)`, or `None`: the one judgement of a
    stamp, for a write's own (`check_stamps`) and a note's on their way into the project's
    file (a promotion)."""
    finding = judge_stamps(stamps, private_names=_private_names(repo))
    return None if finding is None else Refused(finding.kind, finding.field)


def check_checkout(note: Note, repo: Repo | None, act: str) -> None:
    """Refuse to `act` on a note tied to a repository anywhere but in a checkout of it: its
    text is judged against that checkout's private names, which only it holds."""
    if note.root is not None and (repo is None or repo.root_commit != note.root):
        raise Refused(
            "another repository's note",
            message=f"refused: {note.id} is tied to another repository (root {note.root[:12]}); "
            f"{act} it from a checkout of that repository",
        )


def judge_text(draft: Draft, repo: Repo | None, names: list[str] | None = None) -> Refused | None:
    """The gate's refusal of a draft's text (title, body, recall words), or `None`.

    The one judgement of a note's words: an add, a revision and a promotion
    each pass through it. `names` are the checkout's private names, when the
    caller has read them already.
    """
    names = _private_names(repo) if names is None else names
    finding = judge_note(
        draft.title, draft.body, draft.recall, private_names=names, home=os.environ.get("HOME")
    )
    return None if finding is None else Refused(finding.kind, finding.field)


def judge(drafts: Sequence[Draft], repo: Repo | None) -> list[Judged | Refused]:
    """Each draft through the gate; a refusal is returned in its place, never raised."""
    names = _private_names(repo)
    out: list[Judged | Refused] = []
    for draft in drafts:
        refusal = judge_text(draft, repo, names)
        if refusal is not None:
            out.append(refusal)
            continue
        if draft.everywhere:
            out.append(Judged(draft, None))
            continue
        if repo is None:
            out.append(
                Refused(
                    "not in a git repository",
                    message="refused: not in a git repository: a personal note is tied to this "
                    "repository's root commit; pass --everywhere for a lesson true in every project",
                )
            )
            continue
        root = repo.root_commit
        foreign = foreign_repository(repo.top) if root is None else None
        if foreign is not None:
            out.append(
                Refused(
                    "repository owned by another account",
                    message=f"refused: {foreign}: git does not read a repository another account "
                    "owns, so a note cannot be tied to its root commit; pass --everywhere",
                )
            )
            continue
        if root is None:
            out.append(
                Refused(
                    "repository has no commit",
                    message="refused: this repository has no commit yet, so a note cannot be tied "
                    "to its root commit; commit once, or pass --everywhere",
                )
            )
            continue
        out.append(Judged(draft, root))
    return out


def add_notes(
    judged: Sequence[Judged],
    *,
    written_by: str,
    session: str | None,
    origin: Origin = "agent",
    warnings: list[str] | None = None,
    twins: list[int] | None = None,
) -> list[str]:
    """Append one `NoteAdded` per judged draft, as one batch under one lock; return their ids.

    A draft whose title, body, recall words and reach equal a live note's (or
    an earlier draft's in the batch) writes nothing: its id is that note's,
    and its place in `judged` goes into `twins`, when given.

    Once the batch is durable it has landed: a view or index that could not
    be written after it goes into `warnings`, never into an exception.
    """

    ids: list[str] = []

    def plan(known: store.Known) -> list[Event]:
        minter = Minter(_Taken(known))
        batch: dict[store.SameText, str] = {}
        events: list[Event] = []
        ids.clear()
        if twins is not None:
            twins.clear()  # the plan runs again when the journal moved under it
        for place, item in enumerate(judged):
            draft = item.draft
            text = store.same_text(draft.title, draft.body, draft.recall, item.root)
            twin = batch.get(text) or known.twin(text)
            if twin is not None:  # a retry or a repeated lesson: that note's id, nothing written
                ids.append(twin)
                if twins is not None:
                    twins.append(place)
                continue
            note_id = minter.mint()
            batch[text] = note_id
            ids.append(note_id)
            events.append(
                NoteAdded(
                    id=note_id,
                    title=item.draft.title,
                    body=item.draft.body,
                    recall=item.draft.recall,
                    root=item.root,
                    origin=origin,
                    written_by=written_by,
                    session=session,
                )
            )
        return events

    store.append_records(plan, projections=PROJECTIONS, warnings=warnings)
    return ids


class _Taken(set[str]):
    """The ids a batch may not mint: those it minted, and every id the journal ever used."""

    def __init__(self, known: store.Known) -> None:
        super().__init__()
        self._known = known

    def __contains__(self, note_id: object) -> bool:
        return super().__contains__(note_id) or (
            isinstance(note_id, str) and self._known.used(note_id)
        )


def check_seen(note: Note, seen: int | None) -> None:
    """Refuse an act on `note` when it was revised since the reviewer read revision `seen`
    (`None`: the act was not taken from a reading, as on the command line)."""
    if seen is not None and note.revision != seen:
        raise Refused(
            "revised since",
            message=f"refused: {note.id} was revised since you read it (now at "
            f"revision {note.revision}, you read {seen}); read it again",
        )


def remove_note(
    note_id: str,
    *,
    removed_by: str,
    session: str | None,
    seen: int | None = None,
    cwd: Path | None = None,
    warnings: list[str] | None = None,
) -> Removed:
    """Append `NoteRemoved`; a project note or an unknown id is refused, and so is a note
    revised since revision `seen`, when given (a reviewer's removal of the text they read)."""
    check_note_id(note_id)
    repo = find_repo(cwd)
    titles: list[str] = []

    def plan(known: store.Known) -> list[Event]:
        title = known.title(note_id)
        if title is None:
            raise missing_note(note_id, repo, removed=known.removed(note_id))
        if seen is not None:  # the revision is in the view: read whole, as the desk's acts do
            check_seen(next(n for n in known.view.notes if n.id == note_id), seen)
        titles.append(title)
        return [NoteRemoved(id=note_id, removed_by=removed_by, session=session)]

    home = Home.open()
    if home is None:  # nothing to remove, and a refusal creates nothing
        raise missing_note(note_id, repo, removed=False)
    home.close()
    store.append_records(plan, projections=PROJECTIONS, warnings=warnings)
    return Removed(note_id, titles[0])


@dataclass(frozen=True)
class Removed:
    """The note a removal took out of the view: its id and title, as the command says them."""

    id: str
    title: str


def project_note_refused(note_id: str) -> Refused:
    """The refusal of a personal act (keep, revise, remove, restore, promote) on a project note."""
    return Refused(
        "project note",
        message=f"refused: {note_id} is in the project's file (.abcd/memory.json); "
        "change it there in a reviewed change",
    )


def missing_note(note_id: str, repo: Repo | None, *, removed: bool) -> Refused:
    """Why `note_id` is not a personal note an act can be applied to (`removed`: it was one)."""
    if any(n.id == note_id for n in _project_notes_quiet(repo)):
        return project_note_refused(note_id)
    if removed:
        return Refused("already removed", message=f"refused: {note_id} was already removed")
    return Refused("unknown id", message=f"refused: no note {note_id}")


def _project_notes_quiet(repo: Repo | None) -> tuple[ProjectNote, ...]:
    try:
        return read_project_notes(repo)
    except AbcdError:
        return ()

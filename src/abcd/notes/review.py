"""The review acts on the journal: revise a note, keep it (reviewed), record its promotion.

Each act is one event appended under the journal lock by a plan that finds
the note in the view it will append to, so what it checked (the note is
live, it is still at the revision the reviewer read) holds when the event
lands. A refusal raises before anything is written. A revision's new text
goes through the gate exactly as an add's does (`service.judge_text`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from abcd.errors import Refused
from abcd.journal import store
from abcd.journal.events import Event, NoteReviewed, NoteRevised
from abcd.journal.view import Note, View
from abcd.notes.limits import Draft, check_body, check_note_id, check_recall, check_title
from abcd.notes.service import PROJECTIONS, check_seen, judge_text, missing_note
from abcd.recall.index import rebuild_index
from abcd.repo import Repo, find_repo
from abcd.trust import Home

# A revision replaces the note's record in the recall index, which is written whole again
# (the index that trails the journal cannot serve a note whose text changed past it).
REVISION_PROJECTIONS = (rebuild_index,)


def act_on(
    note_id: str,
    make: Callable[[Note], Sequence[Event]],
    *,
    repo: Repo | None,
    seen: int | None = None,
    projections: Sequence[store.Projection_] = PROJECTIONS,
    warnings: list[str] | None = None,
) -> Note:
    """Append the events `make` returns for the live note `note_id`; return the note after them.

    `seen` is the revision the reviewer read: when the note has been revised
    since, the act is refused rather than applied to a text nobody read.
    """
    check_note_id(note_id)
    acted: list[Note] = []

    def plan(view: View) -> Sequence[Event]:
        for note in view.notes:
            if note.id == note_id:
                check_seen(note, seen)
                acted.append(note)
                return make(note)
        raise missing_note(note_id, repo, removed=note_id in view.removed)

    home = Home.open()
    if home is None:  # no journal, so no note; a refusal creates nothing
        raise missing_note(note_id, repo, removed=False)
    home.close()
    view, _ = store.append(plan, projections=projections, warnings=warnings)
    return next((n for n in view.notes if n.id == note_id), acted[0])


def revise_note(
    note_id: str,
    *,
    title: str | None = None,
    body: str | None = None,
    recall: Sequence[str] | None = None,
    revised_by: str,
    session: str | None,
    seen: int | None = None,
    cwd: Path | None = None,
    warnings: list[str] | None = None,
) -> Note:
    """Append `NoteRevised` with the note's new whole text (what is not given stays).

    The new text is shape-checked and judged by the gate as an add is; a
    revision that changes nothing is refused (nothing to record).
    """
    repo = find_repo(cwd)
    new_title = check_title(title) if title is not None else None
    new_body = check_body(body) if body is not None else None
    new_recall = check_recall(tuple(recall)) if recall is not None else None

    def make(note: Note) -> list[Event]:
        draft = Draft(
            new_title if new_title is not None else note.title,
            new_body if new_body is not None else note.body,
            new_recall if new_recall is not None else note.recall,
            note.root is None,
        )
        if (draft.title, draft.body, draft.recall) == (note.title, note.body, note.recall):
            raise Refused(
                "nothing to revise",
                message=f"refused: the new text is {note_id}'s own; nothing was written",
            )
        refusal = judge_text(draft, repo)
        if refusal is not None:
            raise refusal
        return [
            NoteRevised(
                id=note_id,
                title=draft.title,
                body=draft.body,
                recall=draft.recall,
                revised_by=revised_by,
                session=session,
            )
        ]

    return act_on(
        note_id, make, repo=repo, seen=seen, projections=REVISION_PROJECTIONS, warnings=warnings
    )


def check_not_kept(note: Note) -> None:
    """`Refused` when `note` was already kept as it stands (a keep asks for its own revision)."""
    if note.reviewed:
        raise Refused(
            "already kept",
            message=f"refused: {note.id} was already kept as it stands "
            f"(by {note.reviewed_by} at {note.reviewed_at})",
        )


def keep_note(
    note_id: str,
    *,
    reviewed_by: str,
    session: str | None,
    seen: int | None = None,
    cwd: Path | None = None,
    warnings: list[str] | None = None,
) -> Note:
    """Append `NoteReviewed` as of the note's current revision; a note already kept is refused."""

    def make(note: Note) -> list[Event]:
        check_not_kept(note)
        return [
            NoteReviewed(
                id=note_id, revision=note.revision, reviewed_by=reviewed_by, session=session
            )
        ]

    return act_on(note_id, make, repo=find_repo(cwd), seen=seen, warnings=warnings)

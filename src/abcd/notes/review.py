"""The review acts on the journal: revise a note, keep it (reviewed), record its promotion,
restore a removed one.

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
from abcd.journal.events import Event, NoteRestored, NoteReviewed, NoteRevised
from abcd.journal.history import Removal, now_and_as_removed
from abcd.journal.view import Note, View
from abcd.notes.limits import Draft, check_body, check_note_id, check_recall, check_title
from abcd.notes.service import PROJECTIONS, check_checkout, check_seen, judge_text, missing_note
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
                message=f"refused: {note_id} already has this title, body and recall words; "
                "nothing was written",
            )
        check_checkout(note, repo, "revise")
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
    """`Refused` when `note` was already reviewed as it stands: kept (a keep asks for its own
    revision), or promoted (a promotion shows the text and asks, as a keep does)."""
    if note.reviewed:
        raise Refused(
            "already kept",
            message=f"refused: {note.id} was already kept as it stands "
            f"(by {note.reviewed_by} at {note.reviewed_at})",
        )
    if not note.awaits_review:
        raise Refused(
            "already kept",
            message=f"refused: {note.id} was reviewed as it stands when it was promoted "
            f"(by {note.promoted_by} at {note.promoted_at}); a later revision puts it back in "
            "the review queue",
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


def removed_note(home: Home, note_id: str, repo: Repo | None) -> Removal:
    """The removal a restore would undo: `note_id` as it stood when it was last removed, and
    that removal's seq; or `Refused` saying why there is none (live, never a personal note)."""
    check_note_id(note_id)
    now, removal = now_and_as_removed(home, note_id)
    if now is not None:
        raise Refused("not removed", message=f"refused: {note_id} is not removed")
    if removal is None:
        raise missing_note(note_id, repo, removed=False)
    if removal.twin is not None:
        raise _live_twin(removal.twin)
    return removal


def _live_twin(twin: str) -> Refused:
    return Refused(
        "same text", message=f"refused: {twin} holds the same text and is live; keep that one"
    )


def check_restorable(note: Note, repo: Repo | None) -> None:
    """`Refused` when `note`'s text would not be written today: the gate judges it as it judges
    an add (it may have learned a shape since the note was written), and so do the limits; a
    note tied to a repository is judged only in a checkout of it, against its private names."""
    check_checkout(note, repo, "restore")
    check_title(note.title)
    check_body(note.body)
    check_recall(note.recall)
    refusal = judge_text(Draft(note.title, note.body, note.recall, note.root is None), repo)
    if refusal is not None:
        raise refusal


def restore_note(
    note_id: str,
    *,
    restored_by: str,
    session: str | None,
    seen: int | None = None,
    cwd: Path | None = None,
    warnings: list[str] | None = None,
) -> Note:
    """Append `NoteRestored`: the removed note back under its id, as it stood when it was last
    removed (text, stamps and reach); the note restored.

    Refused, with nothing written, when the note is not removed, when its text
    does not pass the gate today, when a live note holds the same text (keep
    that one), or when its last removal is not the one at seq `seen` (the one
    the person read about: it was restored and removed again since).
    """
    check_note_id(note_id)
    repo = find_repo(cwd)
    restored: list[Note] = []

    def plan(known: store.Known) -> list[Event]:
        removal = removed_note(known.home, note_id, repo)
        note, seq = removal.note, removal.seq
        if seen is not None and seq != seen:
            since = "was restored and removed again since you read it"
            if seen > seq:  # a later seq than its last removal: no page showed it
                since = f"has no removal at seq {seen}"
            raise Refused(
                "removed again",
                message=f"refused: {note_id} {since} (its last removal is seq {seq}, "
                f"you read seq {seen}); read it again",
            )
        check_restorable(note, repo)
        twin = known.twin(store.same_text(note.title, note.body, note.recall, note.root))
        if twin is not None:  # added since the fold above, or found by the index
            raise _live_twin(twin)
        restored.append(note)
        return [NoteRestored(id=note_id, note=note, restored_by=restored_by, session=session)]

    home = Home.open()
    if home is None:  # no journal, so no note; a refusal creates nothing
        raise missing_note(note_id, repo, removed=False)
    home.close()
    store.append_records(plan, projections=PROJECTIONS, warnings=warnings)
    return restored[0]

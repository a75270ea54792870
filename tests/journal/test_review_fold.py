"""The review events (revised, reviewed, promoted, restored) in the fold: checked against a plain dict,
all at once equal to in pieces, the replay at every seq equal to the prefix's fold, and the
hook's lean fold reading the same text as the store's."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from abcd.journal import history, store
from abcd.journal.events import (
    Event,
    NoteAdded,
    NotePromoted,
    NoteRemoved,
    NoteRestored,
    NoteReviewed,
    NoteRevised,
)
from abcd.journal.fold import fold
from abcd.journal.view import EMPTY_VIEW, Note
from abcd.recall.machine import read_machine_notes

from .helpers import added, as_records, folded_in_pieces, note_id, removed, written_home


def revised(n: int, text: str) -> NoteRevised:
    return NoteRevised(
        id=note_id(n), title=f"t{text}", body=f"b{text}", recall=(text,), revised_by="person",
        session=None,
    )  # fmt: skip


def reviewed(n: int, revision: int) -> NoteReviewed:
    return NoteReviewed(id=note_id(n), revision=revision, reviewed_by="person", session=None)


def promoted(n: int, revision: int) -> NotePromoted:
    return NotePromoted(
        id=note_id(n), revision=revision, root=None, promoted_by="person", session=None
    )


def restored(n: int, text: str, revision: int) -> NoteRestored:
    """A restore of note `n` carrying a note as it stood (any text: the fold takes it whole)."""
    note = Note(
        id=note_id(n), title=f"r{text}", body=f"b{text}", recall=(text,), root=None,
        origin="agent", written_by="person", written_at="2026-11-28T12:00:00.000000Z",
        session=None, revision=revision,
    )  # fmt: skip
    return NoteRestored(id=note_id(n), note=note, restored_by="person", session=None)


ids = st.integers(0, 4)
events = st.lists(
    st.one_of(
        ids.map(lambda n: added(note_id(n), f"t{n}")),
        ids.map(lambda n: removed(note_id(n))),
        st.tuples(ids, st.sampled_from(["a", "b", "c"])).map(lambda t: revised(*t)),
        st.tuples(ids, st.integers(0, 2)).map(lambda t: reviewed(*t)),
        st.tuples(ids, st.integers(0, 2)).map(lambda t: promoted(*t)),
        st.tuples(ids, st.sampled_from(["a", "d"]), st.integers(0, 2)).map(lambda t: restored(*t)),
    ),
    max_size=40,
)


def model(evs: list[Event]) -> dict[str, dict[str, Any]]:
    """The fold, as a plain dict: what a reviewer expects each event to do."""
    notes: dict[str, dict[str, Any]] = {}
    for i, ev in enumerate(evs):
        at = f"2026-11-29T12:00:{i:02d}.000000Z"
        note = notes.get(ev.id) if not isinstance(ev, NoteAdded) else None
        if isinstance(ev, NoteAdded):
            notes[ev.id] = {"title": ev.title, "body": ev.body, "revision": 0, "kept": None,
                            "promoted": None}  # fmt: skip
        elif isinstance(ev, NoteRemoved):
            notes.pop(ev.id, None)
        elif isinstance(ev, NoteRestored):  # back as it stood; a live note stays as it is
            if note is None:
                notes[ev.id] = {"title": ev.note.title, "body": ev.note.body,
                                "revision": ev.note.revision, "kept": None, "promoted": None}  # fmt: skip
        elif note is None:
            continue
        elif isinstance(ev, NoteRevised):
            note.update(title=ev.title, body=ev.body, revision=note["revision"] + 1, kept=None)
        elif isinstance(ev, NoteReviewed) and ev.revision == note["revision"]:
            note["kept"] = at
        elif isinstance(ev, NotePromoted) and ev.revision == note["revision"]:
            note["promoted"] = at
    return notes


@given(events)
def test_the_fold_does_what_a_plain_dict_model_of_the_review_events_does(evs: list[Event]) -> None:
    view = fold(EMPTY_VIEW, as_records(evs))
    got = {
        n.id: {
            "title": n.title,
            "body": n.body,
            "revision": n.revision,
            "kept": n.reviewed_at,
            "promoted": n.promoted_at,
        }
        for n in view.notes
    }
    assert got == model(evs)
    assert view.schema_version == (2 if any(n.stamped for n in view.notes) else 1)


@given(events, st.lists(st.integers(0, 40), max_size=5))
def test_folding_review_events_all_at_once_equals_folding_in_pieces(
    evs: list[Event], cuts: list[int]
) -> None:
    records = as_records(evs)
    assert folded_in_pieces(records, cuts) == fold(EMPTY_VIEW, records)


@settings(max_examples=25, deadline=None)
@given(events)
def test_replay_and_the_hooks_fold_agree_with_the_store_at_every_seq(evs: list[Event]) -> None:
    with written_home(evs) as written:
        if written is None:
            return
        home_dir, home, records = written
        for seq in range(0, len(records) + 1):
            assert history.replay(home, str(seq)).notes == fold(EMPTY_VIEW, records[:seq]).notes
        view = store.load(home).view
        (home_dir / "memory.json").unlink()  # the hook folds the journal from zero
        lean = {i.name: (i.title, i.body, i.recall) for i in read_machine_notes(home)}
    assert lean == {n.id: (n.title, n.body, n.recall) for n in view.notes}


def test_a_restored_note_leaves_the_removed_list_and_a_live_one_is_not_replaced() -> None:
    evs: list[Event] = [added(note_id(1), "t1"), removed(note_id(1)), restored(1, "a", 2)]
    view = fold(EMPTY_VIEW, as_records(evs))
    (note,) = view.notes
    assert (note.title, note.revision, view.removed) == ("ra", 2, ())
    again = fold(view, as_records([restored(1, "d", 0)]))
    assert again.notes == view.notes  # a restore of a live note changes nothing

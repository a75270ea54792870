"""The fold is pure: all at once equals step by step, and replay at every seq equals the prefix fold."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from abcd.errors import Refused
from abcd.journal import history, store
from abcd.journal.events import Event
from abcd.journal.fold import fold
from abcd.journal.view import EMPTY_VIEW, View

from .helpers import added, as_records, folded_in_pieces, note_id, removed, written_home

# A stream of events over a small id space, so removals hit and miss.
events = st.lists(
    st.one_of(
        st.integers(0, 8).map(lambda n: added(note_id(n), f"t{n}")),
        st.integers(0, 8).map(lambda n: removed(note_id(n))),
    ),
    max_size=40,
)


@given(events, st.lists(st.integers(0, 40), max_size=5))
def test_folding_all_at_once_equals_folding_in_pieces(evs: list[Event], cuts: list[int]) -> None:
    records = as_records(evs)
    assert folded_in_pieces(records, cuts) == fold(EMPTY_VIEW, records)


@given(events)
def test_the_fold_never_mutates_its_input(evs: list[Event]) -> None:
    records = as_records(evs)
    base = fold(EMPTY_VIEW, records[: len(records) // 2])
    snapshot = (base.notes, base.removed)
    fold(base, records[len(records) // 2 :])
    assert (base.notes, base.removed) == snapshot


@settings(max_examples=25, deadline=None)
@given(events)
def test_replay_at_every_seq_equals_the_fold_of_the_prefix(evs: list[Event]) -> None:
    with written_home(evs) as written:
        if written is None:
            return
        _, home, records = written
        for seq in range(0, len(records) + 1):
            replayed = history.replay(home, str(seq))
            expected = fold(EMPTY_VIEW, records[:seq])
            assert replayed.notes == expected.notes
            assert replayed.journal.seq == seq
        assert history.replay(home, str(len(records))) == store.load(home).view


class NotesMachine(RuleBasedStateMachine):
    """Adds and removes through the real store, checked against a plain dict."""

    def __init__(self) -> None:
        super().__init__()
        self.dir = Path(tempfile.mkdtemp())
        os.environ["ABCD_HOME"] = str(self.dir / "home")
        self.model: dict[str, str] = {}
        self.counter = 0

    @rule(
        title=st.text(
            st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=30
        )
    )
    def add(self, title: str) -> None:
        self.counter += 1
        nid = note_id(self.counter)
        store.append(lambda _v: [added(nid, title)])
        self.model[nid] = title

    @precondition(lambda self: bool(self.model))
    @rule(data=st.data())
    def remove(self, data: st.DataObject) -> None:
        nid = data.draw(st.sampled_from(sorted(self.model)))
        store.append(lambda _v: [removed(nid)])
        del self.model[nid]

    @rule()
    def remove_unknown_is_refused_by_a_plan(self) -> None:
        def plan(view: View) -> list[Event]:
            if "mem-9999999999999999" not in {n.id for n in view.notes}:
                raise Refused("unknown id")
            return []

        with contextlib.suppress(Refused):
            store.append(plan)

    @rule()
    def lose_the_view(self) -> None:
        view_file = self.dir / "home" / "memory.json"
        if view_file.exists():
            view_file.unlink()

    @invariant()
    def the_view_matches_the_model(self) -> None:
        view = store.load_view()
        assert {n.id: n.title for n in view.notes} == self.model
        assert [n.id for n in view.notes] == sorted(self.model)

    def teardown(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


NotesMachine.TestCase.settings = settings(max_examples=30, stateful_step_count=15, deadline=None)
test_notes_state_machine = NotesMachine.TestCase

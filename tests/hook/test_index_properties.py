"""Property: whatever the notes and the prompt, the hook's recall (index, postings, caches) ranks,
scores and forms every candidate exactly as folding the view and stemming every item does,
whether it scores every candidate or ranks them best first and stops where the take does, and
its second tier (issue 16) admits the same items with the same judgements."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abcd.journal import store
from abcd.journal.events import Event, NoteAdded, NoteRemoved, NoteRestored
from abcd.journal.view import Note
from abcd.recall import engine, index, second
from abcd.recall.index import project_index
from tests.conftest import git

from .test_index_agrees import _both, _scores

WORDS = ["test", "tests", "deploy", "race", "flag", "cache", "auth", "login", "alpha", "beta"]
# Words the prompt may hold beside them: function words the second tier leaves out, and a word
# no note holds.
PROMPT_WORDS = [*WORDS, "the", "how", "should", "zeta"]
text = st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(" ".join)
prompts = st.lists(st.sampled_from(PROMPT_WORDS), min_size=1, max_size=12).map(" ".join)
# The index's `BITMAP_SHARE`: every recall term's holders packed as numbers, a term held by a third
# of the notes as a bitmap, every term as a bitmap.
HOLDERS = [0, 3, 10**9]
recall = st.lists(
    st.sampled_from([*WORDS, "race flag", "alpha beta", "log-in"]), min_size=1, max_size=3
)


@st.composite
def homes(
    draw: st.DrawFn, most: int = 30
) -> tuple[list[Event], list[Event], list[dict[str, object]]]:
    """Notes written with the index kept, more written after it, and the project's own notes."""
    n = draw(st.integers(min_value=1, max_value=most))
    notes = [
        NoteAdded(
            id=f"mem-{k:016d}",
            title=draw(text),
            body=draw(text),
            recall=tuple(draw(recall)),
            root=draw(st.sampled_from([None, None, "this", "e" * 40])),
            origin="agent",
            written_by="Claude:claude-opus-4-8",
            session=None,
        )
        for k in range(n)
    ]
    indexed = draw(st.integers(min_value=1, max_value=n))
    # Removed before the index (which holds their ids as removed), and after it.
    early = draw(st.sets(st.integers(min_value=0, max_value=indexed - 1), max_size=2))
    removed = draw(st.sets(st.integers(min_value=0, max_value=n - 1), max_size=3))
    first: list[Event] = [*notes[:indexed], *(_removal(k) for k in sorted(early))]
    late: list[Event] = [*notes[indexed:]]
    late += [_removal(k) for k in removed]
    # Restored past the index, as they stood or with another text: removed ones, and (as only a
    # hand-made journal holds) live ones, which a restore leaves as they are.
    back = draw(st.sets(st.integers(min_value=0, max_value=n - 1), max_size=3))
    late += [
        NoteRestored(
            id=notes[k].id,
            note=Note(
                **{f: getattr(notes[k], f) for f in notes[k].__struct_fields__},
                written_at="2026-11-28T12:00:00.000000Z",
            )
            if draw(st.booleans())
            else Note(
                id=notes[k].id,
                title=draw(text),
                body=draw(text),
                recall=tuple(draw(recall)),
                root=notes[k].root,
                origin="person",
                written_by="person",
                written_at="2026-11-28T12:00:00.000000Z",
                session=None,
                revision=1,
            ),
            restored_by="person",
            session=None,
        )
        for k in sorted(back)
    ]
    promoted = draw(st.sets(st.integers(min_value=0, max_value=n - 1), max_size=3))
    project = [
        {"id": f"mem-{k:016d}", "title": draw(text), "body": draw(text), "recall": draw(recall)}
        for k in sorted(promoted)
    ]
    return first, late, project


def _removal(k: int) -> NoteRemoved:
    return NoteRemoved(id=f"mem-{k:016d}", removed_by="person", session=None)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    home=homes(),
    prompt=prompts,
    scoring=st.sampled_from(
        [
            "sparse",
            "dense",
            "dense, by itemgetter",
            "note by note",
            "best first",
            "best first, sparse",
            "best first, sparse, bounded",
            "best first, mixed",
            "best first, tiny",
            "best first, note by note",
        ]
    ),
    holders=st.sampled_from(HOLDERS),
)
def test_the_hook_ranks_every_candidate_as_the_fold_does(
    repo: Path,
    monkeypatch: pytest.MonkeyPatch,
    home: tuple[list[Event], list[Event], list[dict[str, object]]],
    prompt: str,
    scoring: str,
    holders: int,
) -> None:
    _hook_agrees_with_the_fold(repo, home, prompt, scoring, holders)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    home=homes(most=150),
    prompt=prompts,
    scoring=st.sampled_from(
        [
            "best first",
            "best first, tiny",
            "best first, coarse",
            "best first, note by note",
            "best first, mixed",
            "best first, mixed, tiny",
            "best first, sparse, bounded",
        ]
    ),
    holders=st.sampled_from(HOLDERS),
)
def test_a_crowd_ranked_best_first_in_rounds_of_any_size_is_ranked_as_the_fold_ranks_it(
    repo: Path,
    home: tuple[list[Event], list[Event], list[dict[str, object]]],
    prompt: str,
    scoring: str,
    holders: int,
) -> None:
    _hook_agrees_with_the_fold(repo, home, prompt, scoring, holders)


def _hook_agrees_with_the_fold(
    repo: Path,
    home: tuple[list[Event], list[Event], list[dict[str, object]]],
    prompt: str,
    scoring: str,
    holders: int = index.BITMAP_SHARE,
) -> None:
    """`holders`: the index's `BITMAP_SHARE` (which recall terms keep their holders as bitmaps)."""
    first, late, project = home
    root = git(repo, "rev-list", "--max-parents=0", "HEAD")

    def rooted(events: list[Event]) -> list[Event]:
        return [
            NoteAdded(**{**{f: getattr(e, f) for f in e.__struct_fields__}, "root": root})
            if isinstance(e, NoteAdded) and e.root == "this"
            else msgspec.structs.replace(e, note=msgspec.structs.replace(e.note, root=root))
            if isinstance(e, NoteRestored) and e.note.root == "this"
            else e
            for e in events
        ]

    with tempfile.TemporaryDirectory(dir=repo.parent) as place, pytest.MonkeyPatch.context() as m:
        abcd_home = Path(place) / "home"
        abcd_home.mkdir(mode=0o700)
        m.setenv("ABCD_HOME", str(abcd_home))
        # A low bar, so that a home of a few dozen notes has items the second tier admits.
        m.setattr(second, "SECOND_MIN_SCORE", 0.5)
        m.setattr(second, "SECOND_MIN_SHARE", 0.1)
        m.setattr(index, "BITMAP_SHARE", holders)
        if scoring.startswith("best first, mixed"):  # terms of 3 holders or more dense, others
            m.setattr(index, "DENSE_MIN", 3)  # sparse, and their holders bounded, not read first:
            m.setattr(index, "DENSE_SHARE", 10**9)  # a sparse holder's bound adds both
            m.setattr(engine, "_SPARSE_FIRST_MAX", 0)
        if scoring == "best first, sparse, bounded":  # every term sparse, every holder bounded
            m.setattr(engine, "_SPARSE_FIRST_MAX", 0)
        elif "sparse" not in scoring:  # every term dense, with impacts
            m.setattr(index, "DENSE_MIN", 1)
            m.setattr(index, "DENSE_SHARE", 10**9)
        if scoring in ("note by note", "best first, note by note"):  # as for a pasted log
            m.setattr(engine, "TERM_AT_A_TIME_MAX", 0)
        if scoring == "dense, by itemgetter":  # weights gathered as for thousands of candidates
            m.setattr(engine, "GATHER_FROM", 1)
        if scoring.startswith("best first"):  # ranked best first however few the candidates
            m.setattr(engine, "PRUNE_FROM", 1)
        if scoring in ("best first, tiny", "best first, mixed, tiny"):  # many small rounds, aiming
            m.setattr(engine, "_SHARE", 0.99)
            m.setattr(engine, "_STEP", 0.005)
            m.setattr(engine, "_AIM", 2)
        if scoring == "best first, coarse":  # in few rounds that drop far, aiming nowhere
            m.setattr(engine, "_SHARE", 0.5)
            m.setattr(engine, "_AIM", 10**6)
        store.append(lambda _v: rooted(first), projections=(project_index,))
        if late:
            store.append(lambda _v: rooted(late))  # the index trails these
        memory = repo / ".abcd" / "memory.json"
        memory.parent.mkdir(exist_ok=True)
        memory.write_text(json.dumps({"schema_version": 1, "notes": project}))
        fast, slow = _both(repo, prompt)
        assert _scores(fast) == _scores(slow)
        assert [c.form for c in fast.candidates] == [c.form for c in slow.candidates]
        assert _second_tier(fast) == _second_tier(slow)
        os.remove(memory)


def _second_tier(outcome: engine.Outcome) -> list[tuple[str, tuple[float, float, tuple[str, ...]]]]:
    """The candidates the second tier admitted, in rank order, each with its judgement."""
    return [
        (c.item.key, (c.second.score, c.second.share, c.second.words))
        for c in outcome.candidates
        if c.second is not None
    ]


@st.composite
def small_layers(draw: st.DrawFn) -> tuple[list[dict[str, object]], list[str]]:
    """A crowd of project notes (alike ones often: same title, body and recall) and pages."""
    notes = [
        {"id": f"mem-2{k:015d}", "title": draw(text), "body": draw(text), "recall": draw(recall)}
        for k in range(draw(st.integers(min_value=1, max_value=40)))
    ]
    pages = [
        f"---\nrecall: [{', '.join(draw(recall))}]\nsummary: {draw(text)}\n---\n{draw(text)}\n"
        for _ in range(draw(st.integers(min_value=0, max_value=8)))
    ]
    return notes, pages


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    home=homes(most=8),
    layers=small_layers(),
    prompt=text,
    scoring=st.sampled_from(["dense", "best first"]),
)
def test_the_small_layers_ranked_from_the_reach_table_are_ranked_as_the_fold_ranks_them(
    repo: Path,
    home: tuple[list[Event], list[Event], list[dict[str, object]]],
    layers: tuple[list[dict[str, object]], list[str]],
    prompt: str,
    scoring: str,
) -> None:
    first, late, _ = home
    notes, pages = layers
    folder = repo / ".abcd" / "memory"
    folder.mkdir(parents=True, exist_ok=True)
    for n, page in enumerate(pages):
        (folder / f"ref_crowd_page{n}.md").write_text(page)
    try:
        _hook_agrees_with_the_fold(repo, (first, late, notes), prompt, scoring)
    finally:
        for path in folder.iterdir():
            path.unlink()

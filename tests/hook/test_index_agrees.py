"""The machine index is a cache: recall through it ranks and scores exactly as folding the view does."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import msgspec
import pytest

from abcd.journal import store
from abcd.journal.events import Event, NoteAdded, NoteRemoved
from abcd.recall import engine
from abcd.recall.engine import Outcome, recall
from abcd.recall.index import INDEX_FILE, project_index
from abcd.recall.stemcache import StemCache
from abcd.repo import find_repo
from abcd.session.brackets import bracket_for
from abcd.session.fill import Fill
from abcd.trust.guarded import Home
from tests.conftest import Run, git

from .conftest import Host, keys

WORDS = "test build deploy race flag cache auth login token retry timeout suite lint docs release".split()


def _deploy_note(note_id: str, title: str = "t", body: str = "b") -> NoteAdded:
    return NoteAdded(
        id=note_id,
        title=title,
        body=body,
        recall=("deploy",),
        root=None,
        origin="agent",
        written_by="Claude:claude-opus-4-8",
        session=None,
    )


def _project_deploy_notes(repo: Path, count: int, *, first: int) -> None:
    """`count` project notes recalled by "deploy", the n-th body "release then deploy" said
    `first + n` times."""
    (repo / ".abcd").mkdir()
    (repo / ".abcd" / "memory.json").write_text(
        json.dumps(
            {
                "schema_version": 1,
                "notes": [
                    {
                        "id": f"mem-10000000000000{n:02d}",
                        "title": f"deploy step {n}",
                        "body": "release then deploy " * (first + n),
                        "recall": ["deploy"],
                    }
                    for n in range(count)
                ],
            }
        )
    )


def _scores(outcome: Outcome) -> list[tuple[str, float]]:
    """Each candidate's key and score, in rank order: exact, and the same bits the breakdown adds."""
    for c in outcome.candidates:
        assert c.score == c.scored.score, c.item.key
    return [(c.item.key, c.score) for c in outcome.candidates]


class _Recaller:
    """Recall in `repo` against the test's home, as the hook does (with `stems`) or the diagnostic
    does (`use_index=False`), and stem caches for it."""

    def __init__(self, home: Home, repo: Path) -> None:
        found = find_repo(repo)
        assert found is not None
        self.home, self.found = home, found
        self.bracket = bracket_for(Fill(10.0, "statusline"))

    def cache(self) -> StemCache:
        return StemCache(self.home, self.found.top)

    def __call__(self, prompt: str, **how: Any) -> Outcome:
        return recall(prompt, home=self.home, repo=self.found, bracket=self.bracket, **how)


def _both(repo: Path, prompt: str) -> tuple[Outcome, Outcome]:
    """The hook's recall (through the index and the stem cache, filled then read back) and the
    diagnostic's (folding the view, stemming every item): the first checked against itself."""
    home = Home.open()
    assert home is not None
    with home:
        run = _Recaller(home, repo)
        plain = run(prompt)
        filling = run.cache()
        first = run(prompt, stems=filling)
        filling.save()
        fast = run(prompt, stems=run.cache())
        slow = run(prompt, use_index=False)
        assert _scores(plain) == _scores(first) == _scores(fast)
    return fast, slow


@pytest.mark.parametrize("seed", range(6))
def test_index_and_fold_agree_on_every_score(repo: Path, abcd_home: Path, seed: int) -> None:
    rng = random.Random(seed)
    root = git(repo, "rev-list", "--max-parents=0", "HEAD")

    def note(n: int) -> NoteAdded:
        return NoteAdded(
            id=f"mem-{n:016d}",
            title=" ".join(rng.sample(WORDS, 3)),
            body=" ".join(rng.choices(WORDS, k=12)),
            recall=tuple(rng.sample(WORDS, 2)),
            root=rng.choice([None, root, "e" * 40]),
            origin="agent",
            written_by="Claude:claude-opus-4-8",
            session=None,
        )

    events: list[Event] = [note(n) for n in range(40)]
    store.append(lambda _v: events, projections=(project_index,))
    # Lag the index behind the journal: more adds and some removals it has not seen.
    late: list[Event] = [note(n) for n in range(40, 46)]
    late += [
        NoteRemoved(id=f"mem-{n:016d}", removed_by="person", session=None)
        for n in rng.sample(range(46), 5)
    ]
    store.append(lambda _v: late)
    # A promoted copy suppresses its machine twin.
    twin = f"mem-{3:016d}"
    (repo / ".abcd").mkdir()
    (repo / ".abcd" / "memory.json").write_text(
        json.dumps(
            {
                "schema_version": 1,
                "notes": [
                    {
                        "id": twin,
                        "title": "promoted",
                        "body": "deploy release",
                        "recall": ["deploy", "release"],
                    }
                ],
            }
        )
    )
    assert (abcd_home / INDEX_FILE).exists()
    for prompt in (
        "deploy the release",
        "flaky test suite timeout",
        "auth login token",
        "lint docs cache race",
    ):
        fast, slow = _both(repo, prompt)
        assert _scores(fast) == _scores(slow), prompt
        assert [c.form for c in fast.candidates] == [c.form for c in slow.candidates]


def test_an_index_from_another_term_rule_is_not_used(repo: Path, abcd_home: Path) -> None:

    store.append(
        lambda _v: [_deploy_note("mem-0000000000000001")],
        projections=(project_index,),
    )
    data = (abcd_home / INDEX_FILE).read_bytes()
    (abcd_home / INDEX_FILE).write_bytes(data.replace(b"ABCDIDX1", b"ABCDIDX0", 1))
    fast, slow = _both(repo, "deploy")
    assert _scores(fast) == _scores(slow) and [k for k, _ in _scores(fast)] == [
        "mem-0000000000000001"
    ]


def test_a_session_start_rebuilds_an_index_it_cannot_use(repo: Path, abcd_home: Path) -> None:
    from abcd.host.hook import Payload, reset

    store.append(lambda _v: [_deploy_note("mem-0000000000000002")])
    assert not (abcd_home / INDEX_FILE).exists()  # written without the projection
    import io

    reset(
        "session-start",
        Payload({"session_id": "s1", "cwd": str(repo), "source": "startup"}),
        io.StringIO(),
    )
    data = (abcd_home / INDEX_FILE).read_bytes()
    assert data.startswith(b"ABCDIDX")
    (abcd_home / INDEX_FILE).write_bytes(b"ABCDIDX0" + data[8:])  # as if from another version
    reset(
        "session-start",
        Payload({"session_id": "s2", "cwd": str(repo), "source": "startup"}),
        io.StringIO(),
    )
    assert (abcd_home / INDEX_FILE).read_bytes() == data


def test_the_stem_cache_changes_no_score_and_is_rewritten_only_when_something_is_new(
    repo: Path, abcd_home: Path
) -> None:
    from abcd.recall.stemcache import cache_rel

    store.append(
        lambda _v: [
            NoteAdded(
                id="mem-0000000000000003",
                title="deploy tags",
                body="tag it",
                recall=("deploy",),
                root=None,
                origin="agent",
                written_by="Claude:claude-opus-4-8",
                session=None,
            )
        ],
        projections=(project_index,),
    )
    _project_deploy_notes(repo, 5, first=0)
    home = Home.open()
    assert home is not None
    with home:
        run = _Recaller(home, repo)
        plain = run("deploy the release")
        first = run.cache()
        cached = run("deploy the release", stems=first)
        first.save()
        path = abcd_home / cache_rel(run.found.top)
        written = path.stat().st_mtime_ns
        second = run.cache()
        again = run("deploy the release", stems=second)
        second.save()
    assert _scores(plain) == _scores(cached) == _scores(again)
    assert (
        first.added == 6 and second.added == 0
    )  # five items stemmed, the reach's table built once
    assert path.stat().st_mtime_ns == written and oct(path.stat().st_mode & 0o777) == "0o600"


@pytest.mark.parametrize(
    "column, count, total",
    [
        ({0: "x"}, 0, 0),
        ({"0": 1}, 0, 0),
        ([1, 2], 0, 0),
        (3, 0, 0),
        (None, 1, 0),
        (None, 0, 1),
    ],
    ids=[
        "a weight not a number",
        "a number not an int",
        "a list",
        "a number",
        "a count off by one",
        "a total off by one",
    ],
)
def test_a_reach_table_kept_with_a_bad_column_or_figure_is_built_again_and_no_score_changes(
    repo: Path, abcd_home: Path, column: object, count: int, total: int
) -> None:
    import marshal

    from abcd.recall import pieces
    from abcd.recall.stemcache import SHELVES, _reach_header, cache_rel, shelf_of

    _project_deploy_notes(repo, 4, first=1)
    home = Home.open(create=True)
    assert home is not None
    with home:
        run = _Recaller(home, repo)
        plain = run("deploy the release")
        filling = run.cache()
        run("deploy the release", stems=filling)
        filling.save()
        path = abcd_home / cache_rel(run.found.top, "reach")
        found = pieces.decode(path.read_bytes(), _reach_header(), 4, SHELVES)
        assert found is not None
        (ident, n, length, lengths), shelves = found
        blobs = [bytes(shelf or b"") for shelf in shelves]
        if column is not None:
            blobs = [marshal.dumps({}) for _ in range(SHELVES)]
            blobs[shelf_of("deploy")] = marshal.dumps({"deploy": column})
        fields = (*_reach_header(), ident, n + count, length + total, lengths)
        path.write_bytes(pieces.encode(fields, blobs))
        again = run.cache()
        read = run("deploy the release", stems=again)
    assert _scores(read) == _scores(plain)
    assert again.added == 1  # the table built again from the kept forwards, none stemmed


def test_the_session_sweep_removes_stale_stem_caches_too(abcd_home: Path) -> None:
    import os
    import time

    from abcd.session.files import sweep_stale

    cache = abcd_home / "cache"
    cache.mkdir(parents=True, mode=0o700)
    abcd_home.chmod(0o700)
    old, fresh = cache / "stems-old.marshal", cache / "stems-new.marshal"
    for path in (old, fresh):
        path.write_bytes(b"x")
    week_and_a_day = time.time() - 8 * 24 * 3600
    os.utime(old, (week_and_a_day, week_and_a_day))
    home = Home.open(abcd_home)
    assert home is not None
    with home:
        assert sweep_stale(home) == 1
    assert not old.exists() and fresh.exists()


def test_a_session_start_looks_at_a_bounded_window_of_old_sessions_and_in_time_removes_all(
    host: Host, abcd_home: Path
) -> None:
    """Every session's start swept by `stat`ing every session, fill and cache file: 10,000 past
    sessions cost each start 79 ms. A start looks at `SWEEP_AT_ONCE` files of a folder, a window
    that moves with the clock; the stale ones go over later starts, the fresh ones stay."""
    import os
    import time

    from abcd.session.files import SWEEP_AT_ONCE, SWEEP_EVERY_SECONDS, SWEPT_MARK, sweep_stale

    host.start("s0")  # the home and its folders
    sessions = abcd_home / "sessions"
    week_and_a_day = time.time() - 8 * 24 * 3600
    an_hour_ago = time.time() - 3600
    (sessions / SWEPT_MARK).touch(mode=0o600)
    os.utime(sessions / SWEPT_MARK, (an_hour_ago, an_hour_ago))  # the last sweep, long ago
    stale = [sessions / f"old-{n}.jsonl" for n in range(SWEEP_AT_ONCE * 3)]
    fresh = [sessions / f"new-{n}.jsonl" for n in range(40)]
    for path in [*stale, *fresh]:
        path.write_bytes(b"{}\n")
        path.chmod(0o600)
    for path in stale:
        os.utime(path, (week_and_a_day, week_and_a_day))
    host.start("s1")  # a real start: one window
    left = sum(path.exists() for path in stale)
    assert len(stale) - SWEEP_AT_ONCE <= left < len(stale)
    home = Home.open(abcd_home)
    assert home is not None
    with home:
        for n in range(40):  # later starts, the clock moving on
            if not any(path.exists() for path in stale):
                break
            later = time.time() + (n + 1) * (SWEEP_EVERY_SECONDS + 0.0371)
            assert sweep_stale(home, later) <= SWEEP_AT_ONCE
    assert not any(path.exists() for path in stale)
    assert all(path.exists() for path in fresh)


def test_a_session_start_within_minutes_of_the_last_sweep_does_not_list_the_folders(
    host: Host, abcd_home: Path
) -> None:
    """Listing two folders of 10,000 names cost every start 40 ms. A sweep stamps `SWEPT_MARK`;
    a start within `SWEEP_EVERY_SECONDS` of it skips the sweep, a later one (or one whose mark
    is in the future: the clock set back) sweeps and stamps it again."""
    import os
    import time

    from abcd.session.files import SWEEP_EVERY_SECONDS, SWEPT_MARK

    host.start("s0")  # the home's first start: no sessions folder to mark yet
    host.start("s0b")  # sweeps and marks
    sessions = abcd_home / "sessions"
    mark = sessions / SWEPT_MARK
    assert abs(mark.stat().st_mtime - time.time()) < 60
    assert mark.stat().st_mode & 0o777 == 0o600
    stale = sessions / "old.jsonl"
    stale.write_bytes(b"{}\n")
    stale.chmod(0o600)
    week_and_a_day = time.time() - 8 * 24 * 3600
    os.utime(stale, (week_and_a_day, week_and_a_day))
    host.start("s1")  # within minutes of s0b's sweep
    assert stale.exists()
    for last in (time.time() - SWEEP_EVERY_SECONDS - 5, time.time() + 3600):
        os.utime(mark, (last, last))
        host.start(f"s-{int(last)}")
        assert not stale.exists()  # swept
        assert abs(mark.stat().st_mtime - time.time()) < 60  # and stamped anew
        stale.write_bytes(b"{}\n")
        os.utime(stale, (week_and_a_day, week_and_a_day))
    mark.unlink()
    mark.symlink_to(abcd_home / "elsewhere")  # not a regular file: never followed, never stamped
    an_hour_ago = time.time() - 3600
    os.utime(mark, (an_hour_ago, an_hour_ago), follow_symlinks=False)
    for session in ("s2", "s3"):
        host.start(session)
        assert not stale.exists() and not (abcd_home / "elsewhere").exists()
        assert mark.is_symlink() and mark.lstat().st_mtime == an_hour_ago
        stale.write_bytes(b"{}\n")
        os.utime(stale, (week_and_a_day, week_and_a_day))


@pytest.mark.parametrize("note_by_note", [False, True], ids=["term-by-term", "note-by-note"])
def test_dense_postings_and_either_scoring_agree_with_the_fold_to_the_bit(
    repo: Path, abcd_home: Path, monkeypatch: pytest.MonkeyPatch, note_by_note: bool
) -> None:
    from abcd.recall import engine
    from abcd.recall.index import DENSE_MIN, Index

    if note_by_note:
        monkeypatch.setattr(engine, "TERM_AT_A_TIME_MAX", 0)
    rng = random.Random(5)
    words = [*WORDS, "alpha", "beta", "gamma", "delta", "omega"]
    events: list[Event] = [
        NoteAdded(
            id=f"mem-{n:016d}",
            title=" ".join(rng.sample(words, 3)),
            body=" ".join(rng.choices(words, k=rng.randint(5, 60))),
            recall=(rng.choice(words), rng.choice(["deploy", "test", "alpha beta"])),
            root=None,
            origin="agent",
            written_by="Claude:claude-opus-4-8",
            session=None,
        )
        for n in range(3 * DENSE_MIN)
    ]
    events[7] = NoteAdded(  # a term repeated past what one byte holds
        id=f"mem-{7:016d}",
        title="deploy",
        body="deploy " * 300,
        recall=("deploy",),
        root=None,
        origin="agent",
        written_by="Claude:claude-opus-4-8",
        session=None,
    )
    store.append(lambda _v: events, projections=(project_index,))
    home = Home.open()
    assert home is not None
    with home:
        index = Index.open(home)
        terms = index.terms(["deploy", "omega", "alpha"])
        index.close()
    assert terms["deploy"][3] and terms["omega"][3]  # dense: most notes hold them
    for prompt in ("deploy the release", "test alpha beta omega", "deploy test cache alpha gamma"):
        fast, slow = _both(repo, prompt)
        assert len(fast.candidates) > DENSE_MIN
        assert _scores(fast) == _scores(slow), prompt
        assert [c.form for c in fast.candidates] == [c.form for c in slow.candidates]


def _damage_past_the_header(index: Path) -> bytes:
    """Overwrite everything after the index's header (it still opens); return the new bytes."""
    data = index.read_bytes()
    body_starts = 16 + int.from_bytes(data[8:16], "little")
    damaged = data[:body_starts] + b"\xff" * (len(data) - body_starts)
    index.write_bytes(damaged)
    return damaged


def test_an_index_changed_after_its_writer_is_not_read_the_view_serves_and_it_is_said(
    host: Host, abcd_home: Path
) -> None:
    note = host.note("Deploys need a tag", "Tag before deploying.", "deploy")
    _damage_past_the_header(abcd_home / "memory.idx")
    env = host.prompt("deploy it", "s1")
    assert keys(env) == [note]
    assert "memory.idx changed since abcd wrote memory.json" in env["stderr"]
    # What ends it: `journal verify` (the hint before) says "intact" of a copied home's index.
    assert "until the next session start or `abcd journal rebuild` writes it again" in env["stderr"]


def test_a_session_start_rebuilds_an_index_the_view_does_not_name(
    host: Host, abcd_home: Path
) -> None:
    note = host.note("Deploys need a tag", "Tag before deploying.", "deploy")
    index = abcd_home / "memory.idx"
    damaged = _damage_past_the_header(index)
    host.start("s1")
    assert index.read_bytes() != damaged
    env = host.prompt("deploy it", "s1")
    assert keys(env) == [note]
    assert "memory.idx" not in env["stderr"]


def test_a_writer_leaves_a_slightly_trailing_index_and_rewrites_it_past_the_bound(
    repo: Path, abcd_home: Path
) -> None:
    from abcd.recall.index import INDEX_LAG_EVENTS, Index

    def checkpoint_seq() -> int:
        home = Home.open()
        assert home is not None
        with home:
            index = Index.open(home)
            try:
                return index.checkpoint[2]
            finally:
                index.close()

    store.append(lambda _v: [_deploy_note("mem-0000000000000100")], projections=(project_index,))
    written = (abcd_home / INDEX_FILE).read_bytes()
    for n in range(1, INDEX_LAG_EVENTS):
        note = _deploy_note(f"mem-{100 + n:016d}", title=f"step {n}")
        store.append(lambda _v, note=note: [note], projections=(project_index,))
    assert (abcd_home / INDEX_FILE).read_bytes() == written  # trailing by 63 events: left alone
    fast, slow = _both(repo, "deploy")
    assert len(fast.candidates) == INDEX_LAG_EVENTS and _scores(fast) == _scores(slow)
    store.append(lambda _v: [_deploy_note("mem-0000000000009999")], projections=(project_index,))
    assert checkpoint_seq() == INDEX_LAG_EVENTS + 1  # the 64th event behind: written whole


def test_journal_rebuild_writes_the_index_whatever_it_trails(
    repo: Path, abcd_home: Path, abcd: Any
) -> None:
    store.append(lambda _v: [_deploy_note("mem-0000000000000200")], projections=(project_index,))
    store.append(lambda _v: [_deploy_note("mem-0000000000000201")], projections=(project_index,))
    before = (abcd_home / INDEX_FILE).read_bytes()
    assert abcd("journal", "rebuild").code == 0
    assert (abcd_home / INDEX_FILE).read_bytes() != before


def test_many_promoted_twins_are_suppressed_and_uncounted_as_by_the_fold(
    repo: Path, abcd_home: Path
) -> None:
    notes = [
        _deploy_note(f"mem-{n:016d}", title=f"deploy step {n}", body="release " * (n % 7))
        for n in range(300, 600)
    ]
    store.append(lambda _v: notes, projections=(project_index,))
    # Two hundred of them promoted to the project's file: more id buckets than one read each.
    (repo / ".abcd").mkdir()
    (repo / ".abcd" / "memory.json").write_text(
        json.dumps(
            {
                "schema_version": 1,
                "notes": [
                    {"id": n.id, "title": n.title, "body": "promoted", "recall": ["deploy"]}
                    for n in notes[:200]
                ],
            }
        )
    )
    fast, slow = _both(repo, "deploy the release")
    assert _scores(fast) == _scores(slow)
    layers = [c.item.layer for c in fast.candidates]
    assert layers.count("project") == 200 and layers.count("machine") == 100


def test_kept_note_numbers_of_promoted_ids_follow_a_renumbered_index(
    repo: Path, abcd_home: Path
) -> None:
    from abcd.recall.index import rebuild_index

    notes = [_deploy_note(f"mem-{n:016d}", title=f"deploy {n}") for n in range(700, 720)]
    store.append(lambda _v: notes, projections=(project_index,))
    twin = notes[10]
    (repo / ".abcd").mkdir()
    (repo / ".abcd" / "memory.json").write_text(
        json.dumps(
            {
                "schema_version": 1,
                "notes": [{"id": twin.id, "title": "promoted", "body": "b", "recall": ["deploy"]}],
            }
        )
    )
    fast, slow = _both(repo, "deploy")  # the twin's note number is kept in the cache
    assert _scores(fast) == _scores(slow)
    # Notes before the twin removed and the index written again: every later note is renumbered.
    gone: list[Event] = [NoteRemoved(id=n.id, removed_by="person", session=None) for n in notes[:5]]
    store.append(lambda _v: gone, projections=(rebuild_index,))
    fast, slow = _both(repo, "deploy")
    assert _scores(fast) == _scores(slow)
    assert [c.item.layer for c in fast.candidates if c.item.key == twin.id] == ["project"]


def test_a_crowd_ranked_best_first_scores_few_candidates_and_agrees_with_the_fold(
    repo: Path, abcd_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Most notes carry `test` and the prompt holds it: past `PRUNE_FROM` candidates the hook
    ranks best first, scoring a share of them, and takes exactly what full ranking takes."""
    rng = random.Random(13)
    common = "the a to and of in is after".split()
    events: list[Event] = [
        NoteAdded(
            id=f"mem-{n:016d}",
            title=" ".join(rng.choices(WORDS + common, k=5)),
            body=" ".join(rng.choices(WORDS + common, k=rng.randint(5, 40))),
            recall=(*rng.sample(WORDS, 2), "test"),
            root=None,
            origin="agent",
            written_by="Claude:claude-opus-4-8",
            session=None,
        )
        for n in range(1500)
    ]
    store.append(lambda _v: events, projections=(project_index,))
    scored = _counting_scores(monkeypatch)
    prompt = "the test is flaky after the deploy: retry the release and check the timeout"
    recalled = _the_hooks_take(repo, prompt)
    assert len(recalled) >= 10
    assert len(scored) < 1500 // 2  # the work followed the take, not the crowd
    _as_the_fold_takes(repo, prompt, recalled)


def _counting_scores(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The machine notes the recall scores from here on, as their numbers, in the order scored."""
    scored: list[int] = []
    score = engine._Machine.score

    def counting(self: Any, numbers: list[int]) -> list[tuple[float, int]]:
        scored.extend(numbers)
        return score(self, numbers)

    monkeypatch.setattr(engine._Machine, "score", counting)
    return scored


def _the_hooks_take(repo: Path, prompt: str) -> list[tuple[str, float, str]]:
    """What the hook's path (the index, the take, and no more) recalls for `prompt`."""
    home = Home.open()
    assert home is not None
    with home:
        run = _Recaller(home, repo)
        with run(prompt, stems=run.cache()) as taken:
            return [(c.item.key, c.score, c.form) for c in taken.recalled]


def _as_the_fold_takes(repo: Path, prompt: str, recalled: list[tuple[str, float, str]]) -> None:
    """The hook's take is the full ranking's: the same items, scores and forms."""
    fast, slow = _both(repo, prompt)
    assert _scores(fast) == _scores(slow)
    assert [c.form for c in fast.candidates] == [c.form for c in slow.candidates]
    assert recalled == [(c.item.key, c.score, c.form) for c in slow.recalled]


def _a_crowd_of_many_words(count: int) -> tuple[list[Event], list[str]]:
    """`count` notes whose bodies draw on a vocabulary of 80 words, every one of them held by far
    more than one note in 32 (dense), and the vocabulary."""
    rng = random.Random(17)
    vocabulary = [*WORDS, *(f"w{letter}{vowel}" for letter in "bcdfgklmnp" for vowel in "aeiou")]
    vocabulary += [f"z{letter}" for letter in "bcdfghjklmnprstv"][: 80 - len(vocabulary)]
    events: list[Event] = [
        NoteAdded(
            id=f"mem-{n:016d}",
            title=" ".join(rng.choices(vocabulary, k=5)),
            body=" ".join(rng.choices(vocabulary, k=rng.randint(10, 60))),
            recall=(*rng.sample(WORDS, 2), "test"),
            root=None,
            origin="agent",
            written_by="Claude:claude-opus-4-8",
            session=None,
        )
        for n in range(count)
    ]
    return events, vocabulary


def _pasted_log(vocabulary: list[str]) -> str:
    """A prompt that pastes a log: every word of the vocabulary, many times over, in no order."""
    rng = random.Random(3)
    lines = [" ".join(rng.choices(vocabulary, k=12)) for _ in range(60)]
    return "the test fails with this log:\n" + "\n".join(lines)


def test_a_pasted_log_of_many_common_words_is_ranked_best_first_and_agrees_with_the_fold(
    repo: Path, abcd_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A prompt holding more common terms than `TERM_AT_A_TIME_MAX` (a pasted log) is ranked
    best first too, its candidates scored note by note: a share of them is scored, and the take
    is exactly what full ranking takes (seventeenth round: it scored every candidate, ~1.2 s a
    prompt at 100,000 notes)."""
    events, vocabulary = _a_crowd_of_many_words(1500)
    store.append(lambda _v: events, projections=(project_index,))
    scored = _counting_scores(monkeypatch)
    by_note: list[int] = []
    note_by_note = engine._Machine._note_by_note

    def counting_notes(self: Any, numbers: list[int], *rest: Any) -> list[tuple[float, int]]:
        by_note.extend(numbers)
        return note_by_note(self, numbers, *rest)

    monkeypatch.setattr(engine._Machine, "_note_by_note", counting_notes)
    prompt = _pasted_log(vocabulary)
    recalled = _the_hooks_take(repo, prompt)
    assert len(recalled) >= 10
    assert scored == by_note  # more common terms than term by term takes
    assert len(scored) < 1500 // 2  # the work followed the take, not the crowd
    _as_the_fold_takes(repo, prompt, recalled)


def test_a_pasted_log_of_rare_words_reads_few_of_their_holders_and_agrees_with_the_fold(
    repo: Path, abcd_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pasted log holds rare words too (sparse terms: a few holders each, and high idf). Their
    holders were all scored in the first round (eighteenth round: 5,218 of them at 100,000 notes);
    now each holder's bound adds its exact sparse parts, rounded up, to what its dense terms
    bound, so a holder is scored only once its bound reaches the threshold, and the take is
    exactly what full ranking takes. The holders hold dozens of the dense words too, so a bound
    that left those out would rank one late. (The note numbers are the events' places.)"""
    events, vocabulary = _a_crowd_of_many_words(1500)
    rng = random.Random(5)
    rare = [f"rare{n:02d}" for n in range(60)]
    holders: set[int] = set()
    for word in rare:  # 2 to 5 holders each: far fewer than one note in 32
        for n in rng.sample(range(len(events)), rng.randint(2, 5)):
            holders.add(n)
            note = events[n]
            assert isinstance(note, NoteAdded)
            events[n] = msgspec.structs.replace(note, body=f"{note.body} {word}")
    store.append(lambda _v: events, projections=(project_index,))
    scored = _counting_scores(monkeypatch)
    prompt = _pasted_log(vocabulary) + "\n" + " ".join(rare)
    recalled = _the_hooks_take(repo, prompt)
    assert len(recalled) >= 10
    assert len(holders) > engine._SPARSE_FIRST_MAX  # too many to read them all first
    assert len(holders - set(scored)) > len(holders) // 4  # not every holder of a rare word
    _as_the_fold_takes(repo, prompt, recalled)


def test_the_hook_sends_for_a_pasted_log_what_the_diagnostic_ranks_first(
    host: Host, repo: Path, abcd_home: Path
) -> None:
    """The path a person takes: a prompt pasting a log, in a home of 1,500 notes most of which
    share dozens of its words, brings back from the hook (a fresh process, ranking best first
    through the index) the notes `abcd rules --prompt` (folding the view, scoring every
    candidate) ranks first, in its order."""
    events, vocabulary = _a_crowd_of_many_words(1500)
    store.append(lambda _v: events, projections=(project_index,))
    prompt = _pasted_log(vocabulary)
    host.start("s1")
    env = host.prompt(prompt, "s1")
    assert "failed" not in env["stderr"]
    sent = keys(env)
    assert len(sent) >= 10
    result = host.abcd("rules", "--prompt", prompt, "--json", cwd=repo)
    assert result.code == 0, result.err
    ranked = sorted(json.loads(result.out)["notes"], key=lambda n: n["rank"])
    assert sent == [n["key"] for n in ranked[: len(sent)]]


def test_a_session_start_asks_for_the_compaction_one_that_died_left_undone(
    host: Host, repo: Path, abcd_home: Path
) -> None:
    """A compaction that died (killed, a full disk) after a large import left the index trailing
    by hundreds of events, and writers ask for another only as they cross the next multiple of
    `COMPACT_AFTER`: until then every prompt folded the lines past it. The session-start hook
    asks for one (off its path), and the prompts read an index at the journal's end again."""
    import fcntl
    import os
    import time

    from abcd.journal.head import COMPACT_AFTER, read_head
    from abcd.recall.index import Index

    def seqs() -> tuple[int, int]:
        home = Home.open()
        assert home is not None
        with home:
            head = read_head(home)
            assert head is not None
            index = Index.open(home)
            try:
                return index.checkpoint[2], head.checkpoint[2]
            finally:
                index.close()

    body = "release then deploy " * 25  # a view past the inline bound: compacted apart
    first = [_deploy_note(f"mem-{n:016d}", body=body) for n in range(200)]
    store.append(lambda _v: first, projections=(project_index,))
    late = [_deploy_note(f"mem-{n:016d}", title="late", body=body) for n in range(200, 400)]
    lock = os.open(abcd_home / "journal" / ".compact", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(lock, fcntl.LOCK_EX)  # the writer's compaction finds it held and leaves
    try:
        store.append_records(lambda _known: late)
    finally:
        os.close(lock)
    indexed, end = seqs()
    assert end - indexed >= COMPACT_AFTER
    host.start("s1")
    deadline = time.monotonic() + 60
    while seqs()[0] != end and time.monotonic() < deadline:
        time.sleep(0.1)
    assert seqs() == (end, end)
    assert len(host.prompt("deploy", "s1")["recalled"]) > 0


def test_a_fifo_where_the_sweep_mark_stands_never_holds_a_session_start(
    repo: Path, abcd_home: Path
) -> None:
    """The mark was opened write-only and blocking: a FIFO planted as `SWEPT_MARK` (or left by a
    tool) held every session start whose sweep was due, forever, as no one reads the FIFO."""
    import os
    import subprocess
    import sys
    import time

    from abcd.session.files import SWEPT_MARK

    def start(session: str) -> subprocess.CompletedProcess[str]:
        payload = {"session_id": session, "cwd": str(repo), "source": "startup"}
        return subprocess.run(
            [sys.executable, "-m", "abcd", "hook", "session-start"],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            timeout=20,
        )

    assert start("s0").returncode == 0  # the home and its folders
    sessions = abcd_home / "sessions"
    mark = sessions / SWEPT_MARK
    mark.unlink(missing_ok=True)
    os.mkfifo(mark, 0o600)
    an_hour_ago = time.time() - 3600
    os.utime(mark, (an_hour_ago, an_hour_ago))  # a sweep is due
    stale = sessions / "old.jsonl"
    stale.write_bytes(b"{}\n")
    stale.chmod(0o600)
    week_and_a_day = time.time() - 8 * 24 * 3600
    os.utime(stale, (week_and_a_day, week_and_a_day))
    for session in ("s1", "s2"):
        result = start(session)  # raised TimeoutExpired before the fix
        assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
        assert not stale.exists()
        stale.write_bytes(b"{}\n")
        os.utime(stale, (week_and_a_day, week_and_a_day))


def test_a_folder_the_sweep_refuses_does_not_stop_the_session_start_from_resetting(
    host: Host, abcd: Run, repo: Path, abcd_home: Path
) -> None:
    """The sweep raised on a cache folder it refuses (writable by others, another account's), and
    the start ended there: the session's reset was never recorded, so a new session was sent
    nothing it had been sent before the reset. The start now says it and goes on."""
    import os
    import time

    from abcd.session.files import SWEPT_MARK

    host.start("s0")
    host.start("s0")  # the mark
    note = host.note("deploy order", "Deploy the api before the web app.", "deploy")
    assert note in keys(host.prompt("how do I deploy", "s0"))
    assert note not in keys(host.prompt("how do I deploy", "s0"))  # once a session
    cache = abcd_home / "cache"
    cache.mkdir(exist_ok=True)
    cache.chmod(0o777)
    an_hour_ago = time.time() - 3600
    os.utime(abcd_home / "sessions" / SWEPT_MARK, (an_hour_ago, an_hour_ago))  # a sweep is due
    result = abcd(
        "hook",
        "session-start",
        stdin=json.dumps({"session_id": "s0", "cwd": str(repo), "source": "clear"}),
    )
    assert result.code == 0 and "Traceback" not in result.err, result.err
    cache.chmod(0o700)
    assert note in keys(host.prompt("how do I deploy", "s0"))  # the reset was recorded
    assert "stale files not swept" in result.err

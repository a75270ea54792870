"""A write rewrites neither the view nor the index: the head line witnesses the lines past them,
and they are compacted once they trail by `COMPACT_AFTER` events (issue 13)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from abcd.errors import JournalBroken
from abcd.journal import compact, store
from abcd.journal.head import COMPACT_AFTER, HEAD_FILE, read_head
from abcd.journal.verify import verify
from abcd.recall.index import Index, rebuild_index

from .helpers import added, append, in_home, note_id, removed, segment, stored_seq


def settled_home(count: int) -> None:
    """A home whose view and index are up to date after `count` adds."""
    for n in range(count):
        store.append_records(lambda _known, n=n: [added(note_id(n), f"lesson {n}")])
    store.refresh(projections=(rebuild_index,))


def test_an_add_rewrites_neither_the_view_nor_the_index_yet_every_reader_sees_it(
    abcd_home: Path,
) -> None:
    settled_home(3)
    before = {name: (abcd_home / name).stat() for name in ("memory.json", "memory.idx")}
    store.append_records(lambda _known: [added(note_id(9), "late")])
    for name, st in before.items():
        now = (abcd_home / name).stat()
        assert (now.st_ino, now.st_size, now.st_ctime_ns) == (st.st_ino, st.st_size, st.st_ctime_ns)
    assert [n.title for n in store.load_view().notes][-1] == "late"
    with in_home(abcd_home) as home:
        head = read_head(home)
        assert head is not None and head.checkpoint[2] == 4
        assert verify(home).ok


def test_the_caches_are_compacted_once_they_trail_by_the_bound(abcd_home: Path) -> None:
    settled_home(1)
    for n in range(1, COMPACT_AFTER):
        store.append_records(lambda _known, n=n: [added(note_id(n))])
    assert stored_seq(abcd_home) == 1  # trailing by COMPACT_AFTER - 1: not yet
    store.append_records(lambda _known: [added(note_id(COMPACT_AFTER))])
    assert stored_seq(abcd_home) == COMPACT_AFTER + 1  # a small home: compacted at once
    with in_home(abcd_home) as home:
        index = Index.open(home)
        try:
            assert index.checkpoint[2] == COMPACT_AFTER + 1
        finally:
            index.close()


def test_an_edited_line_past_the_view_is_named_by_readers_writers_and_verify(
    abcd_home: Path,
) -> None:
    settled_home(2)
    append(added(note_id(7), "trailing"))
    path = segment(abcd_home)
    data = path.read_bytes()
    path.write_bytes(data.replace(b"body of trailing", b"body of forged!!"))
    with pytest.raises(JournalBroken, match="seq 3"):
        store.load_view()
    with pytest.raises(JournalBroken, match="seq 3"):
        store.append_records(lambda _known: [added(note_id(8))])
    with in_home(abcd_home) as home:
        report = verify(home)
    assert not report.ok and report.breaks[0].seq == 3


def test_a_torn_or_foreign_head_line_is_not_believed_and_the_next_writer_mends_it(
    abcd_home: Path,
) -> None:
    settled_home(2)
    append(added(note_id(5), "five"))
    (abcd_home / HEAD_FILE).write_bytes((abcd_home / HEAD_FILE).read_bytes()[:40])
    assert [n.title for n in store.load_view().notes][-1] == "five"
    store.append_records(lambda _known: [added(note_id(6), "six")])
    with in_home(abcd_home) as home:
        head = read_head(home)
        assert head is not None and head.checkpoint[2] == 4
        assert verify(home).ok
    assert stored_seq(abcd_home) == 4  # no head beside the view: that writer wrote it whole


@pytest.mark.parametrize("through", ["the index", "the view"])
def test_a_plan_knows_every_id_ever_used_through_the_index_and_the_lines_past_it(
    abcd_home: Path, through: str
) -> None:
    settled_home(3)
    append(removed(note_id(0)))
    store.refresh(projections=(rebuild_index,))
    append(added(note_id(8), "past the index"), removed(note_id(1)))
    if through == "the view":
        (abcd_home / "memory.idx").unlink()  # the plan reads the view whole instead
    seen: dict[str, object] = {}

    def plan(known: store.Known) -> list[object]:
        for n in (0, 1, 2, 8, 9):
            seen[note_id(n)] = (known.used(note_id(n)), known.title(note_id(n)))
        seen["removed"] = (known.removed(note_id(0)), known.removed(note_id(2)))
        return []

    store.append_records(plan)  # type: ignore[arg-type]
    assert seen == {
        note_id(0): (True, None),
        note_id(1): (True, None),
        note_id(2): (True, "lesson 2"),
        note_id(8): (True, "past the index"),
        note_id(9): (False, None),
        "removed": (True, False),
    }


def compacted_apart(abcd_home: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    """A settled home counted as big, appended to until a writer starts a detached compaction:
    the view's checkpoint once that compaction swapped it in (or a minute passed)."""
    settled_home(1)
    monkeypatch.setattr(compact, "INLINE_BYTES", 0)  # every home counts as big
    for n in range(1, COMPACT_AFTER + 1):
        store.append_records(lambda _known, n=n: [added(note_id(n))])
    deadline = time.monotonic() + 60
    while stored_seq(abcd_home) != COMPACT_AFTER + 1 and time.monotonic() < deadline:
        time.sleep(0.1)
    return stored_seq(abcd_home)


def test_a_big_home_is_compacted_by_a_detached_process_not_by_the_writer(
    abcd_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert compacted_apart(abcd_home, monkeypatch) == COMPACT_AFTER + 1
    with in_home(abcd_home) as home:
        assert verify(home).ok


def test_the_detached_compaction_runs_no_abcd_the_working_folder_holds(
    abcd_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer runs in a checkout (`abcd memory add` from the agent's Bash tool); `python -m`
    would put that folder first on the child's path, and a planted `abcd` package would run."""
    checkout = tmp_path / "checkout"
    marker = tmp_path / "ran-from-the-checkout"
    planted = f"open({str(marker)!r}, 'a').write(__name__ + '\\n')\n"
    for name in ("abcd/__init__.py", "abcd/journal/__init__.py", "abcd/journal/compact.py"):
        (checkout / name).parent.mkdir(parents=True, exist_ok=True)
        (checkout / name).write_text(planted)
    monkeypatch.chdir(checkout)

    assert compacted_apart(abcd_home, monkeypatch) == COMPACT_AFTER + 1, "abcd's own compaction ran"
    assert not marker.exists(), marker.read_text()


def test_a_compaction_run_by_hand_brings_both_caches_up_and_verify_agrees(
    abcd_home: Path,
) -> None:
    settled_home(2)
    append(added(note_id(4)))
    append(removed(note_id(0)))
    run = subprocess.run(
        [sys.executable, "-m", "abcd.journal.compact", str(abcd_home)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert stored_seq(abcd_home) == 4
    with in_home(abcd_home) as home:
        report = verify(home)
    assert report.ok and not report.differs

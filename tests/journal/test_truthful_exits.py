"""An exit code is a promise: a refusal wrote nothing, a success wrote exactly once, a batch
lands whole or not at all, and no write makes a view its own readers would refuse."""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from abcd.errors import CorruptFile, Refused
from abcd.journal import segments, store
from abcd.journal.envelope import line_hash
from abcd.journal.events import Event
from abcd.trust import Home
from tests.conftest import BY, Run
from tests.hook.conftest import Host
from tests.oscalls import patch_os

from .helpers import added, append, append_adds, note_id, segment


def _notes(abcd: Run) -> list[str]:
    listed = abcd("memory", "list", "--json")
    return [n["id"] for n in json.loads(listed.out)["notes"]]


@pytest.mark.parametrize(
    ("cache", "planted", "said"),
    [
        ("memory.idx", "link", "warning: written, but recall index not written"),
        ("memory.head", "link", "warning: written, but ~/memory.head: cannot write"),
        # A FIFO once held the writer (and the journal's lock) for ever after the note landed.
        ("memory.head", "fifo", "warning: written, but ~/memory.head: cannot write"),
    ],
)
def test_a_note_that_landed_is_a_success_even_when_a_cache_cannot_be_written(
    repo: Path, abcd: Run, abcd_home: Path, tmp_path: Path, cache: str, planted: str, said: str
) -> None:
    first = abcd("memory", "add", "--title", "One", "--recall", "x", "--by", BY, stdin="b")
    assert first.code == 0
    (abcd_home / "memory.head").unlink()  # so this writer writes the caches whole
    (abcd_home / cache).unlink(missing_ok=True)
    if planted == "link":
        (abcd_home / cache).symlink_to(tmp_path / "elsewhere")
    else:
        os.mkfifo(abcd_home / cache)
    add = abcd("memory", "add", "--title", "Two", "--recall", "x", "--by", BY, stdin="b")
    assert add.code == 0, add.err
    assert add.out.strip().startswith("mem-")
    assert said.replace("~", str(abcd_home)) in add.err, add.err
    assert "memory.json not written" not in add.err  # the view was: the head line was not
    assert _notes(abcd) == [first.out.strip(), add.out.strip()]  # once, not twice
    assert not (tmp_path / "elsewhere").exists()  # the link was never followed


def test_a_writer_refuses_a_view_changed_outside_abcd_and_rebuild_replaces_it(
    repo: Path, abcd: Run, abcd_home: Path
) -> None:
    assert abcd("memory", "add", "--title", "One", "--recall", "x", "--by", BY, stdin="b").code == 0
    view = abcd_home / "memory.json"
    view.write_bytes(view.read_bytes().replace(b'"title":"One"', b'"title":"Onf"'))
    before = segment(abcd_home).read_bytes()
    add = abcd("memory", "add", "--title", "Two", "--recall", "x", "--by", BY, stdin="b")
    assert add.code == 1 and "changed outside abcd" in add.err
    assert segment(abcd_home).read_bytes() == before
    assert abcd("journal", "rebuild").code == 0
    assert abcd("memory", "add", "--title", "Two", "--recall", "x", "--by", BY, stdin="b").code == 0


def test_a_view_an_older_abcd_wrote_without_a_digest_verifies_as_a_stale_cache(
    repo: Path, abcd: Run, abcd_home: Path
) -> None:
    """Every reader and writer takes a view without a digest (abcd before view digests wrote
    them) as a stale cache; `journal verify` says the same, not "changed outside abcd". An edit
    of such a view is still caught, by comparing its notes with the fold."""
    assert abcd("memory", "add", "--title", "One", "--recall", "x", "--by", BY, stdin="b").code == 0
    view = abcd_home / "memory.json"
    older = re.sub(rb',"digest":"[0-9a-f]{64}"', b"", view.read_bytes())
    assert older != view.read_bytes()
    view.write_bytes(older)

    verified = abcd("journal", "verify")

    assert verified.code == 0, verified.err
    assert "memory.json predates view digests (an older abcd wrote it)" in verified.err
    assert "changed outside abcd" not in verified.err
    view.write_bytes(older.replace(b'"title":"One"', b'"title":"Onf"'))
    edited = abcd("journal", "verify")
    assert edited.code == 1 and "other than the journal wrote it" in edited.err, edited.err
    assert abcd("memory", "add", "--title", "Two", "--recall", "x", "--by", BY, stdin="b").code == 0
    assert abcd("journal", "verify").code == 0


def test_a_view_past_its_readers_bound_is_refused_before_anything_is_written(
    abcd_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    append_adds(3)
    before = segment(abcd_home).read_bytes()
    monkeypatch.setattr(store, "VIEW_MAX_BYTES", len((abcd_home / "memory.json").read_bytes()))
    with pytest.raises(Refused, match=r"memory\.json would be"):
        append(added(note_id(9)))
    assert segment(abcd_home).read_bytes() == before


def test_a_batch_whose_writer_died_is_never_read_and_the_next_writer_cuts_it(
    abcd_home: Path,
) -> None:
    append_adds(2)
    seg = segment(abcd_home)
    start = seg.stat().st_size
    # What a writer killed inside its batch leaves: the intent, then some of the lines.
    intent = f"1 {start} {start + 10_000} {'a' * 64}\n"
    (abcd_home / "journal" / ".pending").write_text(intent)
    os.chmod(abcd_home / "journal" / ".pending", 0o600)
    whole = seg.read_bytes()
    line = whole.splitlines(keepends=True)[-1].replace(b'"seq":2', b'"seq":3')
    seg.write_bytes(whole + line)
    assert [n.id for n in store.load_view().notes] == [note_id(0), note_id(1)]
    append(added(note_id(5)))
    assert not (abcd_home / "journal" / ".pending").exists()
    assert [n.id for n in store.load_view().notes] == [note_id(0), note_id(1), note_id(5)]
    # What was cut is kept, never deleted: an abcd too old to know the intent may have chained
    # a line of its own (and printed its id) onto the unfinished batch.
    (kept,) = (abcd_home / "recovered").glob(f"*-unfinished-{'a' * 12}/000001.jsonl.from-{start}")
    assert kept.read_bytes() == line


def test_a_line_an_older_abcd_chained_onto_an_unfinished_batch_is_set_aside_not_lost(
    repo: Path, abcd: Run, abcd_home: Path
) -> None:
    """An abcd from before the batch intent ignores it, chains a note onto the dead batch's
    lines and prints its id; the next writer cuts the batch, and with it that note's line.
    Found by an upgrade soak (ac16f5a's add after a killed import). The line must be kept."""
    assert abcd("memory", "add", "--title", "One", "--recall", "x", "--by", BY, stdin="b").code == 0
    seg = segment(abcd_home)
    start = seg.stat().st_size
    (abcd_home / "journal" / ".pending").write_text(f"1 {start} {start + 10_000} {'b' * 64}\n")
    os.chmod(abcd_home / "journal" / ".pending", 0o600)
    older = seg.read_bytes().splitlines(keepends=True)[-1].replace(b'"seq":1', b'"seq":2')
    seg.write_bytes(seg.read_bytes() + older)  # stands for the older abcd's acknowledged line

    added_now = abcd("memory", "add", "--title", "Two", "--recall", "x", "--by", BY, stdin="c")

    assert added_now.code == 0, added_now.err
    (kept,) = (abcd_home / "recovered").glob("*-unfinished-bbbbbbbbbbbb/000001.jsonl.from-*")
    assert kept.read_bytes() == older
    assert added_now.err.startswith(
        "abcd: a writer died before its batch was whole: its 1 complete line(s) are cut from "
        "the journal and kept in "
    )
    assert abcd("journal", "verify").code == 0


@pytest.mark.slow
def test_a_killed_import_lands_whole_or_not_at_all(
    repo: Path, abcd: Run, abcd_home: Path, tmp_path: Path
) -> None:
    count = 3000
    source = tmp_path / "notes.jsonl"
    pending = abcd_home / "journal" / ".pending"
    for total in range(1, 5):
        # Other notes each round: an import equal to live notes would write nothing (a twin).
        source.write_text(
            "".join(
                json.dumps({"title": f"Lesson {total}.{n}", "body": "B.", "recall": ["lesson"]})
                + "\n"
                for n in range(count)
            )
        )
        proc = subprocess.Popen(
            [sys.executable, "-m", "abcd", "memory", "import", str(source), "--by", BY],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        # Kill it the moment its batch's intent is on disk (inside the batch), or as it ends.
        while proc.poll() is None and not pending.exists():
            time.sleep(0.0005)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert (
            abcd(
                "memory", "add", "--title", f"t{total}", "--recall", "x", "--by", BY, stdin="b"
            ).code
            == 0
        )
        landed = len(_notes(abcd)) - total
        assert landed % count == 0, landed  # whole batches only, never a part of one
        assert not pending.exists()
        assert abcd("journal", "verify").code == 0


def test_a_refused_writer_leaves_no_intent_behind(abcd_home: Path) -> None:
    append_adds(1)
    with pytest.raises(CorruptFile):
        view = abcd_home / "memory.json"
        view.write_bytes(view.read_bytes().replace(b"lesson 0", b"lesson X"))
        append(added(note_id(7)), added(note_id(8)))
    assert not (abcd_home / "journal" / ".pending").exists()


def test_a_writer_that_opened_the_journal_during_anothers_batch_sees_it_once_it_holds_the_lock(
    abcd_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer opens the journal before it takes the lock; another writer's intent there made
    it stop short of that batch, and the stop outlived the batch: its checks missed the
    batch's notes (six writers at once minted ids twice and overwrote acknowledged notes,
    with `verify` content). Under the lock, the journal is read to its end."""
    append_adds(2)
    seg = segment(abcd_home)
    start = seg.stat().st_size
    append(added(note_id(5), "lesson 5"), added(note_id(6), "lesson 6"))  # the other writer
    last = seg.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1]
    intent = f"1 {start} {seg.stat().st_size} {line_hash(last)}\n"
    pending = abcd_home / "journal" / ".pending"
    opened = segments.Segments.__init__

    def during_the_batch(self: segments.Segments, home: Home, *, create: bool = False) -> None:
        pending.write_text(intent)  # the other writer's batch is still being written...
        os.chmod(pending, 0o600)
        opened(self, home, create=create)
        pending.unlink()  # ...and has landed whole by the time this one holds the lock

    monkeypatch.setattr(segments.Segments, "__init__", during_the_batch)
    seen: list[object] = []

    def plan(known: store.Known) -> list[Event]:
        seen.extend([known.used(note_id(6)), known.title(note_id(6))])
        return []

    store.append_records(plan)
    assert seen == [True, "lesson 6"]  # so its ids are never minted twice, its twins are found


def test_a_reader_never_reads_part_of_a_batch_that_began_after_it_opened_the_journal(
    abcd_home: Path,
) -> None:
    """The intent was read once, when the journal was opened: a batch begun after that, read
    while it was being written (or after its writer died in it), showed its first lines."""
    append_adds(2)
    seg = segment(abcd_home)
    with Home.open(abcd_home) as home, segments.Segments(home) as reader:
        assert reader.stop is None
        start = seg.stat().st_size
        # Another writer begins a batch: its intent first, then the first of its lines.
        whole = seg.read_bytes()
        line = whole.splitlines(keepends=True)[-1].replace(b'"seq":2', b'"seq":3')
        pending = abcd_home / "journal" / ".pending"
        pending.write_text(f"1 {start} {start + 10_000} {'a' * 64}\n")
        os.chmod(pending, 0o600)
        seg.write_bytes(whole + line)
        assert [raw.end for raw in reader.lines()][-1] == start


def test_a_write_the_disk_refuses_leaves_no_empty_segment_and_no_intent(
    abcd_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a full disk a first add left an empty segment and a batch an empty intent: a failed
    command that had written files."""
    from abcd.errors import StorageError

    def full(fd: int, data: object) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    # Patched in a context of its own: `monkeypatch.undo()` would undo the suite's ABCD_HOME too,
    # and the writes below went to the person's own home.
    with monkeypatch.context() as patched:
        patch_os(patched, "write", full)
        with pytest.raises(StorageError, match="cannot append: No space left on device"):
            append(added(note_id(0)))
        with pytest.raises(StorageError, match="cannot write the batch's intent"):
            append(added(note_id(1)), added(note_id(2)))
    assert sorted(p.name for p in (abcd_home / "journal").iterdir()) == [".lock"]
    append(added(note_id(3)), added(note_id(4)))
    assert [n.id for n in store.load_view().notes] == [note_id(3), note_id(4)]


def test_an_intent_inside_what_the_head_line_witnesses_cuts_nothing(
    repo: Path, abcd: Run, abcd_home: Path
) -> None:
    """A `.pending` edited or damaged to name a batch from the journal's first byte was taken as
    a dead writer's batch: the next add cut three acknowledged notes out of the journal (kept in
    `recovered/`) and then failed on its own head line. No writer's batch starts there: a head
    line is written only once a batch is whole and its intent gone."""
    ids = []
    for title in ("One", "Two", "Three"):
        done = abcd("memory", "add", "--title", title, "--recall", "x", "--by", BY, stdin="b")
        assert done.code == 0, done.err
        ids.append(done.out.strip())
    (abcd_home / "journal" / ".pending").write_text(f"1 0 99999 {'0' * 64}\n")
    os.chmod(abcd_home / "journal" / ".pending", 0o600)
    # Readers hold nothing back for it either: before the next write, every note is listed.
    listed = json.loads(abcd("memory", "list", "--json").out)["notes"]
    assert [n["id"] for n in listed] == ids
    host = Host(abcd, repo)
    host.start("s-intent")
    sent = json.dumps(host.prompt("x", session="s-intent"))
    assert all(title in sent for title in ("One", "Two", "Three"))

    four = abcd("memory", "add", "--title", "Four", "--recall", "x", "--by", BY, stdin="c")

    assert four.code == 0, four.err
    assert "nothing was cut; it is cleared" in four.err
    listed = json.loads(abcd("memory", "list", "--json").out)["notes"]
    assert [n["id"] for n in listed] == [*ids, four.out.strip()]
    assert not (abcd_home / "recovered").exists()
    assert not (abcd_home / "journal" / ".pending").exists()
    assert abcd("journal", "verify").code == 0


@pytest.mark.parametrize("outcome", ["landed", "failed"])
@pytest.mark.parametrize("reader", ["commands", "hook", "hook without its index"])
def test_a_reader_that_read_part_of_a_batch_takes_it_as_it_ended(
    abcd_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reader: str, outcome: str
) -> None:
    """A reader reads the last segment's bytes, then looks for a batch's intent. A batch it read
    part of that ended between the two (its intent removed) once left it with the batch's first
    lines: `list` and a prompt showed part of an import, or notes of an import that had failed
    and said nothing was written (its writer cuts the batch back before it removes the intent).
    The interleaving is driven from the reader's own reads, so the test leans on no timing."""
    from abcd.recall.index import rebuild_index
    from abcd.recall.machine import IndexedNotes, read_machine_notes

    append_adds(2)
    store.refresh(projections=(rebuild_index,))  # the view and the index up to date
    seg = segment(abcd_home)
    start = seg.stat().st_size
    # The other writer's batch, as it writes it: built on a copy of the home, so this one stays
    # as its writer left it (the head line's stamp of the segments holds).
    other = tmp_path / "other-home"
    shutil.copytree(abcd_home, other, symlinks=True)
    monkeypatch.setenv("ABCD_HOME", str(other))
    batch_ids = [note_id(n) for n in range(5, 9)]
    append(*(added(i, f"lesson {i}") for i in batch_ids))
    monkeypatch.setenv("ABCD_HOME", str(abcd_home))
    batch = segment(other).read_bytes()[start:]
    last = batch[:-1].rsplit(b"\n", 1)[-1]
    intent = f"1 {start} {start + len(batch)} {line_hash(last)}\n"
    if reader == "hook without its index":
        (abcd_home / "memory.idx").unlink()
    pending = abcd_home / "journal" / ".pending"
    part = batch.index(b"\n", batch.index(b"\n") + 1) + 1 + 40  # two lines and a piece of one
    stage = ["before"]
    read, look = segments.Segments.read, segments.Segments.pending

    def reading(self: segments.Segments, number: int, at: int = 0) -> bytes:
        if stage[0] == "before" and at <= start:
            stage[0] = "writing"  # the batch has begun: its intent, then its first lines
            pending.write_text(intent)
            os.chmod(pending, 0o600)
            with open(seg, "ab") as handle:
                handle.write(batch[:part])
        return read(self, number, at)

    def looking(self: segments.Segments) -> tuple[int, int, int, str] | None:
        if stage[0] == "writing":
            stage[0] = "ended"  # the batch ended and its intent was removed before the look
            if outcome == "landed":
                with open(seg, "ab") as handle:
                    handle.write(batch[part:])
            else:
                with open(seg, "r+b") as handle:
                    handle.truncate(start)
            pending.unlink()
        return look(self)

    monkeypatch.setattr(segments.Segments, "read", reading)
    monkeypatch.setattr(segments.Segments, "pending", looking)
    if reader == "commands":
        ids = [n.id for n in store.load_view().notes]
    elif reader == "hook":
        with Home.open(abcd_home) as home:
            indexed = IndexedNotes(home)
            assert indexed.index is not None  # the hook's path: the index, then the lines past it
            ids = [*indexed.index.knows([note_id(0), note_id(1)]), *indexed.extra]
            indexed.close()
    else:
        with Home.open(abcd_home) as home:
            ids = [item.key for item in read_machine_notes(home)]
    assert stage[0] == "ended"  # the interleaving happened
    assert ids == [note_id(0), note_id(1), *(batch_ids if outcome == "landed" else [])]

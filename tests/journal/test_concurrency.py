"""Real processes writing at once: nothing lost, ids unique, the chain intact; SIGKILL loses nothing acknowledged."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from abcd.journal import store
from abcd.journal.verify import verify
from abcd.trust import Home

from .helpers import added, append, note_id

LOOP = Path(__file__).with_name("writer_loop.py")
SRC = str(Path(__file__).resolve().parents[2] / "src")


def spawn(tag: str, count: int) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=SRC)
    return subprocess.Popen(
        [sys.executable, str(LOOP), tag, str(count)], stdout=subprocess.PIPE, text=True, env=env
    )


def test_eight_writers_of_a_hundred_adds_each_lose_nothing(abcd_home: Path) -> None:
    procs = [spawn(f"w{i}", 100) for i in range(8)]
    printed: list[str] = []
    for proc in procs:
        out, _ = proc.communicate(timeout=600)
        assert proc.returncode == 0
        printed.extend(out.split())
    view = store.load_view()
    ids = [n.id for n in view.notes]
    assert len(printed) == 800 and len(set(printed)) == 800
    assert sorted(ids) == sorted(printed)
    assert view.journal.seq == 800
    with Home.open(abcd_home) as home:  # type: ignore[union-attr]
        report = verify(home)
    assert report.ok and report.events == 800


def test_a_writer_killed_mid_run_loses_no_acknowledged_note(abcd_home: Path) -> None:
    for attempt in range(3):
        proc = spawn(f"k{attempt}", 100_000)
        assert proc.stdout is not None
        acknowledged = [proc.stdout.readline().strip() for _ in range(20 + 15 * attempt)]
        time.sleep(0.003 * attempt)
        proc.send_signal(signal.SIGKILL)
        rest, _ = proc.communicate(timeout=60)
        acknowledged += rest.split()
        view_ids = {n.id for n in store.load_view().notes}
        assert set(acknowledged) <= view_ids
    append(added(note_id(1)))  # the next writer repairs any torn tail
    with Home.open(abcd_home) as home:  # type: ignore[union-attr]
        assert verify(home).ok


HOLDER = """
import sys
from abcd.journal import store
from abcd.journal.segments import Segments
from abcd.trust import Home

with Home.open() as home, Segments(home, create=True) as segs, store.journal_lock(segs):
    print("held", flush=True)
    sys.stdin.read()  # holds the lock until the test closes stdin
"""


@contextmanager
def lock_held() -> Iterator[subprocess.Popen[str]]:
    """A real process holding the journal lock (a writer mid-append, or one stopped there)
    for the block; it lets go when the block ends, however it ends."""
    env = dict(os.environ, PYTHONPATH=SRC)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        env=env,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        yield holder
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=60)


def test_a_lock_file_deleted_while_a_writer_holds_it_lets_no_second_writer_in(
    abcd_home: Path,
) -> None:
    """`rm journal/.lock` (a person cleaning what looks stale) let the next writer lock a new
    file while the first still wrote: two lines took one seq, both acknowledged."""
    append(added(note_id(1)))
    with lock_held():
        (abcd_home / "journal" / ".lock").unlink()
        env = dict(os.environ, PYTHONPATH=SRC)
        writer = subprocess.Popen(
            [sys.executable, str(LOOP), "after", "1"], stdout=subprocess.PIPE, text=True, env=env
        )
        time.sleep(2.0)
        assert writer.poll() is None, "the writer did not wait for the lock's holder"
    out, _ = writer.communicate(timeout=60)
    assert writer.returncode == 0 and len(out.split()) == 1
    with Home.open(abcd_home) as home:  # type: ignore[union-attr]
        report = verify(home)
    assert report.ok and report.events == 2


def test_the_session_start_hook_never_waits_on_a_held_lock(abcd_home: Path) -> None:
    """With the index to rebuild (missing, as after an upgrade) and a writer holding the lock
    (stopped, or importing thousands of notes), the session-start hook waited as long as it
    held it; a hook never blocks."""
    append(added(note_id(1)))
    (abcd_home / "memory.idx").unlink(missing_ok=True)
    with lock_held():
        env = dict(os.environ, PYTHONPATH=SRC)
        payload = '{"session_id": "s-lock", "cwd": "/", "source": "startup"}'
        began = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "abcd", "hook", "session-start"],
            input=payload, capture_output=True, text=True, env=env, timeout=60,
        )  # fmt: skip
        assert time.monotonic() - began < 30
        assert done.returncode == 0
        assert (
            "recall index not rebuilt: another abcd process holds the journal lock" in done.stderr
        )


def add_command(title: str, folder: Path) -> subprocess.Popen[str]:
    """`abcd memory add` as a person runs it, in a process of its own."""
    body = folder / "body.txt"
    body.write_text("What it says.", encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=SRC)
    with body.open("rb") as stdin:
        return subprocess.Popen(
            [sys.executable, "-m", "abcd", "memory", "add", "--title", title, "--recall",
             "lockwait", "--by", "person"],
            stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )  # fmt: skip


def test_a_writer_waiting_on_a_held_lock_says_so_and_who_holds_it(
    abcd_home: Path, tmp_path: Path
) -> None:
    """A writer behind a stopped one waited without a word: the person saw a command hang."""
    append(added(note_id(1)))
    with lock_held() as holder:
        writer = add_command("the note that waited", tmp_path)
        time.sleep(store.LOCK_NOTICE_SECONDS + 2.0)
        assert writer.poll() is None, "the writer did not wait for the lock's holder"
    out, err = writer.communicate(timeout=60)
    assert writer.returncode == 0, err
    assert out.strip() == [n.id for n in store.load_view().notes][-1]
    waited = [line for line in err.splitlines() if "waiting for the journal lock" in line]
    assert len(waited) == 1, err  # said once, not once a second
    assert f"which process {holder.pid} holds" in waited[0]
    assert "journal/.lock" in waited[0]
    assert [n.title for n in store.load_view().notes][-1] == "the note that waited"


def test_a_writer_stopped_while_it_waits_for_the_lock_writes_nothing(
    abcd_home: Path, tmp_path: Path
) -> None:
    """Ctrl-C at the notice is what the notice offers: the command ends and nothing is written."""
    append(added(note_id(1)))
    with lock_held():
        writer = add_command("the note never written", tmp_path)
        assert writer.stderr is not None
        ready, _, _ = select.select([writer.stderr], [], [], 30)
        assert ready, "the writer said nothing while it waited"
        line = writer.stderr.readline()  # the notice, once the writer has waited its second
        assert "waiting for the journal lock" in line
        writer.send_signal(signal.SIGINT)
        writer.wait(timeout=60)
        assert writer.returncode != 0
    with Home.open(abcd_home) as home:  # type: ignore[union-attr]
        report = verify(home)
    assert report.ok and report.events == 1
    assert all(n.title != "the note never written" for n in store.load_view().notes)


WATCHED = """
import signal, sys
from abcd.journal import store
from tests.journal.helpers import added, note_id

def watchdog(signum, frame):
    print("watchdog", flush=True)
    sys.exit(7)

signal.signal(signal.SIGALRM, watchdog)
signal.setitimer(signal.ITIMER_REAL, 2 * store.LOCK_NOTICE_SECONDS)
store.append(lambda _view: [added(note_id(2))])
print("written", flush=True)
"""


def test_a_writer_whose_caller_set_an_alarm_keeps_it_while_it_waits_for_the_lock(
    abcd_home: Path,
) -> None:
    """A program that calls the writer under its own watchdog (`signal.setitimer`, `alarm`)
    lost it: the wait's notice set its own timer over it and then cleared the process's timer,
    so the watchdog never fired and the call hung for as long as the lock was held."""
    append(added(note_id(1)))
    root = str(Path(SRC).parent)
    env = dict(os.environ, PYTHONPATH=f"{SRC}{os.pathsep}{root}")
    with lock_held():
        writer = subprocess.Popen(
            [sys.executable, "-c", WATCHED], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, env=env,
        )  # fmt: skip
        try:
            out, err = writer.communicate(timeout=30)  # the lock is held throughout
        finally:
            writer.kill()
    assert (writer.returncode, out) == (7, "watchdog\n"), err
    assert "Traceback" not in err
    assert [n.id for n in store.load_view().notes] == [note_id(1)]

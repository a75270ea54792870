"""Real processes writing at once: nothing lost, ids unique, the chain intact; SIGKILL loses nothing acknowledged."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
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

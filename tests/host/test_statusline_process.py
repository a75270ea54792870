"""The status line as the host runs it: a real process, stdin in, one row out, one file written."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.session.helpers import make_home

from .helpers import SESSION, changed, payload, snapshot

ENTRY = (
    "import sys; from abcd.host.statusline import main; "
    "sys.exit(main(sys.argv[1:], sys.stdin.buffer, sys.stdout, sys.stderr))"
)


def statusline(stdin: bytes, *argv: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-c", ENTRY, *argv],
        input=stdin,
        capture_output=True,
        env=dict(os.environ),
        timeout=60,
        check=False,
    )


def test_a_real_process_prints_the_row_and_writes_the_one_fill_file(
    abcd_home: Path, tmp_path: Path
) -> None:
    make_home(abcd_home).close()
    before = snapshot(tmp_path)
    done = statusline(payload("after_turn1"))
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        b"Opus 4.8 (1M context) | 7% used | repo\n",
        b"",
    )
    assert len(changed(before, snapshot(tmp_path))) == 1
    assert SESSION.encode() not in done.stdout + done.stderr


def test_a_real_process_passes_its_stdin_through_to_the_persons_command(
    abcd_home: Path, tmp_path: Path
) -> None:
    make_home(abcd_home).close()
    before = snapshot(tmp_path)
    done = statusline(payload("after_turn1"), "--pass-through", "head -c 13")
    assert (done.returncode, done.stdout) == (0, payload("after_turn1")[:13])
    assert changed(before, snapshot(tmp_path)) == set()


def test_the_status_line_imports_neither_typer_nor_rich() -> None:
    probe = (
        "import sys, abcd.host.statusline, abcd.session.fill, abcd.session.brackets; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('typer', 'rich', 'click', 'msgspec')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"

"""`abcd review` as a person starts it: only at a terminal, serving until Ctrl-C."""

from __future__ import annotations

import http.client
import os
import pty
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

from tests.conftest import Run
from tests.web.conftest import add_note

URL = re.compile(r"http://127\.0\.0\.1:(\d+)/\?token=([A-Za-z0-9_-]+)")


def _read_until(fd: int, pattern: re.Pattern[str], seconds: float = 60) -> str:
    """What the terminal showed, up to the first match of `pattern` (or the deadline)."""
    seen = ""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not pattern.search(seen):
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the other side closed
            break
        if not chunk:
            break
        seen += chunk.decode("utf-8", "replace")
    return seen


def test_the_desk_is_refused_when_no_person_is_at_a_terminal(repo: Path, abcd: Run) -> None:
    done = abcd("review", "--no-browser")
    assert done.code == 1
    assert done.out == ""
    assert done.err.splitlines() == [
        "abcd: refused: abcd review is a person's desk: start it at a terminal "
        "(stdin and stdout are not one here)"
    ]


def test_at_a_terminal_it_prints_its_url_serves_it_and_stops_cleanly_on_ctrl_c(
    repo: Path, abcd: Run
) -> None:
    add_note(abcd, "Run the linter before pushing", "ruff check src tests", "lint")
    main, child = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "abcd", "review", "--no-browser"],
        stdin=child,
        stdout=child,
        stderr=child,
        cwd=repo,
        start_new_session=True,
    )
    os.close(child)
    try:
        shown = _read_until(main, URL)
        found = URL.search(shown)
        assert found is not None, shown
        port, token = int(found[1]), found[2]
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", f"/?token={token}")
        first = conn.getresponse()
        first.read()
        assert first.status == 303
        cookie = first.getheader("Set-Cookie", "").split(";")[0]
        conn.request(
            "GET", urlsplit(first.getheader("Location", "")).path, headers={"Cookie": cookie}
        )
        page = conn.getresponse()
        assert page.status == 200
        assert "Run the linter before pushing" in page.read().decode()
        conn.close()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
        rest = _read_until(main, re.compile(r"stopped"), seconds=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(main)
    assert "abcd review: stopped" in rest
    assert "Traceback" not in shown + rest

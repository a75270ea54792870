"""`abcd review` as a person starts it: only at a terminal, serving until Ctrl-C."""

from __future__ import annotations

import fcntl
import http.client
import os
import pty
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.conftest import Run
from tests.web.conftest import add_note

URL = re.compile(r"http://127\.0\.0\.1:(\d+)(/d-[A-Za-z0-9_-]+)/\?token=([A-Za-z0-9_-]+)")


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


def _at_a_terminal(
    repo: Path, *args: str, env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[bytes], int]:
    """`abcd review ARGS` started at a pseudo-terminal: the process and the terminal's side."""
    main, child = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "abcd", "review", *args],
        stdin=child,
        stdout=child,
        stderr=child,
        cwd=repo,
        env={**os.environ, **(env or {})},
        start_new_session=True,
    )
    os.close(child)
    return proc, main


def _stop(proc: subprocess.Popen[bytes], main: int) -> str:
    """Ctrl-C; what the terminal showed after it. The process must have exited 0."""
    try:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
        return _read_until(main, re.compile(r"stopped"), seconds=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(main)


def _get(port: int, path: str, cookie: str = "") -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path, headers={"Cookie": cookie} if cookie else {})
    answer = conn.getresponse()
    answer.read()
    conn.close()
    return answer


def test_the_browser_is_handed_a_one_time_link_never_the_token(
    repo: Path, abcd: Run, tmp_path: Path
) -> None:
    """A browser's command line is readable by every account on the machine (`ps`): the link
    it is started with holds a code spent by its first use, never the token, and not the run's
    folder either (knowing it, a server of one's own on 127.0.0.1 is handed the cookie); a
    second use is refused and said on the person's terminal."""
    add_note(abcd, "Run the linter before pushing", "ruff check src tests", "lint")
    opened = tmp_path / "opened"
    browser = tmp_path / "browser"
    browser.write_text(f'#!/bin/sh\nprintf %s "$1" > {opened}\n')
    browser.chmod(0o755)
    proc, main = _at_a_terminal(repo, env={"BROWSER": str(browser)})
    try:
        shown = _read_until(main, URL)
        found = URL.search(shown)
        assert found is not None, shown
        port, root, token = int(found[1]), found[2], found[3]
        deadline = time.monotonic() + 30
        while not opened.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        link = urlsplit(opened.read_text())
        assert token not in opened.read_text() and root not in opened.read_text()
        assert (link.hostname, link.port, link.path) == ("127.0.0.1", port, "/")
        first = _get(port, f"{link.path}?{link.query}")
        assert first.status == 303
        assert first.getheader("Location") == f"{root}/"
        cookie = first.getheader("Set-Cookie", "").split(";")[0]
        assert cookie.endswith(f"={token}")
        assert _get(port, f"{root}/", cookie).status == 200
        again = _get(port, f"{link.path}?{link.query}")
        assert again.status == 403
        warned = _read_until(main, re.compile(r"another program on this machine read it"))
        assert "abcd review: warning: the link opened in your browser was used a second time" in (
            warned
        )
        assert _get(port, f"/?open={'x' * 43}").status == 404  # a wrong code: nothing here
    finally:
        rest = _stop(proc, main)
    assert "abcd review: stopped" in rest


def test_at_a_terminal_it_prints_its_url_serves_it_and_stops_cleanly_on_ctrl_c(
    repo: Path, abcd: Run
) -> None:
    add_note(abcd, "Run the linter before pushing", "ruff check src tests", "lint")
    proc, main = _at_a_terminal(repo, "--no-browser")
    try:
        shown = _read_until(main, URL)
        found = URL.search(shown)
        assert found is not None, shown
        port, root, token = int(found[1]), found[2], found[3]
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", f"{root}/?token={token}")
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
    finally:
        rest = _stop(proc, main)
    assert "abcd review: stopped" in rest
    assert "Traceback" not in shown + rest


def test_a_link_no_browser_opened_is_spent_and_its_use_said_on_the_terminal(
    repo: Path, abcd: Run, tmp_path: Path
) -> None:
    """A browser command that fails had the link on its command line (`ps`) all the same: the
    code is spent, so whoever read it is refused, and the person is told, never let in unseen."""
    opened = tmp_path / "opened"
    browser = tmp_path / "browser"
    browser.write_text(f'#!/bin/sh\nprintf %s "$1" > {opened}\nexit 1\n')
    browser.chmod(0o755)
    env = {"BROWSER": str(browser), "DISPLAY": "", "WAYLAND_DISPLAY": ""}
    proc, main = _at_a_terminal(repo, env=env)
    try:
        shown = _read_until(main, re.compile(r"no browser could be opened"))
        assert "open the link yourself" in shown, shown
        link = urlsplit(opened.read_text())
        used = _get(int(link.port or 0), f"{link.path}?{link.query}")
        assert used.status == 403
        assert "Set-Cookie" not in used.headers
        warned = _read_until(main, re.compile(r"another program on this machine read it"))
        assert "abcd review: warning:" in warned
    finally:
        rest = _stop(proc, main)
    assert "abcd review: stopped" in rest


def test_a_browser_that_would_take_the_terminal_is_not_started_and_the_link_is_printed(
    repo: Path, abcd: Run, tmp_path: Path
) -> None:
    """With no display and TERM set (an ssh session), `webbrowser` starts lynx or w3m in the
    desk's own terminal, and the desk waited for it to end before it served: the page stayed
    "loading" until the person quit the browser. Such a browser is not started."""
    started = tmp_path / "started"
    browser = tmp_path / "lynx"
    browser.write_text(f'#!/bin/sh\nprintf %s "$1" > {started}\n')
    browser.chmod(0o755)
    env = {"BROWSER": str(browser), "DISPLAY": "", "WAYLAND_DISPLAY": "", "TERM": "xterm"}
    proc, main = _at_a_terminal(repo, env=env)
    try:
        shown = _read_until(main, re.compile(r"open the link yourself"))
        assert "the browser here runs in this terminal, which the desk holds" in shown, shown
        found = URL.search(shown)
        assert found is not None, shown
        port, root, token = int(found[1]), found[2], found[3]
        answer = _get(port, f"{root}/?token={token}")  # the printed link serves at once
        assert answer.status in (200, 303), answer.status
    finally:
        rest = _stop(proc, main)
    assert not started.exists()
    assert "abcd review: stopped" in rest


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM], ids=["hangup", "term"])
def test_a_closed_terminal_stops_the_desk_as_ctrl_c_does_finishing_the_act_under_way(
    repo: Path, abcd: Run, abcd_home: Path, signum: int
) -> None:
    """Closing the terminal (SIGHUP) or `kill` (SIGTERM) killed the desk at once, an act being
    answered with it; they stop it as Ctrl-C does: the act finishes, then the desk exits."""
    note = add_note(abcd, "Run the linter before pushing", "ruff check src tests", "lint")
    proc, main = _at_a_terminal(repo, "--no-browser")
    answered: list[int] = []
    try:
        found = URL.search(_read_until(main, URL))
        assert found is not None
        port, root, token = int(found[1]), found[2], found[3]
        with open(abcd_home / "journal" / ".lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # the act waits for the journal's lock

            def keep() -> None:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                form = f"token={token}&seen=0"
                conn.request(
                    "POST",
                    f"{root}/notes/{note}/keep",
                    body=form,
                    headers={
                        "Cookie": f"abcd_desk_{port}={token}",
                        "Content-Type": "application/x-www-form-urlencoded",
                    },
                )
                answered.append(conn.getresponse().status)
                conn.close()

            acting = threading.Thread(target=keep)
            acting.start()
            time.sleep(1.0)
            proc.send_signal(signum)
            time.sleep(0.5)
        acting.join(timeout=30)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(main)
    assert answered == [303]
    kept = abcd("journal", "audit", "--note", note)
    assert "note.reviewed" in kept.out

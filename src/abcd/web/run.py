"""Running the desk for `abcd review`: serve until Ctrl-C, and say where.

The command's caller has already checked that a person is at a terminal.
The URL (with the run's token) is printed there; the browser, unless
`--no-browser`, is handed a link with a one-time code instead, since a
browser's command line is readable by every account on the machine and the
terminal is not. Ctrl-C stops the server: no new request is taken, a
request being answered (an act appending to the journal) is waited for, up
to `DRAIN_SECONDS`, and the socket is closed. The terminal closed (SIGHUP)
and `kill` (SIGTERM) stop it the same way, never in the middle of an act.
"""

from __future__ import annotations

import os
import signal
import sys
import webbrowser
from typing import TextIO

from abcd.repo import find_repo
from abcd.web.guard import mint_root, mint_token
from abcd.web.pages import make_desk
from abcd.web.server import DeskServer

# How long Ctrl-C waits for the requests being answered: an act takes well under a second.
DRAIN_SECONDS = 10.0


def start(token: str | None = None) -> DeskServer:
    """The desk for the checkout of the working folder, bound and ready (not yet serving)."""
    token, root = token or mint_token(), mint_root()
    desk = make_desk(find_repo(), token, root)
    return DeskServer(desk.route, token, root=root)


class _Stopped(Exception):
    """The terminal closed (SIGHUP) or the desk was asked to end (SIGTERM)."""


def _stop(signum: int, frame: object) -> None:
    raise _Stopped


def _say(text: str, stream: TextIO) -> None:
    """A line on the terminal, if it is still there (after SIGHUP it is not)."""
    try:
        print(text, file=stream, flush=True)
    except OSError:
        pass


# Browsers that run in the terminal they are started from (`webbrowser` starts them when there
# is no display and TERM is set, or when BROWSER names one).
_TERMINAL_BROWSERS = frozenset(
    {"www-browser", "links", "links2", "elinks", "lynx", "w3m", "browsh"}
)


def _in_the_terminal() -> bool:
    """Whether the browser `webbrowser` would try first runs in this terminal: it would take the
    desk's own terminal, and the desk waits for it to end before it serves (the page stayed
    "loading" until the person quit it)."""
    try:
        browser = webbrowser.get()
    except webbrowser.Error:
        return False  # none: `webbrowser.open` says so
    command = str(getattr(browser, "name", "") or "").split()  # elinks has a class of its own
    return bool(command) and os.path.basename(command[0]) in _TERMINAL_BROWSERS


def serve(*, open_browser: bool) -> None:
    server = start()
    print(f"abcd review: the desk is at {server.url}", flush=True)
    print("abcd review: the link holds this run's token; Ctrl-C stops the desk", flush=True)
    # The browser gets a one-time link: its command line is readable by every account here.
    if open_browser and _in_the_terminal():
        print(
            "abcd review: the browser here runs in this terminal, which the desk holds; "
            "open the link yourself",
            file=sys.stderr,
        )
    elif open_browser and not webbrowser.open(server.opening_url()):
        # Each command tried had the link on its command line: the code is spent, not left live.
        server.opener.spend()
        print("abcd review: no browser could be opened; open the link yourself", file=sys.stderr)
    try:
        # By default these end the process at once, an act being answered with it.
        signal.signal(signal.SIGHUP, _stop)
        signal.signal(signal.SIGTERM, _stop)
        server.serve_forever()
    except (KeyboardInterrupt, _Stopped):
        pass
    finally:
        # A later signal must not cut short the wait for an act being answered.
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        finished = server.drain(DRAIN_SECONDS)
        server.server_close()
    if not finished:
        _say("abcd review: stopped while a request was still being answered", sys.stderr)
    _say("abcd review: stopped", sys.stdout)

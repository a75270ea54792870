"""The desk's HTTP edge: stdlib `ThreadingHTTPServer` on 127.0.0.1, every request guarded.

A request is answered only once `abcd.web.guard` passed it (Host, Origin,
token); a GET that brings the token in its URL is answered by a cookie and a
redirect to the same page without it, so the token leaves the address bar.
Every page lives under the run's own random folder (`root`), and the cookie
is scoped to it: browsers send a 127.0.0.1 cookie to every port of that
host, so another server on this machine that the browser visits would
otherwise be handed the token. Pages are rendered by `abcd.web.pages`;
changes are POSTs whose form carries the token, answered by a redirect (303)
to the page that shows what changed. Nothing is logged: a request line can
hold the token. A connection that sends nothing for `READ_SECONDS` is closed.
"""

from __future__ import annotations

import errno
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from urllib.parse import parse_qs, urlencode, urlsplit

from abcd.web.guard import (
    COOKIE,
    OPEN_FIELD,
    TOKEN_FIELD,
    Guard,
    Opener,
    cookie_value,
    mint_root,
    mint_token,
)

# The largest form a POST may send: a revised note is at most a few KiB (abcd.notes.limits).
FORM_MAX_BYTES = 256 * 1024
LOOPBACK = "127.0.0.1"
# How long a read on a connection may wait: a request that stalls is closed, never waited on.
READ_SECONDS = 10.0
# How long the server waits before it accepts again when it has no descriptor left: the
# connection waits in the backlog meanwhile, and the loop never spins.
ACCEPT_PAUSE_SECONDS = 0.1
# Served as they are, from the package; nothing else is a file the desk serves.
STATIC = {"desk.css": "text/css; charset=utf-8", "desk.js": "text/javascript; charset=utf-8"}
# No script, style, image, form target or frame but the desk's own.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    # `same-origin`: with `no-referrer` a browser sends `Origin: null` on the desk's own forms.
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


@dataclass
class Response:
    status: int
    body: bytes = b""
    content_type: str = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)


def redirect(location: str) -> Response:
    return Response(HTTPStatus.SEE_OTHER, headers={"Location": location})


def plain(status: int, text: str) -> Response:
    """A short answer in plain text: a status's reason, and nothing from the request."""
    return Response(status, f"{text}\n".encode(), "text/plain; charset=utf-8")


def refused(why: str) -> Response:
    """A refusal: the reason, as plain text, and nothing else."""
    return plain(HTTPStatus.FORBIDDEN, f"refused: {why}")


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    query: dict[str, str]
    form: dict[str, str]


# A page or an action: the request in, the response out.
Handler = Callable[[Request], Response]
Router = Callable[[Request], Response]


def _first(values: dict[str, list[str]]) -> dict[str, str]:
    return {key: items[0] for key, items in values.items() if items}


class _DeskHandler(BaseHTTPRequestHandler):
    server: DeskServer
    protocol_version = "HTTP/1.1"
    timeout = READ_SECONDS

    def version_string(self) -> str:
        return "abcd-review"

    def log_message(self, format: str, *args: object) -> None:
        """Nothing is logged: a request line can hold the token."""

    def do_GET(self) -> None:
        self._answer("GET")

    def do_POST(self) -> None:
        self._answer("POST")

    def do_HEAD(self) -> None:
        self.close_connection = True  # its body, if any, is not read
        self._send(Response(HTTPStatus.METHOD_NOT_ALLOWED, b"", headers={"Allow": "GET, POST"}))

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_HEAD

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The standard library's own refusals (a malformed request line, a method it does not
        know, headers too long) go out as the desk's: plain text, the security headers, no echo."""
        self.close_connection = True
        self._send(plain(code, HTTPStatus(code).phrase.lower()))

    def _answer(self, method: str) -> None:
        try:
            response = self._respond(method)
        except TimeoutError:
            # The client stopped sending in the middle of its request: the connection is closed.
            self.close_connection = True
            response = plain(HTTPStatus.REQUEST_TIMEOUT, "the request stopped arriving")
        except Exception:
            # A fault of the desk's own: the page says so, the terminal shows where.
            traceback.print_exc()
            self.close_connection = True
            response = plain(
                HTTPStatus.INTERNAL_SERVER_ERROR,
                "the desk failed on this request; see its terminal",
            )
        self._send(response)

    def _respond(self, method: str) -> Response:
        guard = self.server.guard
        if "Transfer-Encoding" in self.headers:
            # A chunked body is not read; the connection cannot be kept in step after it.
            self.close_connection = True
            return plain(HTTPStatus.LENGTH_REQUIRED, "a body must come with its Content-Length")
        why = guard.foreign(self.headers.items())
        if why is not None:
            self._drain()
            return refused(why)
        try:
            parts = urlsplit(self.path)
        except ValueError:  # `http://[x/`: not a URL at all
            self._drain()
            return plain(HTTPStatus.BAD_REQUEST, "not a URL")
        query = _first(parse_qs(parts.query, keep_blank_values=True))
        cookie = cookie_value(self.headers.get("Cookie"), self.server.cookie)
        path = self.server.within(parts.path)
        if path is None:
            if method == "GET" and parts.path == "/" and OPEN_FIELD in query:
                # The browser's link: its command line is readable by every account, so it
                # names neither the token nor the run's folder, only a code spent by its use.
                return self._opened(query[OPEN_FIELD])
            self._drain()
            return plain(HTTPStatus.NOT_FOUND, "not found: open the URL `abcd review` printed")
        if not guard.holds(cookie, query.get(TOKEN_FIELD)):
            self._drain()
            return refused("no token: open the URL `abcd review` printed")
        if method == "GET" and TOKEN_FIELD in query:
            return self._enter(path, query)
        form: dict[str, str] = {}
        if method == "POST":
            body = self._body()
            if body is None:
                return plain(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "form too large")
            try:  # the pages are UTF-8, so is every form a browser sends from them
                form = _first(
                    parse_qs(body.decode("utf-8"), keep_blank_values=True, errors="strict")
                )
            except UnicodeDecodeError:  # refused, never written with U+FFFD for what was meant
                return plain(HTTPStatus.BAD_REQUEST, "the form is not UTF-8 text")
            if not guard.may_change(form.get(TOKEN_FIELD)):
                return refused("a change must carry the desk's token in its form")
        if method == "GET" and path.startswith("/static/"):
            return _static(path.removeprefix("/static/"))
        with self.server.answering():
            response = self.server.route(Request(method, path, query, form))
        location = response.headers.get("Location", "")
        if location.startswith("/"):  # the pages name their paths below the run's folder
            response.headers["Location"] = self.server.root + location
        return response

    def _opened(self, code: str) -> Response:
        """The browser's one-time link: let in once; a second use is refused and said on the
        terminal (the cookie lives in the run's folder, so a browser that opens the link again
        from its history sends none that could tell it from another program)."""
        taken = self.server.opener.take(code)
        if taken == "taken":
            return self._enter("/", {})
        if taken == "spent":
            self.server.warn(
                "the link opened in your browser was used a second time; unless you opened it "
                "again yourself, another program on this machine read it: stop the desk (Ctrl-C)"
            )
            return refused("this link was used already: open the URL `abcd review` printed")
        return plain(HTTPStatus.NOT_FOUND, "not found: open the URL `abcd review` printed")

    def _enter(self, path: str, query: dict[str, str]) -> Response:
        """The token (or the link's one-time code) moves from the URL into a cookie, and the
        page is asked again without it."""
        rest = {key: value for key, value in query.items() if key not in (TOKEN_FIELD, OPEN_FIELD)}
        answer = redirect(self.server.root + path + (f"?{urlencode(rest)}" if rest else ""))
        answer.headers["Set-Cookie"] = (
            f"{self.server.cookie}={self.server.guard.token}; HttpOnly; SameSite=Strict; "
            f"Path={self.server.root}"
        )
        return answer

    def _length(self) -> int:
        try:
            return max(0, int(self.headers.get("Content-Length") or 0))
        except ValueError:
            return 0

    def _drain(self) -> None:
        """Read a refused request's body (when small), so the connection stays in step."""
        length = self._length()
        if length <= FORM_MAX_BYTES:
            self.rfile.read(length)
        else:
            self.close_connection = True

    def _body(self) -> bytes | None:
        length = self._length()
        if length > FORM_MAX_BYTES:
            self.close_connection = True
            return None
        return self.rfile.read(length)

    def _send(self, response: Response) -> None:
        self.send_response(response.status)
        headers = {**SECURITY_HEADERS, **response.headers}
        headers["Content-Type"] = response.content_type
        headers["Content-Length"] = str(len(response.body))
        for name, value in headers.items():
            self.send_header(name, value)
        try:
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(response.body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the browser went away (a tab closed): nothing to tell


def _static(name: str) -> Response:
    if name not in STATIC:
        return plain(HTTPStatus.NOT_FOUND, "not found")
    data = resources.files("abcd.web").joinpath("static", name).read_bytes()
    return Response(HTTPStatus.OK, data, STATIC[name])


class DeskServer(ThreadingHTTPServer):
    """The desk on 127.0.0.1 at a free port; `route` answers every guarded request."""

    # Threads that only wait for a browser's next request on a kept-alive connection must not
    # hold the process at Ctrl-C; a request being answered is waited for (`drain`).
    daemon_threads = True

    def __init__(
        self, route: Router, token: str | None = None, port: int = 0, root: str | None = None
    ) -> None:
        super().__init__((LOOPBACK, port), _DeskHandler)
        self.route = route
        # Every page's path starts here (`/d-...`, no trailing `/`), and so does the cookie's.
        self.root = root or mint_root()
        self._busy = 0
        self._idle = threading.Condition()
        self.guard = Guard(token or mint_token(), self.server_address[1])
        # One cookie per desk: cookies are kept per host, not per port.
        self.cookie = f"{COOKIE}_{self.guard.port}"
        self.opener = Opener()

    def within(self, path: str) -> str | None:
        """`path` below the run's folder (`/` for the folder itself), or None when outside it."""
        if path == self.root:
            return "/"
        if path.startswith(self.root + "/"):
            return path.removeprefix(self.root)
        return None

    @contextmanager
    def answering(self) -> Iterator[None]:
        """Count an act (a routed request) as being answered while the block runs."""
        with self._idle:
            self._busy += 1
        try:
            yield
        finally:
            with self._idle:
                self._busy -= 1
                self._idle.notify_all()

    def drain(self, seconds: float) -> bool:
        """Wait until no request is being answered (at most `seconds`); whether none is."""
        with self._idle:
            return self._idle.wait_for(lambda: self._busy == 0, timeout=seconds)

    @property
    def url(self) -> str:
        """The desk's address with the token: the one URL that opens it."""
        return f"http://{LOOPBACK}:{self.guard.port}{self.root}/?{TOKEN_FIELD}={self.guard.token}"

    def opening_url(self) -> str:
        """The address to hand a browser: a one-time code in place of the token (`Opener`), and
        outside the run's folder, which a command line would give away."""
        return f"http://{LOOPBACK}:{self.guard.port}/?{OPEN_FIELD}={self.opener.mint()}"

    def get_request(self) -> tuple[socket.socket, object]:
        """Accept a connection; with no descriptor left (connections held open, say by another
        account), pause first: the listening socket stays readable, and the loop would spin."""
        try:
            return super().get_request()
        except OSError as err:
            if err.errno in (errno.EMFILE, errno.ENFILE):
                time.sleep(ACCEPT_PAUSE_SECONDS)
            raise

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that went away (a reset, a read that timed out) is not the desk's fault: it
        is not printed, so no one can fill the person's terminal with it."""
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)  # type: ignore[arg-type]

    def warn(self, text: str) -> None:
        """A line for the person, on the terminal the desk was started at."""
        print(f"abcd review: warning: {text}", file=sys.stderr, flush=True)

    def start_in_thread(self) -> threading.Thread:
        """Serve from a daemon thread (tests, and the command's own loop); `shutdown` stops it."""
        thread = threading.Thread(target=self.serve_forever, name="abcd-review", daemon=True)
        thread.start()
        return thread

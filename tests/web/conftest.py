"""A desk served from a thread for each test, over a temp git checkout and a temp ABCD_HOME."""

from __future__ import annotations

import http.client
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import pytest

from abcd.web.run import start
from abcd.web.server import DeskServer
from tests.conftest import BY, Run


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: str


@dataclass
class Desk:
    server: DeskServer

    @property
    def port(self) -> int:
        return self.server.guard.port

    @property
    def token(self) -> str:
        return self.server.guard.token

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def root(self) -> str:
        return self.server.root

    def cookie(self) -> dict[str, str]:
        return {"Cookie": f"{self.server.cookie}={self.token}"}

    def request(
        self,
        method: str,
        path: str,
        *,
        headers: dict[str, str] | None = None,
        form: dict[str, str] | None = None,
        also: tuple[tuple[str, str], ...] = (),
        under_root: bool = True,
    ) -> Answer:
        """One real HTTP request for `path` below the run's folder (as it is, without
        `under_root`); `Host` is the desk's unless `headers` names another; `also` sends more
        headers after them, a second copy of one among them."""
        path = self.root + path if under_root else path
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        sent = {"Host": self.host, **(headers or {})}
        body = urlencode(form) if form is not None else None
        if body is not None:
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        # skip_host: the test names the Host header itself (http.client would add its own).
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for name, value in (*sent.items(), *also):
            conn.putheader(name, value)
        encoded = body.encode() if body is not None else b""
        conn.putheader("Content-Length", str(len(encoded)))
        conn.endheaders(encoded)
        response = conn.getresponse()
        answer = Answer(
            response.status,
            {k.lower(): v for k, v in response.getheaders()},
            response.read().decode("utf-8", "replace"),
        )
        conn.close()
        return answer

    def get(self, path: str, **headers: str) -> Answer:
        return self.request("GET", path, headers={**self.cookie(), **headers})


@pytest.fixture
def desk(repo: Path) -> Iterator[Desk]:
    server = start(secrets.token_urlsafe(32))
    server.start_in_thread()
    try:
        yield Desk(server)
    finally:
        server.shutdown()
        server.server_close()


def add_note(abcd: Run, title: str, body: str, *recall: str, session: str = "s-one") -> str:
    """An agent's note in the checkout; its id."""
    args = ["memory", "add", "--by", BY, "--session", session, "--title", title]
    for word in recall:
        args += ["--recall", word]
    done = abcd(*args, stdin=body)
    assert done.code == 0, done.err
    return done.out.strip().split()[-1]

"""Who may talk to the desk: a request from this machine's browser that holds the run's token.

The server listens on 127.0.0.1 only, and that is not enough: any web page
the person has open can make their browser send requests to 127.0.0.1, and a
hostile DNS name can be rebound to it. So every request must

- name the desk itself in `Host` (`127.0.0.1:PORT` or `localhost:PORT`), which
  a rebound name never does;
- carry no `Origin` (nor `Sec-Fetch-Site: cross-site`) but the desk's own;
- hold the token, minted for this run and printed only on the person's
  terminal: in the URL once (it is then kept in a cookie that no script can
  read, sent only to the run's own folder of paths, `mint_root`: a cookie
  for 127.0.0.1 would otherwise go to every port of it), and in every POST's
  form as the field `token`, so a change is never made by a cookie alone
  (CSRF).

Tokens are compared in constant time. A refusal says only why, never any data.
"""

from __future__ import annotations

import hmac
import secrets
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

# 32 random bytes: no guessing within a run's lifetime.
TOKEN_BYTES = 32
ROOT_BYTES = 16
COOKIE = "abcd_desk"
TOKEN_FIELD = "token"
OPEN_FIELD = "open"


def mint_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def mint_root() -> str:
    """The run's folder, under which every page and the cookie live: `/d-` and 16 random bytes.
    Not a credential (it is in every page's address), but a site cannot guess it, so it cannot
    send the browser to a path of its own server that would be handed the desk's cookie."""
    return "/d-" + secrets.token_urlsafe(ROOT_BYTES)


def same_token(given: str | None, token: str) -> bool:
    """Whether `given` is the token, compared in constant time."""
    if not given:
        return False
    return hmac.compare_digest(given.encode("utf-8", "replace"), token.encode())


@dataclass(frozen=True)
class Guard:
    """The run's token and the port the desk answers on."""

    token: str
    port: int

    @property
    def hosts(self) -> tuple[str, ...]:
        return (f"127.0.0.1:{self.port}", f"localhost:{self.port}")

    @property
    def origins(self) -> tuple[str, ...]:
        return tuple(f"http://{host}" for host in self.hosts)

    def foreign(self, headers: Iterable[tuple[str, str]]) -> str | None:
        """Why a request did not come from a page of this desk (None when it did).

        Header names are matched in any case, and every copy of a header is
        read: one `Host`, naming the desk; every `Origin` the desk's own.
        """
        named: dict[str, list[str]] = {}
        for name, value in headers:
            named.setdefault(name.lower(), []).append(value.strip().lower())
        if named.get("host", []) not in ([host] for host in self.hosts):
            return "the Host header does not name this desk"
        if any(origin not in self.origins for origin in named.get("origin", [])):
            return "the request came from another origin"
        if "cross-site" in named.get("sec-fetch-site", []):
            return "the request came from another site"
        return None

    def holds(self, cookie: str | None, query: str | None) -> bool:
        """Whether a read holds the token: in the cookie, or in the URL."""
        return same_token(cookie, self.token) or same_token(query, self.token)

    def may_change(self, field: str | None) -> bool:
        """Whether a change (a POST) carries the token in its form."""
        return same_token(field, self.token)


class Opener:
    """A one-time code for the link the desk hands the browser, in place of the token.

    Starting a browser puts its link on a command line, which every account on
    the machine can read (`ps`); the terminal the token is printed on is the
    person's alone. So the link opened for them carries this code: its first
    use is let in (as the token would be, then a cookie), and it is spent by
    that use. A second use is refused and reported, since it means another
    program read the link.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._code: str | None = None
        self._spent = False

    def mint(self) -> str:
        with self._lock:
            self._code, self._spent = mint_token(), False
            return self._code

    def spend(self) -> None:
        """Spend the code unused: a browser command that failed had it on its command line all
        the same, so its use is refused and said, as a second use is."""
        with self._lock:
            self._spent = True

    def take(self, given: str) -> Literal["taken", "spent", "wrong"]:
        """Whether `given` is the code, unspent (and now spent), the code already spent, or not it."""
        with self._lock:
            if self._code is None or not same_token(given, self._code):
                return "wrong"
            if self._spent:
                return "spent"
            self._spent = True
            return "taken"


def cookie_value(header: str | None, name: str) -> str | None:
    """The cookie `name` from a `Cookie` header, or None."""
    if not header:
        return None
    for part in header.split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value
    return None

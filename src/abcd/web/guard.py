"""Who may talk to the desk: a request from this machine's browser that holds the run's token.

The server listens on 127.0.0.1 only, and that is not enough: any web page
the person has open can make their browser send requests to 127.0.0.1, and a
hostile DNS name can be rebound to it. So every request must

- name the desk itself in `Host` (`127.0.0.1:PORT` or `localhost:PORT`), which
  a rebound name never does;
- carry no `Origin` (nor `Sec-Fetch-Site: cross-site`) but the desk's own;
- hold the token, minted for this run and printed only on the person's
  terminal: in the URL once (it is then kept in a cookie that no script and no
  other site can read), and in every POST's form as the field `token`, so a
  change is never made by a cookie alone (CSRF).

Tokens are compared in constant time. A refusal says only why, never any data.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass

# 32 random bytes: no guessing within a run's lifetime.
TOKEN_BYTES = 32
COOKIE = "abcd_desk"
TOKEN_FIELD = "token"


def mint_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


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


def cookie_value(header: str | None, name: str) -> str | None:
    """The cookie `name` from a `Cookie` header, or None."""
    if not header:
        return None
    for part in header.split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value
    return None

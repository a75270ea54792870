"""The desk answers only its own pages holding the run's token: real HTTP against a served desk."""

from __future__ import annotations

import json
import socket
import time

import pytest

from abcd.web import server as desk_server
from tests.conftest import Run
from tests.web.conftest import Desk, add_note


def _events(abcd: Run) -> list[dict[str, object]]:
    done = abcd("journal", "audit", "--json")
    assert done.code == 0, done.err
    rows: list[dict[str, object]] = json.loads(done.out)["events"]
    return rows


def test_a_request_without_the_token_is_refused_and_shows_no_data(desk: Desk, abcd: Run) -> None:
    add_note(abcd, "The deploy key lives in the vault", "Ask ops for it.", "deploy")
    for path in ("/", "/journal", "/static/desk.css"):
        answer = desk.request("GET", path)
        assert answer.status == 403
        assert "vault" not in answer.body
        assert answer.body.startswith("refused: no token")


def test_a_wrong_token_is_refused_in_the_url_and_in_the_cookie(desk: Desk) -> None:
    assert desk.request("GET", "/?token=not-the-token").status == 403
    wrong = {"Cookie": f"{desk.server.cookie}=not-the-token"}
    assert desk.request("GET", "/", headers=wrong).status == 403


def test_the_token_in_the_url_becomes_a_cookie_and_leaves_the_address(desk: Desk) -> None:
    answer = desk.request("GET", f"/journal?seq=0&token={desk.token}")
    assert answer.status == 303
    assert answer.headers["location"] == f"{desk.root}/journal?seq=0"
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith(f"{desk.server.cookie}={desk.token};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    # Sent back only below the run's folder: never to another server on 127.0.0.1.
    assert cookie.endswith(f"; Path={desk.root}")
    assert desk.get("/journal?seq=0").status == 200


def test_a_request_naming_another_host_is_refused_even_with_the_token(desk: Desk) -> None:
    # A DNS name rebound to 127.0.0.1 still names itself in Host.
    for host in ("attacker.example", f"attacker.example:{desk.port}", "127.0.0.1:1", ""):
        answer = desk.get("/", Host=host)
        assert answer.status == 403
        assert "Host" in answer.body
    assert desk.get("/", Host=f"localhost:{desk.port}").status == 200
    twice = desk.request("GET", "/", headers=desk.cookie(), also=(("Host", "attacker.example"),))
    assert twice.status == 403


def test_a_cross_origin_post_is_refused_and_writes_nothing(desk: Desk, abcd: Run) -> None:
    note = add_note(abcd, "Use the staging bucket", "Never the prod one.", "bucket")
    form = {"token": desk.token, "confirm": "yes"}
    for origin in ("https://attacker.example", f"http://127.0.0.1:{desk.port + 1}", "null"):
        answer = desk.request(
            "POST", f"/notes/{note}/remove", headers={**desk.cookie(), "Origin": origin}, form=form
        )
        assert answer.status == 403
        assert "origin" in answer.body
    lower = {**desk.cookie(), "origin": "https://attacker.example"}  # a header's name, any case
    assert desk.request("POST", f"/notes/{note}/remove", headers=lower, form=form).status == 403
    own_then_foreign = {**desk.cookie(), "Origin": f"http://{desk.host}"}
    answer = desk.request(
        "POST",
        f"/notes/{note}/remove",
        headers=own_then_foreign,
        form=form,
        also=(("Origin", "https://attacker.example"),),
    )
    assert answer.status == 403
    site = {**desk.cookie(), "Sec-Fetch-Site": "cross-site"}
    assert desk.request("POST", f"/notes/{note}/remove", headers=site, form=form).status == 403
    assert [row["type"] for row in _events(abcd)] == ["note.added"]


def test_a_post_without_the_form_token_is_refused_though_the_cookie_holds_it(
    desk: Desk, abcd: Run
) -> None:
    note = add_note(abcd, "Use the staging bucket", "Never the prod one.", "bucket")
    own = {**desk.cookie(), "Origin": f"http://{desk.host}"}
    for form in ({"confirm": "yes"}, {"confirm": "yes", "token": "not-the-token"}):
        answer = desk.request("POST", f"/notes/{note}/remove", headers=own, form=form)
        assert answer.status == 403
        assert "form" in answer.body
    assert [row["type"] for row in _events(abcd)] == ["note.added"]


def test_a_post_from_the_desk_with_its_token_acts_and_redirects(desk: Desk, abcd: Run) -> None:
    note = add_note(abcd, "Use the staging bucket", "Never the prod one.", "bucket")
    own = {**desk.cookie(), "Origin": f"http://{desk.host}"}
    answer = desk.request(
        "POST",
        f"/notes/{note}/remove",
        headers=own,
        form={"token": desk.token, "confirm": "yes", "seen": "0"},
    )
    assert answer.status == 303
    assert answer.headers["location"] == f"{desk.root}/?done=removed"
    assert [row["type"] for row in _events(abcd)] == ["note.added", "note.removed"]


def test_every_page_forbids_foreign_scripts_frames_and_form_targets(desk: Desk) -> None:
    answer = desk.get("/")
    policy = answer.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "form-action 'self'" in policy
    assert "frame-ancestors 'none'" in policy
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["cache-control"] == "no-store"


def test_everything_a_note_says_is_escaped_on_every_page(desk: Desk, abcd: Run) -> None:
    note = add_note(
        abcd, "<script>alert(1)</script> title", 'Body <img src=x onerror="alert(2)">', "xss"
    )
    for path in ("/", f"/notes/{note}", "/journal", f"/notes/{note}/remove"):
        page = desk.get(path).body
        assert "<script>alert" not in page and "<img src=x" not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt; title" in page


def test_other_methods_and_unknown_pages_are_answered_without_data(desk: Desk) -> None:
    assert desk.request("PUT", "/", headers=desk.cookie()).status == 405
    assert desk.get("/notes/mem-0/nothing").status == 404
    assert desk.get("/static/../pages.py").status == 404


def test_nothing_outside_the_runs_folder_is_served_even_with_the_token(desk: Desk) -> None:
    """The cookie is scoped to the run's folder: a browser hands it to no other server on
    127.0.0.1 (cookies are kept per host, not per port), and the desk answers nothing
    outside that folder."""
    assert desk.root.startswith("/d-") and len(desk.root) > 20
    for path in ("/", "/journal", f"/?token={desk.token}", "/static/desk.css", "/d-"):
        answer = desk.request("GET", path, headers=desk.cookie(), under_root=False)
        assert answer.status == 404, path
        assert "set-cookie" not in answer.headers
    # A redirect's target always stays below the folder, whatever the path asked.
    for path in ("//evil.example/x", "/\\evil.example", "/notes"):
        answer = desk.request("GET", f"{path}?token={desk.token}")
        assert answer.status == 303
        assert answer.headers["location"].startswith(desk.root + "/"), path


def test_a_request_line_that_is_not_a_url_is_answered_400_without_a_traceback(
    desk: Desk, capfd: pytest.CaptureFixture[str]
) -> None:
    answer = desk.request("GET", "http://[x/", under_root=False)
    assert answer.status == 400
    assert "Traceback" not in capfd.readouterr().err


def _raw(desk: Desk, request: bytes) -> bytes:
    """One request sent as bytes; everything the desk sent back until it closed."""
    with socket.create_connection(("127.0.0.1", desk.port), timeout=30) as conn:
        conn.sendall(request)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    return answer


def test_the_servers_own_refusals_carry_the_desks_headers_and_echo_nothing(desk: Desk) -> None:
    host = desk.host.encode()
    for request in (
        b"FROB /<script> HTTP/1.1\r\nHost: " + host + b"\r\n\r\n",  # 501: an unknown method
        b"GET /" + b"x" * 70000 + b" HTTP/1.1\r\nHost: " + host + b"\r\n\r\n",  # 414
    ):
        head, _, body = _raw(desk, request).partition(b"\r\n\r\n")
        assert head.split(b" ")[1] in (b"501", b"414"), head
        assert b"Content-Security-Policy: default-src 'none'" in head
        assert b"X-Content-Type-Options: nosniff" in head
        assert b"FROB" not in body and b"script" not in body and b"<" not in body


def test_a_chunked_body_is_refused_and_never_read_as_the_next_request(desk: Desk) -> None:
    smuggled = b"GET / HTTP/1.1\r\nHost: " + desk.host.encode() + b"\r\n\r\n"
    request = (
        (
            f"POST {desk.root}/notes/mem-0000000000000000/keep HTTP/1.1\r\nHost: {desk.host}\r\n"
            "Transfer-Encoding: chunked\r\n\r\n"
        ).encode()
        + f"{len(smuggled):x}\r\n".encode()
        + smuggled
        + b"\r\n0\r\n\r\n"
    )
    answer = _raw(desk, request)
    assert answer.startswith(b"HTTP/1.1 411 ")
    assert answer.count(b"HTTP/1.1 ") == 1  # the connection closed: nothing else was read


def test_a_request_that_stops_arriving_is_closed_and_never_held_at_stop(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(desk_server._DeskHandler, "timeout", 0.5)
    with socket.create_connection(("127.0.0.1", desk.port), timeout=30) as conn:
        conn.sendall(
            f"POST {desk.root}/ HTTP/1.1\r\nHost: {desk.host}\r\nContent-Length: 100\r\n\r\n".encode()
        )
        # Stopped while the body never comes: nothing counts as an act being answered.
        assert desk.server.drain(0)
        started = time.monotonic()
        assert conn.recv(65536).startswith(b"HTTP/1.1 408 ")
        assert time.monotonic() - started < 20


def test_a_client_that_resets_its_connection_prints_nothing_on_the_terminal(
    desk: Desk, capfd: pytest.CaptureFixture[str]
) -> None:
    """Each reset printed a 28-line traceback: any program here could fill the terminal, and
    scroll the desk's own warning away."""
    import struct

    for _ in range(3):
        conn = socket.create_connection(("127.0.0.1", desk.port), timeout=30)
        conn.sendall(b"GET /d-")  # a request line never ended
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        conn.close()  # a reset, not a close
    time.sleep(0.5)
    assert desk.request("GET", "/", headers=desk.cookie()).status == 200  # still serving
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.parametrize(
    "title", [b"caf\xe9 au lait", b"caf%E9 au lait"], ids=["raw byte", "percent-encoded"]
)
def test_a_form_that_is_not_utf8_is_refused_and_writes_nothing(
    desk: Desk, abcd: Run, title: bytes
) -> None:
    """The desk's pages are UTF-8 and a browser sends their forms so; other bytes are refused
    (as the commands refuse them), never written with U+FFFD in place of what was meant."""
    note = add_note(abcd, "Coffee breaks are at ten", "Ten sharp.", "coffee")
    before = _events(abcd)
    body = b"token=" + desk.token.encode() + b"&seen=0&title=" + title + b"&body=x&recall=coffee"
    head = (
        f"POST {desk.root}/notes/{note}/revise HTTP/1.1\r\nHost: {desk.host}\r\n"
        f"Cookie: {desk.server.cookie}={desk.token}\r\nConnection: close\r\n"
        f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    answer = _raw(desk, head.encode() + body)
    assert answer.startswith(b"HTTP/1.1 400 "), answer[:200]
    assert answer.endswith(b"the form is not UTF-8 text\n")
    assert _events(abcd) == before

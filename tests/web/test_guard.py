"""The desk answers only its own pages holding the run's token: real HTTP against a served desk."""

from __future__ import annotations

import json

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
    assert answer.headers["location"] == "/journal?seq=0"
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith(f"{desk.server.cookie}={desk.token};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
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
        "POST", f"/notes/{note}/remove", headers=own, form={"token": desk.token, "confirm": "yes"}
    )
    assert answer.status == 303
    assert answer.headers["location"] == "/?done=removed"
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

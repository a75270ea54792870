"""The desk in a real browser: Debian's chromium, headless, driven by Playwright.

A person's walk through it, on a temp git checkout: the queue (with two
near-duplicates side by side and the most-sent note first), a note's page, a
revise, a keep and a promote, the journal's timeline and its replay. After
each act the journal says what happened (`abcd journal audit --json`). A
screenshot of each page is taken on every run; with `ABCD_SCREENSHOTS=1` they
go into docs/review/, which docs/review.md shows (ids and times differ on each
run, so an ordinary test run leaves the committed pictures alone).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from abcd.web.run import start
from abcd.web.server import DeskServer
from tests.conftest import Run, git
from tests.web.conftest import add_note

CHROMIUM = "/usr/bin/chromium"
DOCS_SHOTS = Path(__file__).resolve().parents[2] / "docs" / "review"
SESSION = "7d3c9a1e-5b2f-4e8a-9c61-0f2d4b6a8e13"

pytest.importorskip(
    "playwright.sync_api", reason="playwright not installed (pip install -e '.[dev]')"
)
if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
    pytest.skip(f"chromium not found at {CHROMIUM}", allow_module_level=True)

from playwright.sync_api import Browser, Page, expect, sync_playwright  # noqa: E402


@pytest.fixture
def browser() -> Iterator[Browser]:
    with sync_playwright() as driver:
        launched = driver.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox"], headless=True
        )
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    """Where the screenshots go: docs/review/ when asked for, else the test's own folder."""
    return DOCS_SHOTS if os.environ.get("ABCD_SCREENSHOTS") == "1" else tmp_path / "shots"


@pytest.fixture
def served(repo: Path) -> Iterator[DeskServer]:
    server = start()
    server.start_in_thread()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def events(abcd: Run) -> list[dict[str, Any]]:
    done = abcd("journal", "audit", "--json")
    assert done.code == 0, done.err
    rows: list[dict[str, Any]] = json.loads(done.out)["events"]
    return rows


def prompt(abcd: Run, repo: Path, text: str) -> None:
    """One prompt through the real hook, as the host sends it: what it recalls is a send."""
    payload = {"session_id": SESSION, "cwd": str(repo), "prompt": text}
    payload["hook_event_name"] = "UserPromptSubmit"
    done = abcd("hook", "prompt-router", stdin=json.dumps(payload))
    assert done.code == 0, done.err


def shot(page: Page, folder: Path, name: str) -> None:
    folder.mkdir(exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)
    assert (folder / f"{name}.png").stat().st_size > 0


def test_a_person_walks_the_queue_revises_keeps_and_promotes(
    repo: Path, abcd: Run, browser: Browser, served: DeskServer, shots: Path
) -> None:
    flaky = add_note(
        abcd,
        "The integration tests need the local database",
        "Start it with `docker compose up db` before running pytest -m integration.",
        "integration tests",
        "database",
        session=SESSION,
    )
    twin = add_note(
        abcd,
        "Integration tests need the local database running",
        "Start the local database with `docker compose up db` before pytest -m integration.",
        "integration tests",
        "database",
        session=SESSION,
    )
    release = add_note(
        abcd,
        "Releases are cut from main by the release script",
        "Run tools/release with the version; it tags and pushes. Never tag by hand.",
        "release",
        "tag",
        session=SESSION,
    )
    for _ in range(2):
        prompt(abcd, repo, "how do I cut a release and tag it")
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    root = served.root  # every page's path starts with the run's folder

    # The queue: the release note was sent most, so it comes first; the twins side by side.
    page.goto(served.url)
    assert "token=" not in page.url  # the token left the address for a cookie
    expect(page.locator("h1")).to_contain_text("3 unreviewed")
    queued = page.locator("section.queued article.card h3")
    expect(queued.first).to_have_text("Releases are cut from main by the release script")
    pair = page.locator(".duplicates .pair").first
    expect(pair.locator("article.card")).to_have_count(2)
    expect(pair).to_contain_text("The integration tests need the local database")
    expect(pair).to_contain_text("Integration tests need the local database running")
    expect(pair.locator(f"a[href='{root}/notes/{twin}']")).to_have_count(1)
    shot(page, shots, "queue")

    # A note's page: its text, stamps, history and sends.
    page.click(f"section.queued a[href='{root}/notes/{release}']")
    expect(page.locator("h1")).to_have_text("Releases are cut from main by the release script")
    expect(page.locator("section.sent tbody tr")).to_have_count(1)  # a note is sent once a session
    expect(page.locator(".timeline .event")).to_have_count(1)
    shot(page, shots, "note-sent")

    # Revise: the note keeps its id; both texts are in its history.
    page.goto(served.url.split("?")[0] + f"notes/{flaky}")
    page.fill("form.revise input[name=title]", "Integration tests need the database container")
    page.fill(
        "form.revise textarea[name=body]",
        "Run `docker compose up -d db` first; pytest -m integration reads DATABASE_URL.",
    )
    page.click("form.revise button[type=submit]")
    expect(page.locator(".done")).to_contain_text("Revised")
    expect(page.locator("h1")).to_have_text("Integration tests need the database container")
    expect(page.locator(".timeline .event")).to_have_count(2)
    expect(page.locator(".timeline")).to_contain_text(
        "The integration tests need the local database"
    )
    last = events(abcd)[-1]
    assert (last["type"], last["note"], last["by"]) == ("note.revised", flaky, "person")
    shot(page, shots, "note")

    # Keep: a person's review, as of the revision just read.
    page.click("form[action$='/keep'] button")
    expect(page.locator(".done")).to_contain_text("Kept")
    expect(page.locator(".status .badge.kept")).to_be_visible()
    last = events(abcd)[-1]
    assert (last["type"], last["note"], last["by"]) == ("note.reviewed", flaky, "person")

    # Promote: asked on a page of its own, then written into the checkout, never committed.
    page.click("form[action$='/promote'] button")
    expect(page.locator("h1")).to_have_text("Promote this note?")
    shot(page, shots, "promote")
    page.check("input[name=confirm]")
    page.click("form.confirm button[type=submit]")
    expect(page.locator(".done")).to_contain_text("Promoted")
    last = events(abcd)[-1]
    assert (last["type"], last["note"], last["by"]) == ("note.promoted", flaky, "person")
    project = json.loads((repo / ".abcd" / "memory.json").read_text())
    assert [n["title"] for n in project["notes"]] == [
        "Integration tests need the database container"
    ]
    assert git(repo, "rev-list", "--count", "HEAD") == "1"  # the desk never commits
    assert ".abcd/" in git(repo, "status", "--porcelain")

    # The queue now: the kept note is gone from it; its twin stays.
    page.click(f"header nav a[href='{root}/']")
    expect(page.locator("h1")).to_contain_text("2 unreviewed")
    expect(page.locator(f"section.queued a[href='{root}/notes/{flaky}']")).to_have_count(0)

    # Every note of both layers, searched: the promoted note is now in the project file too.
    page.click(f"header nav a[href='{root}/notes']")
    page.fill("input[name=search]", "integration")
    page.click("form.search button[type=submit]")
    expect(page.locator("section.found article.card")).to_have_count(3)
    expect(page.locator("section.found .badge.project")).to_have_count(1)
    expect(page.locator("section.found .badge.promoted")).to_have_count(1)  # the personal one
    shot(page, shots, "notes")

    # The journal: every event; the view as of seq 3 is before any review.
    page.click(f"header nav a[href='{root}/journal']")
    expect(page.locator("section.events tbody tr")).to_have_count(6)
    shot(page, shots, "journal")
    page.goto(served.url.split("?")[0] + "journal?seq=3")
    expect(page.locator("section.as-of h2")).to_contain_text("after seq 3")
    expect(page.locator("section.events tr.after")).to_have_count(3)
    expect(page.locator("ul.view")).to_contain_text("The integration tests need the local database")
    page.select_option("select[name=by]", "person")
    page.click("form.replay button[type=submit]")
    expect(page.locator("section.events tbody tr")).to_have_count(3)
    # Only the person's acts: no agent's add.
    expect(page.locator("section.events")).not_to_contain_text("the local database running")
    shot(page, shots, "journal-replay")

    # One session: every item the hook sent it, from its ledger.
    page.goto(served.url.split("?")[0] + f"journal?session={SESSION}")
    sent = page.locator("section.session-sent tbody tr")
    expect(sent).to_have_count(1)
    expect(sent.locator(f"a[href='{root}/notes/{release}']")).to_have_count(1)
    shot(page, shots, "journal-session")


def test_the_pages_work_without_javascript_and_the_slider_replays_with_it(
    repo: Path, abcd: Run, browser: Browser, served: DeskServer
) -> None:
    first = add_note(abcd, "Lint with ruff", "ruff check src tests", "lint")
    add_note(abcd, "Type-check with mypy", "mypy --strict", "types")
    root = served.root
    plain = browser.new_context(java_script_enabled=False).new_page()
    plain.goto(served.url)
    plain.click(f"a[href='{root}/notes/{first}']")
    plain.click("form[action$='/keep'] button")
    expect(plain.locator(".done")).to_contain_text("Kept")
    assert events(abcd)[-1]["type"] == "note.reviewed"

    live = browser.new_page()
    live.goto(served.url.split("?")[0] + f"journal?token={served.guard.token}")
    slider = live.locator("#seq-slider")
    slider.fill("1")  # a range input takes its value; the script submits the form on change
    live.wait_for_url("**/journal?seq=1*")
    expect(live.locator("section.as-of h2")).to_contain_text("after seq 1")
    expect(live.locator("ul.view li")).to_have_count(1)


def test_a_person_removes_a_note_finds_it_in_the_journal_and_restores_it(
    repo: Path, abcd: Run, browser: Browser, served: DeskServer, shots: Path
) -> None:
    note = add_note(
        abcd,
        "Releases are cut from main by the release script",
        "Run tools/release with the version; it tags and pushes. Never tag by hand.",
        "release",
        "tag",
        session=SESSION,
    )
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    root = served.root
    page.goto(served.url)
    page.goto(served.url.split("?")[0] + f"notes/{note}")
    page.click("form[action$='/remove'] button")
    page.check("input[name=confirm]")
    page.click("form.confirm button[type=submit]")
    expect(page.locator(".done")).to_contain_text("Removed")

    # The journal names the removal and links the note's page, which offers the way back.
    page.click(f"header nav a[href='{root}/journal']")
    removal = page.locator("section.events tbody tr", has_text="note.removed")
    removal.locator(f"a[href='{root}/notes/{note}']").click()
    expect(page.locator(".status .badge.removed")).to_be_visible()
    page.click("form[action$='/restore'] button")
    expect(page.locator("h1")).to_have_text("Restore this note?")
    expect(page.locator("form.confirm")).to_contain_text("as it stood when it was removed (seq 2)")
    shot(page, shots, "restore")
    page.check("input[name=confirm]")
    page.click("form.confirm button[type=submit]")
    expect(page.locator(".done")).to_contain_text("Restored")
    expect(page.locator(".status .badge.removed")).to_have_count(0)
    expect(page.locator("form[action$='/keep'] button")).to_be_visible()
    last = events(abcd)[-1]
    assert (last["type"], last["note"], last["by"]) == ("note.restored", note, "person")
    listed = json.loads(abcd("memory", "list", "--json").out)["notes"]
    assert [n["id"] for n in listed] == [note]


def test_an_unchanged_save_in_a_browser_revises_nothing_and_an_edit_keeps_the_line_ends(
    repo: Path, abcd: Run, browser: Browser, served: DeskServer
) -> None:
    """A browser sends a textarea's line breaks as CRLF and a NUL as U+FFFD (HTML's parsing and
    form submission): an unchanged save of any note of more than one line was a revision, and
    every save through the desk left the body's lines ending in CRLF."""
    body = "Start the database first.\nThen run pytest -m integration.\rOld log line.\x00"
    note = add_note(abcd, "Integration tests need the database", body, "integration")
    page = browser.new_page()
    page.goto(served.url)
    page.goto(f"{served.url.split('?')[0].rstrip('/')}/notes/{note}")
    page.click("form.revise button[type=submit]")
    expect(page.locator(".problem")).to_contain_text("already has this title, body")
    assert [row["type"] for row in events(abcd)] == ["note.added"]
    page.fill("form.revise input[name=title]", "Integration tests need the database container")
    page.click("form.revise button[type=submit]")
    expect(page.locator("h1")).to_have_text("Integration tests need the database container")
    assert [row["type"] for row in events(abcd)] == ["note.added", "note.revised"]
    shown = json.loads(abcd("memory", "show", note, "--json").out)["note"]
    assert shown["body"] == body  # the text the person did not touch, as it was


def test_a_title_of_one_long_word_pushes_no_stamp_out_of_sight(
    repo: Path, abcd: Run, browser: Browser, served: DeskServer
) -> None:
    """A title of 120 letters without a space widened the journal's table until its `by` and
    `session` columns lay past the panel's edge, for every row, and the history's title past the
    page's: who wrote what was out of sight. Every such text wraps where it must."""
    note = add_note(abcd, "W" * 120, "A body.", "wide")
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    page.goto(served.url)
    page.goto(served.url.split("?")[0] + "journal")
    panel = page.locator("section.events").bounding_box()
    author = page.locator("section.events tbody tr td:nth-child(5)").first.bounding_box()
    assert panel is not None and author is not None
    assert author["x"] + author["width"] <= panel["x"] + panel["width"]
    page.goto(served.url.split("?")[0] + f"notes/{note}")
    assert page.evaluate("document.documentElement.scrollWidth") <= 1200

"""The desk's core as the web page calls it: the queue (most-sent first, near-duplicates
flagged), a session's sends, and a revision the recall index has not caught up with."""

from __future__ import annotations

import json
from pathlib import Path

from abcd.journal import store
from abcd.journal.events import NoteRevised
from abcd.notes import desk
from abcd.repo import find_repo
from tests.conftest import BY, Run
from tests.hook.conftest import Host
from tests.review.test_desk_cli import keep


def test_the_queue_puts_the_most_sent_first_and_flags_near_duplicates(
    abcd: Run, repo: Path, host: Host
) -> None:
    quiet = host.note("Deploys go out on Tuesdays", "Tuesday mornings only.", "deploy")
    sent = host.note("The tests need the race flag", "Run go test -race first.", "race")
    twin = host.note("The tests need the race flag set", "Run go test -race first.", "race")
    for session in ("s1", "s2"):
        host.start(session)
        host.prompt("the race flag", session=session)
    queue = desk.queue(find_repo(repo))
    assert [q.note.id for q in queue][-1] == quiet
    by_id = {q.note.id: q for q in queue}
    assert by_id[sent].sends == 2 and by_id[quiet].sends == 0
    assert by_id[sent].twins == (twin,) and by_id[twin].twins == (sent,)
    assert by_id[quiet].twins == ()
    assert keep(sent, repo)[0] == 0
    assert sent not in {q.note.id for q in desk.queue(find_repo(repo))}


def test_notes_titled_alike_and_told_in_other_words_are_flagged_as_near_duplicates(
    abcd: Run, repo: Path, host: Host
) -> None:
    """A reviewer's walk: the same lesson learned twice, titled alike, shared too few of all
    their words (0.31, 0.32) to be flagged; their titles' content stems are the same."""
    ci = host.note("Use npm ci in CI", "CI installs with npm ci, never npm install.", "npm")
    again = host.note("CI uses npm ci", "The pipeline runs npm ci so the lockfile wins.", "ci")
    make = host.note("Run the tests with make test", "make test starts the database.", "test")
    retold = host.note("Run the tests with make test", "Use make test; not pytest alone.", "make")
    lint = host.note("Run the linters with make lint", "make lint runs ruff and mypy.", "lint")
    by_id = {q.note.id: q for q in desk.queue(find_repo(repo))}
    assert by_id[ci].twins == (again,) and by_id[again].twins == (ci,)
    assert by_id[make].twins == (retold,) and by_id[retold].twins == (make,)
    assert by_id[lint].twins == ()  # "run" and "make" alone do not make two notes one
    tests = host.note("Tests", "pytest runs them.", "pytest")
    testing = host.note("Testing", "jest runs them in the web app.", "jest")
    by_id = {q.note.id: q for q in desk.queue(find_repo(repo))}
    assert by_id[tests].twins == by_id[testing].twins == ()  # one word says too little


def test_a_sessions_sends_list_every_item_it_was_sent(abcd: Run, repo: Path, host: Host) -> None:
    race = host.note("The tests need the race flag", "Run go test -race first.", "race")
    deploy = host.note("Deploys go out on Tuesdays", "Tuesday mornings only.", "deploy")
    host.start("s1")
    host.prompt("the race flag", session="s1")
    host.prompt("when does the deploy go out", session="s1")
    assert [s.key for s in desk.session_sends("s1")] == [race, deploy]
    assert desk.session_sends("never-seen") == ()


def test_an_act_on_a_revision_nobody_read_is_refused(abcd: Run, repo: Path, host: Host) -> None:
    note_id = host.note("The tests need the race flag", "Run go test -race first.", "race")
    assert abcd("memory", "revise", note_id, "--by", BY, stdin="Run it with -race.").code == 0
    refused = None
    try:
        desk.keep(note_id, seen=0, cwd=repo)
    except Exception as err:
        refused = str(err)
    assert refused is not None and "revised since you read it" in refused
    assert desk.keep(note_id, seen=1, cwd=repo).reviewed_by == "person"


def test_a_revision_past_the_index_is_recalled_by_its_new_text(
    abcd: Run, repo: Path, host: Host, abcd_home: Path
) -> None:
    note_id = host.note("The tests need the race flag", "Run go test -race first.", "race")
    host.start("s1")  # the session start writes the index
    revision = NoteRevised(
        id=note_id, title="Flaky tests rerun alone", body="Rerun a flaky test alone.",
        recall=("flaky",), revised_by="person", session=None,
    )  # fmt: skip
    store.append(lambda _view: [revision])  # an append: the view and the index trail it
    (held,) = json.loads((abcd_home / "memory.json").read_text())["notes"]
    assert held["title"] == "The tests need the race flag" and "revision" not in held
    assert (abcd_home / "memory.idx").is_file()
    out, _ = host.plain("why is this test so flaky", session="s1")
    assert f"{note_id} (personal note, agent-written): Flaky tests rerun alone" in out
    old, _ = host.plain("the race flag", session="s1")
    assert note_id not in old

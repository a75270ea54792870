"""The reviewer's desk through the real command: show, revise, keep, promote, the list's
filters and the add that finds its twin; each act through the fold, replay, audit and verify."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from abcd.notes import desk
from abcd.repo import find_repo
from tests.conftest import BY, Run, git
from tests.gate.test_gate_cli import private_names
from tests.hook.conftest import Host
from tests.host.helpers import with_used


def add(abcd: Run, title: str = "The tests need the race flag", *extra: str, **kw: Any) -> str:
    body = kw.get("body", "Run go test -race first.")
    recall = kw.get("recall", ("test", "race"))
    args = ["memory", "add", "--title", title, "--by", kw.get("by", BY), *extra]
    if kw.get("everywhere"):
        args.append("--everywhere")
    for word in recall:
        args += ["--recall", word]
    result = abcd(*args, stdin=body)
    assert result.code == 0, result.err
    return result.out.strip()


def show(abcd: Run, note_id: str) -> dict[str, Any]:
    result = abcd("memory", "show", note_id, "--json")
    assert result.code == 0, result.err
    story: dict[str, Any] = json.loads(result.out)
    return story


def audit(abcd: Run) -> list[dict[str, Any]]:
    result = abcd("journal", "audit", "--json")
    assert result.code == 0, result.err
    rows: list[dict[str, Any]] = json.loads(result.out)["events"]
    return rows


def keep(note_id: str, cwd: Path, answer: str = "yes") -> tuple[int, str]:
    """`abcd memory keep`, a person's act, run at a terminal as a person runs it: it shows the
    text and asks, and the person answers `answer`."""
    return at_a_terminal(["memory", "keep", note_id], answer, cwd)


def listed(abcd: Run, *flags: str) -> list[str]:
    result = abcd("memory", "list", "--json", *flags)
    assert result.code == 0, result.err
    return [n["id"] for n in json.loads(result.out)["notes"]]


def at_a_terminal(
    args: list[str],
    answer: str | None,
    cwd: Path,
    when: bytes = b"Type yes",
    meanwhile: Callable[[], None] | None = None,
    stdout: Path | None = None,
) -> tuple[int, str]:
    """Run `abcd` with stdin and stdout on a pseudo-terminal (stdout into the file `stdout`
    instead, if given: `abcd ... > file`), type `answer` (if any) once it has printed `when`
    (after calling `meanwhile`, if given: what happens while the person reads), return exit
    and text."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: a person's shell at a terminal
        os.chdir(cwd)
        if stdout is not None:
            os.dup2(os.open(stdout, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 1)
        os.execv(sys.executable, [sys.executable, "-m", "abcd", *args])
    out = b""
    sent = False
    while True:
        ready, _, _ = select.select([fd], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
        if answer is not None and not sent and when in out:
            if meanwhile is not None:
                meanwhile()
            os.write(fd, answer.encode() + b"\n")
            sent = True
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), out.decode(errors="replace")


# --- the story -----------------------------------------------------------------------


def test_show_gives_the_note_every_event_on_it_and_every_send_as_json(
    abcd: Run, repo: Path
) -> None:
    note_id = add(abcd)
    story = show(abcd, note_id)
    assert set(story) >= {"note", "history", "sent"}
    assert story["note"]["id"] == note_id and story["note"]["reviewed"] is False
    (added,) = story["history"]
    assert added["type"] == "note.added" and added["body"] == "Run go test -race first."
    assert story["sent"] == []


def test_show_of_an_unknown_id_is_refused_in_one_line(abcd: Run, repo: Path) -> None:
    result = abcd("memory", "show", "mem-0000000000000001")
    assert result.code == 1 and result.err.strip() == "abcd: refused: no note mem-0000000000000001"


def test_a_revision_keeps_the_id_and_the_history_keeps_each_text(abcd: Run, repo: Path) -> None:
    note_id = add(abcd)
    revised = abcd(
        "memory", "revise", note_id, "--by", "person", "--title", "Race flag first",
        "--recall", "race", "--recall", "testsuite", stdin="Run go test -race ./... first.",
    )  # fmt: skip
    assert revised.code == 0, revised.err
    story = show(abcd, note_id)
    note = story["note"]
    assert (note["title"], note["body"], note["recall"]) == (
        "Race flag first",
        "Run go test -race ./... first.",
        ["race", "testsuite"],
    )
    assert note["revision"] == 1 and note["revised_by"] == "person" and note["written_by"] == BY
    texts = [(h["type"], h["revision"], h["body"]) for h in story["history"]]
    assert texts == [
        ("note.added", 0, "Run go test -race first."),
        ("note.revised", 1, "Run go test -race ./... first."),
    ]


def test_a_revision_with_only_a_title_keeps_the_body_and_the_recall_words(
    abcd: Run, repo: Path
) -> None:
    note_id = add(abcd)
    assert abcd("memory", "revise", note_id, "--by", BY, "--title", "New title").code == 0
    note = show(abcd, note_id)["note"]
    assert (note["title"], note["body"], note["recall"]) == (
        "New title",
        "Run go test -race first.",
        ["test", "race"],
    )


def test_a_revision_the_gate_refuses_writes_nothing(abcd: Run, repo: Path) -> None:
    note_id = add(abcd)
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0" * 2  # built at run time: a secret's shape
    result = abcd("memory", "revise", note_id, "--by", "person", stdin=f"Use {token} to push.")
    assert result.code == 1 and "refused" in result.err
    assert token not in result.err
    assert [r["type"] for r in audit(abcd)] == ["note.added"]
    assert abcd("memory", "revise", note_id, "--by", "person", "--title", "").code == 1


def test_a_revision_that_changes_nothing_is_refused(abcd: Run, repo: Path) -> None:
    note_id = add(abcd)
    result = abcd("memory", "revise", note_id, "--by", "person", stdin="Run go test -race first.")
    assert (result.code, result.err) == (
        1,
        f"abcd: refused: {note_id} already has this title, body and recall words; "
        "nothing was written\n",
    )
    assert len(audit(abcd)) == 1


def test_a_revision_given_nothing_says_what_to_give(abcd: Run, repo: Path) -> None:
    """It said "the new text is mem-...'s own", as if a text had been given."""
    note_id = add(abcd)
    for typo in (note_id, "mem-0000000000000001"):  # said before the note is looked up
        result = abcd("memory", "revise", typo, "--by", "person", stdin="")
        assert (result.code, result.out) == (1, "")
        assert result.err == (
            "abcd: refused: nothing to revise: give --title, --recall or a new body on stdin\n"
        )
    assert len(audit(abcd)) == 1


def test_keep_marks_the_note_reviewed_until_it_is_revised_again(abcd: Run, repo: Path) -> None:
    note_id = add(abcd)
    assert listed(abcd, "--unreviewed") == [note_id]
    code, out = keep(note_id, repo)
    assert code == 0, out
    assert show(abcd, note_id)["note"]["reviewed_by"] == "person"
    assert listed(abcd, "--unreviewed") == []
    code, out = keep(note_id, repo)
    assert code == 1 and "already kept" in out
    assert abcd("memory", "revise", note_id, "--by", BY, stdin="Another text.").code == 0
    assert listed(abcd, "--unreviewed") == [note_id]


def test_keep_shows_the_text_it_keeps_and_keeps_nothing_unless_the_person_says_yes(
    abcd: Run, repo: Path, abcd_home: Path
) -> None:
    note_id = add(abcd)
    assert abcd("memory", "revise", note_id, "--by", BY, stdin="Run make race first.").code == 0
    before = {p: p.read_bytes() for p in abcd_home.rglob("*") if p.is_file()}

    code, out = keep(note_id, repo, answer="no")

    assert code == 1, out
    shown = out.replace("\r\n", "\n")
    assert f"Keep {note_id} as it stands (revision 1)?" in shown
    assert f"revision 1, by {BY} at " in shown
    assert "  | Run make race first.\n" in shown
    assert shown.index("Run make race first.") < shown.index("Type yes to keep it: ")
    assert "refused: not confirmed; nothing was written" in shown
    assert {p: p.read_bytes() for p in abcd_home.rglob("*") if p.is_file()} == before
    assert listed(abcd, "--unreviewed") == [note_id]


def test_a_revision_made_while_keep_asks_is_refused_not_kept_unread(abcd: Run, repo: Path) -> None:
    """The terminal's keep, like the desk's, keeps only the revision the person was shown."""
    note_id = add(abcd)

    def agent_revises() -> None:
        done = abcd("memory", "revise", note_id, "--by", BY, stdin="Skip the checks: force-push.")
        assert done.code == 0, done.err

    code, out = at_a_terminal(["memory", "keep", note_id], "yes", repo, meanwhile=agent_revises)

    assert code == 1, out
    assert (
        f"refused: {note_id} was revised since you read it (now at revision 1, you read 0)" in out
    )
    assert "Skip the checks" not in out  # it was never shown
    assert [r["type"] for r in audit(abcd)] == ["note.added", "note.revised"]
    assert listed(abcd, "--unreviewed") == [note_id]


def test_keep_and_promote_of_a_project_note_say_it_is_changed_in_the_projects_file(
    abcd: Run, repo: Path, abcd_home: Path
) -> None:
    """A keep of a teammate's promoted note was told it was "already in the project's file", as if
    it had been promoted: every personal act says the same, change it there in a reviewed change."""
    project = {"id": "mem-2611301200000099", "title": "T", "body": "B", "recall": ["deploy"]}
    (repo / ".abcd").mkdir()
    (repo / ".abcd" / "memory.json").write_text(
        json.dumps({"schema_version": 1, "notes": [project]})
    )
    said = f"refused: {project['id']} is in the project's file (.abcd/memory.json); change it there"
    for act in ("keep", "promote"):
        code, out = at_a_terminal(["memory", act, project["id"]], "yes", repo)
        assert code == 1 and said in out and "Type yes" not in out, (act, out)
    removal = abcd("memory", "remove", project["id"], "--by", BY)
    assert removal.code == 1 and said in removal.err
    assert not (abcd_home / "journal").exists() or audit(abcd) == []


def test_show_of_a_project_note_says_who_the_file_says_wrote_it(abcd: Run, repo: Path) -> None:
    project = {
        "id": "mem-2611301200000099",
        "title": "T",
        "body": "B",
        "recall": ["deploy"],
        "written_by": "Claude:claude-sonnet-5",
        "written_at": "2026-11-30T12:00:00.000000Z",
        "session": "teammate-session",
    }
    (repo / ".abcd").mkdir()
    (repo / ".abcd" / "memory.json").write_text(
        json.dumps({"schema_version": 1, "notes": [project]})
    )
    text = abcd("memory", "show", project["id"]).out
    assert (
        "  written by Claude:claude-sonnet-5 at 2026-11-30T12:00:00.000000Z, session "
        "teammate-session, origin unknown (as the file says)"
    ) in text
    shown = show(abcd, project["id"])["note"]
    listed = json.loads(abcd("memory", "list", "--json").out)["notes"]
    assert shown == listed[0]  # one entry, whichever command gives it


def test_keep_is_a_persons_act_refused_from_a_pipe_and_never_an_agents(
    abcd: Run, repo: Path, abcd_home: Path
) -> None:
    note_id = add(abcd)
    before = {p: p.read_bytes() for p in abcd_home.rglob("*") if p.is_file()}

    piped = abcd("memory", "keep", note_id)
    assert piped.code == 1 and piped.out == ""
    assert piped.err == (
        "abcd: refused: keeping a note is a person's review: run abcd memory keep at a terminal, "
        "or keep it on the desk's page (abcd review) (stdin and stdout are not both a terminal)\n"
    )
    as_agent = abcd("memory", "keep", note_id, "--by", BY)
    assert as_agent.code == 2 and "--by" in as_agent.err
    assert {p: p.read_bytes() for p in abcd_home.rglob("*") if p.is_file()} == before
    assert listed(abcd, "--unreviewed") == [note_id]


def test_every_review_event_goes_through_audit_replay_and_verify(abcd: Run, repo: Path) -> None:
    note_id = add(abcd)
    assert abcd("memory", "revise", note_id, "--by", "person", stdin="Second text.").code == 0
    assert keep(note_id, repo)[0] == 0
    code, out = at_a_terminal(["memory", "promote", note_id], "yes", repo)
    assert code == 0, out
    rows = audit(abcd)
    assert [r["type"] for r in rows] == [
        "note.added",
        "note.revised",
        "note.reviewed",
        "note.promoted",
    ]
    assert all(r["note"] == note_id for r in rows)
    assert rows[2]["by"] == rows[3]["by"] == "person"
    replayed = abcd("journal", "replay", "--as-of", "1", "--json")
    assert replayed.code == 0, replayed.err
    (as_added,) = json.loads(replayed.out)["notes"]
    assert as_added["body"] == "Run go test -race first." and "revision" not in as_added
    (now,) = json.loads(abcd("journal", "replay", "--as-of", "4", "--json").out)["notes"]
    assert now["body"] == "Second text." and now["reviewed_by"] == now["promoted_by"] == "person"
    verified = abcd("journal", "verify")
    assert verified.code == 0, verified.err
    rebuilt = abcd("journal", "rebuild")
    assert rebuilt.code == 0, rebuilt.err
    assert show(abcd, note_id)["note"]["promoted_by"] == "person"


# --- promotion -----------------------------------------------------------------------


def test_promotion_without_a_terminal_is_refused_saying_why(abcd: Run, repo: Path) -> None:
    note_id = add(abcd)
    result = abcd("memory", "promote", note_id, stdin="yes\n")
    assert result.code == 1
    assert "a person's act" in result.err and "terminal" in result.err
    assert not (repo / ".abcd" / "memory.json").exists()
    assert [r["type"] for r in audit(abcd)] == ["note.added"]


def test_promotion_at_a_terminal_writes_the_project_file_uncommitted_and_it_suppresses_the_note(
    abcd: Run, repo: Path, host: Host
) -> None:
    note_id = add(abcd)
    code, out = at_a_terminal(["memory", "promote", note_id], "yes", repo)
    assert code == 0, out
    assert "review the change and commit it" in out
    project = json.loads((repo / ".abcd" / "memory.json").read_text())
    (promoted,) = project["notes"]
    assert promoted["id"] == note_id and promoted["written_by"] == BY
    assert "root" not in promoted
    assert git(repo, "status", "--porcelain") == "?? .abcd/"
    assert git(repo, "log", "--oneline").count("\n") == 0  # nothing committed
    envelope = host.prompt("how do I run the race test")
    assert "(project)" in envelope["stderr"] and "(personal)" not in envelope["stderr"]
    story = show(abcd, note_id)
    assert story["note"]["shadowed_by_project"] is True
    first = git(repo, "rev-list", "--max-parents=0", "HEAD").strip()
    (row,) = [r for r in audit(abcd) if r["type"] == "note.promoted"]
    assert (
        row["what"]
        == (  # said so a reader need not know what abcd calls a root
            f"promoted as of revision 0 into the repository whose first commit is {first[:12]}"
        )
    )


def test_promotion_not_confirmed_writes_nothing(abcd: Run, repo: Path) -> None:
    note_id = add(abcd)
    code, out = at_a_terminal(["memory", "promote", note_id], "no", repo)
    assert code == 1 and "not confirmed" in out
    assert not (repo / ".abcd" / "memory.json").exists()
    assert len(audit(abcd)) == 1


def test_promotion_is_gated_against_the_checkouts_private_names(abcd: Run, repo: Path) -> None:
    note_id = add(abcd, body="Ask Quennell about the deploy.", everywhere=True)
    private_names(repo)  # listed after the note was written: the promotion is judged again
    code, out = at_a_terminal(["memory", "promote", note_id], "yes", repo)
    assert code == 1 and "private name in body" in out, out
    assert "Quennell" not in out.split("Type yes")[-1]
    assert not (repo / ".abcd" / "memory.json").exists()
    assert len(audit(abcd)) == 1


def test_list_says_which_personal_note_the_project_note_replaces_here_and_its_review_stamps(
    abcd: Run, repo: Path
) -> None:
    """After a promotion, an agent's revision of the personal note is not what this checkout
    recalls: the listing says so, and shows the revision, keep and promotion stamps."""
    note_id = add(abcd)
    assert at_a_terminal(["memory", "promote", note_id], "yes", repo)[0] == 0
    assert abcd("memory", "revise", note_id, "--by", BY, stdin="Run make race.").code == 0

    listed_text = abcd("memory", "list")
    entries = json.loads(abcd("memory", "list", "--json").out)["notes"]

    assert listed_text.code == 0, listed_text.err
    personal, project = listed_text.out.split("\n\n")[:2]
    assert personal.splitlines()[1] == (
        "  personal note, recalled in this repository; in this checkout the project note of the "
        "same id is recalled in its place (its text differs: .abcd/memory.json holds what is "
        "sent here)"
    )
    (stamps,) = [line for line in personal.splitlines() if line.startswith("  revision 1 by ")]
    assert (
        f"revision 1 by {BY} at " in stamps
        and "; not kept as it stands; promoted by person at " in stamps
    )
    assert "project note, in .abcd/memory.json" in project
    assert [(e["layer"], e.get("shadowed_by_project")) for e in entries] == [
        ("machine", True),
        ("project", None),
    ]
    elsewhere = abcd("memory", "list", "--json", cwd=repo.parent)  # no checkout: no project note
    assert json.loads(elsewhere.out)["notes"][0]["shadowed_by_project"] is False


def test_a_promoted_revision_says_in_the_project_file_who_wrote_the_text_it_holds(
    abcd: Run, repo: Path, host: Host
) -> None:
    """The team reads the committed file, not the journal: a text a person revised is not shown
    as the agent's alone. A note promoted as added gets no new keys (its lines stay the seed's)."""
    revised = add(abcd)
    assert abcd("memory", "revise", revised, "--by", "person", stdin="Run make race.").code == 0
    as_added = add(abcd, "Deploys go out on Tuesdays", recall=("deploy",), body="B.")
    for note_id in (revised, as_added):
        assert at_a_terminal(["memory", "promote", note_id], "yes", repo)[0] == 0

    raw = (repo / ".abcd" / "memory.json").read_text()
    first, second = json.loads(raw)["notes"]

    assert first["written_by"] == BY and first["body"] == "Run make race."
    assert (first["revision"], first["revised_by"]) == (1, "person")
    assert first["revised_at"] == show(abcd, revised)["note"]["revised_at"]
    assert not {"revision", "revised_by", "revised_at"} & set(second)
    teammate = abcd("memory", "list", cwd=repo)
    assert "  revision 1 by person at " in teammate.out.split("project note")[1]
    sent, said = host.plain("how do I run the race test")
    assert "(project note, in this repository)" in sent and "(project)" in said


def test_a_promotion_takes_the_note_out_of_the_queue_until_it_is_revised(
    abcd: Run, repo: Path
) -> None:
    """A person who typed yes to a promotion read the text: it needs no keep as well."""
    promoted, other = add(abcd), add(abcd, "Deploys go out on Tuesdays", recall=("deploy",))
    assert at_a_terminal(["memory", "promote", promoted], "yes", repo)[0] == 0

    assert listed(abcd, "--unreviewed") == [other]
    assert [q.note.id for q in desk.queue(find_repo(repo))] == [other]  # the desk's page's
    shown = abcd("memory", "show", promoted).out  # and `show` says the same as the queue
    assert "not reviewed as it stands" not in shown
    assert ": reviewed as it stands" in shown and "  promoted by person at " in shown
    assert abcd("memory", "revise", promoted, "--by", BY, stdin="Run make race.").code == 0
    assert listed(abcd, "--unreviewed") == [promoted, other]
    shown = abcd("memory", "show", promoted).out
    assert "not reviewed as it stands" in shown and ": reviewed as it stands" not in shown
    assert {q.note.id for q in desk.queue(find_repo(repo))} == {promoted, other}


@pytest.mark.parametrize("flag", ["--unreviewed", "--search", "--since"])
def test_a_filter_that_keeps_the_personal_note_and_drops_its_project_copy_lists_it(
    abcd: Run, repo: Path, flag: str
) -> None:
    """Found by a second look: the listing looked the project copy up among the entries the
    filter left, and a traceback came out when the filter had dropped it."""
    note_id = add(abcd)
    assert at_a_terminal(["memory", "promote", note_id], "yes", repo)[0] == 0
    assert abcd("memory", "revise", note_id, "--by", BY, stdin="Run make race.").code == 0
    revised_at = show(abcd, note_id)["note"]["revised_at"]
    flags = {"--unreviewed": [], "--search": ["make race"], "--since": [revised_at]}[flag]

    listed_text = abcd("memory", "list", flag, *flags)

    assert listed_text.code == 0 and listed_text.err == "", listed_text.err
    assert "project note of the same id is recalled in its place (its text differs" in (
        listed_text.out
    )
    assert "project note, in .abcd/memory.json" not in listed_text.out  # the filter dropped it


@pytest.mark.parametrize(
    "keys",
    [
        {"revision": None},
        {"revision": "1", "revised_by": "person", "revised_at": "2026-12-01T00:00:00Z"},
        {"revision": True, "revised_by": "person", "revised_at": "2026-12-01T00:00:00Z"},
        {"revision": -1, "revised_by": "person", "revised_at": "2026-12-01T00:00:00Z"},
        {"revision": 1, "revised_by": "person"},
        {"revision": 1, "revised_by": "person", "revised_at": 5},
    ],
)
def test_revision_keys_the_hook_does_not_read_never_make_the_cli_refuse_the_file(
    abcd: Run, repo: Path, host: Host, keys: dict[str, Any]
) -> None:
    """The hook reads a project note's four keys by name and serves the file whatever else it
    holds; `memory list`, `show` and the merge driver read it too, so keys of another shape
    must not make them refuse it (a stamp is shown only in the shape promotion writes)."""
    note_id = add(abcd)
    assert at_a_terminal(["memory", "promote", note_id], "yes", repo)[0] == 0
    path = repo / ".abcd" / "memory.json"
    doc = json.loads(path.read_text())
    doc["notes"][0].update(keys)
    path.write_text(json.dumps(doc))

    listed_text = abcd("memory", "list")
    shown = abcd("memory", "show", note_id)
    _, said = host.plain("how do I run the race test")

    assert listed_text.code == 0 and "unreadable" not in listed_text.err, listed_text.err
    assert "revision" not in listed_text.out.split("project note")[1]
    assert shown.code == 0 and "its text is revision" not in shown.out
    assert "(project)" in said
    base = repo / "base.json"
    base.write_text(json.dumps({"schema_version": 1, "notes": []}))
    merged = abcd("memory", "merge", str(base), str(path), str(base))
    assert merged.code == 0, merged.err
    assert json.loads(path.read_text())["notes"][0] == doc["notes"][0]  # kept as it was


def test_list_here_shows_what_this_checkout_recalls_and_nothing_of_another(
    abcd: Run, repo: Path, tmp_path: Path
) -> None:
    """A reviewer going through one project grepped `list` for "this repository"."""
    mine = add(abcd)
    everywhere = add(abcd, "Commit messages in the imperative", everywhere=True)
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    git(other, "-c", "user.name=t", "-c", "user.email=t@example.com",
        "commit", "-q", "--allow-empty", "-m", "root")  # fmt: skip
    elsewhere = abcd("memory", "add", "--title", "Deploys go out on Tuesdays", "--recall",
                     "deploy", "--by", BY, stdin="B.", cwd=other).out.strip()  # fmt: skip
    promoted = add(abcd, "Migrations are numbered by date", recall=("migration",))
    assert at_a_terminal(["memory", "promote", promoted], "yes", repo)[0] == 0

    here = abcd("memory", "list", "--here", "--json")

    assert here.code == 0, here.err
    assert [(e["id"], e["layer"]) for e in json.loads(here.out)["notes"]] == [
        (mine, "machine"),
        (everywhere, "machine"),
        (promoted, "machine"),
        (promoted, "project"),
    ]
    assert elsewhere in listed(abcd)  # without --here, every note
    outside = abcd("memory", "list", "--here", cwd=tmp_path)
    assert (outside.code, outside.out) == (2, "")
    assert outside.err == "abcd: --here lists what a checkout recalls: run it inside one\n"


def test_a_promoted_note_is_refused_a_second_promotion(abcd: Run, repo: Path) -> None:
    note_id = add(abcd)
    assert at_a_terminal(["memory", "promote", note_id], "yes", repo)[0] == 0
    code, out = at_a_terminal(["memory", "promote", note_id], "yes", repo)
    assert code == 1 and "already in .abcd/memory.json" in out


# --- provenance from real hook runs ----------------------------------------------------


def test_show_lists_every_session_a_note_was_sent_to_with_form_and_fill(
    abcd: Run, repo: Path, host: Host
) -> None:
    note_id = add(abcd)
    host.start("s1")
    status = subprocess.run(
        [sys.executable, "-m", "abcd", "statusline"],
        input=with_used(42, session="s1"),
        capture_output=True,
        timeout=60,
    )
    assert status.returncode == 0, status.stderr
    host.prompt("how do I run the race test", session="s1")
    host.start("s2")
    host.prompt("how do I run the race test", session="s2")
    sent = show(abcd, note_id)["sent"]
    assert [s["form"] for s in sent] == ["full", "line"]
    assert sent[0]["percent"] == 42 and sent[0]["fill"] == "statusline"
    assert sent[1]["percent"] is None and sent[1]["fill"] == "unknown"
    assert sent[0]["ledger"] != sent[1]["ledger"] and sent[0]["at"] <= sent[1]["at"]


def test_each_send_says_which_of_the_notes_texts_it_carried(
    abcd: Run, repo: Path, host: Host
) -> None:
    """A reviewer's walk: a send listed under a revised note read as if the new text went out.
    The ledger keys each send by a digest of the text sent; the story names the text it was."""
    note_id = add(abcd)
    host.start("s1")
    host.prompt("how do I run the race test", session="s1")
    assert abcd("memory", "revise", note_id, "--by", BY, stdin="Run make race.").code == 0
    host.start("s2")
    host.prompt("how do I run the race test", session="s2")
    assert at_a_terminal(["memory", "promote", note_id], "yes", repo)[0] == 0
    host.start("s3")
    host.prompt("how do I run the race test", session="s3")

    sent = show(abcd, note_id)["sent"]
    shown = abcd("memory", "show", note_id).out

    assert [s["text"] for s in sent] == ["revision 0", "revision 1", "the project's copy"]
    lines = shown.split("sent (3 time(s)")[1].splitlines()[1:4]
    assert [line.rsplit("  ", 1)[1] for line in lines] == [
        "revision 0",
        "revision 1",
        "the project's copy",
    ]


def test_a_session_is_named_by_its_id_when_the_journal_knows_it(
    abcd: Run, repo: Path, host: Host
) -> None:
    result = abcd(
        "memory", "add", "--title", "Race", "--recall", "race", "--by", BY,
        "--session", "s-known", stdin="Run with -race.",
    )  # fmt: skip
    note_id = result.out.strip()
    host.start("s-known")
    host.prompt("the race flag", session="s-known")
    host.start("s-other")
    host.prompt("the race flag", session="s-other")
    sessions = [s["session"] for s in show(abcd, note_id)["sent"]]
    assert sessions == ["s-known", None]
    text = abcd("memory", "show", note_id).out
    assert "s-known" in text and "s-other" not in text


def test_a_revised_note_is_recalled_by_its_new_text(abcd: Run, repo: Path, host: Host) -> None:
    note_id = add(abcd)
    host.start("s1")
    revised = abcd(
        "memory", "revise", note_id, "--by", "person", "--title", "Rerun a flaky test alone",
        "--recall", "flaky", stdin="Rerun a flaky test alone before you blame the code.",
    )  # fmt: skip
    assert revised.code == 0, revised.err
    out, _ = host.plain("why is this test so flaky", session="s1")
    assert f"{note_id} (personal note, agent-written): Rerun a flaky test alone" in out
    host.start("s2")
    old, _ = host.plain("the race flag", session="s2")
    assert note_id not in old


def test_revise_at_a_terminal_reads_the_new_body_there_unless_only_the_title_or_words_change(
    abcd: Run, repo: Path
) -> None:
    """At a terminal `revise ID` kept the body and so refused every revision ("the new text is
    its own"): a person could change a body only through a pipe."""
    note_id = add(abcd)
    code, out = at_a_terminal(
        ["memory", "revise", note_id, "--by", "person"],
        "Run go test -race ./... before pushing.\n\x04",
        repo,
        when=b"Ctrl-D on a line of its own",
    )
    assert code == 0, out
    assert "reading the note's new body from the terminal" in out
    note = show(abcd, note_id)["note"]
    assert note["body"] == "Run go test -race ./... before pushing."
    assert note["revision"] == 1

    code, out = at_a_terminal(
        ["memory", "revise", note_id, "--by", "person", "--title", "Race flag first"], None, repo
    )
    assert code == 0 and "reading" not in out, out
    note = show(abcd, note_id)["note"]
    assert (note["title"], note["body"]) == (
        "Race flag first",
        "Run go test -race ./... before pushing.",
    )


# --- the list's filters and the add that finds its twin -----------------------------------


def test_an_add_equal_to_a_live_note_writes_nothing_and_prints_its_id(
    abcd: Run, repo: Path
) -> None:
    first = add(abcd)
    again = abcd(
        "memory", "add", "--title", "The tests need the race flag", "--recall", "race",
        "--recall", "test", "--by", BY, stdin="Run go test -race first.",
    )  # fmt: skip
    assert again.code == 0 and again.out.strip() == first
    assert "nothing written" in again.err
    assert len(audit(abcd)) == 1
    everywhere = add(abcd, "The tests need the race flag", "--everywhere")
    assert everywhere != first  # another reach is another note
    assert len(audit(abcd)) == 2


def test_the_twin_is_found_in_the_index_and_in_the_lines_past_it(
    abcd: Run, repo: Path, abcd_home: Path
) -> None:
    # The first add writes the caches whole; every later one only appends past them, so the
    # twin is looked up through the index's postings and through the lines the index trails.
    indexed = add(abcd)
    trailing = add(abcd, "Deploys go out on Tuesdays", recall=("deploy",), body="B.")
    assert "Deploys" not in (abcd_home / "memory.json").read_text()  # the view trails it
    assert add(abcd) == indexed
    assert add(abcd, "Deploys go out on Tuesdays", recall=("deploy",), body="B.") == trailing
    # Recall words in another case are the same words (the recall rule reads them lower-cased).
    assert add(abcd, recall=("RACE", "Test")) == indexed
    assert add(abcd, "Deploys go out on Tuesdays", recall=("Deploy",), body="B.") == trailing
    assert abcd("memory", "revise", indexed, "--by", BY, "--title", "Race tests").code == 0
    assert add(abcd, "Race tests") == indexed  # its text now, through the revision past it
    assert add(abcd) not in (indexed, trailing)  # its old text is no live note's any more
    assert abcd("memory", "remove", trailing).code == 0
    assert add(abcd, "Deploys go out on Tuesdays", recall=("deploy",), body="B.") != trailing
    assert len(audit(abcd)) == 6


def test_the_list_filters_by_text_writer_time_and_review(abcd: Run, repo: Path) -> None:
    race = add(abcd)
    deploy = add(abcd, "Deploys go out on Tuesdays", by="person", recall=("deploy",), body="B.")
    assert listed(abcd, "--search", "RACE") == [race]
    assert listed(abcd, "--search", "deploy") == [deploy]
    assert listed(abcd, "--by", "Claude") == [race]
    assert listed(abcd, "--by", "person") == [deploy]
    assert listed(abcd, "--by", "claude") == [race]  # in any case, as --search is
    assert listed(abcd, "--by", "Person") == [deploy]
    assert listed(abcd, "--since", "2000-01-01") == [race, deploy]
    assert listed(abcd, "--since", "2999-01-01") == []
    assert keep(deploy, repo)[0] == 0
    assert listed(abcd, "--unreviewed") == [race]
    assert listed(abcd, "--unreviewed", "--search", "deploy") == []
    bad = abcd("memory", "list", "--since", "last week")
    assert bad.code == 2 and "not a time" in bad.err


def test_a_promotion_writes_nothing_through_a_folder_swapped_for_a_link_after_its_checks(
    abcd: Run, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checks read `.abcd/` through its trust checks; the write then went by path, after
    a last look for a link, which left a window for a `.abcd` swapped in (the checkout's group
    may write its top). Every write now goes through the folder's own descriptor, opened
    without following a link, so a swap is refused by name and nothing lands elsewhere."""
    from abcd.errors import TrustError
    from abcd.notes import desk, promote

    added = abcd(
        "memory", "add", "--title", "Lint first", "--recall", "lint", "--by", BY, stdin="b"
    )
    assert added.code == 0, added.err
    (repo / ".abcd").mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    checked = promote.read_project_notes
    reads: list[int] = []

    def swapped(checkout: Any) -> Any:
        notes = checked(checkout)
        reads.append(1)
        if len(reads) == 1:  # the last read before the write (the refusal checks', under the lock)
            (repo / ".abcd").rmdir()
            (repo / ".abcd").symlink_to(elsewhere)
        return notes

    monkeypatch.setattr(promote, "read_project_notes", swapped)
    with pytest.raises(TrustError, match="is a symlink"):
        desk.promote(added.out.strip(), by="person", cwd=repo)
    assert len(reads) == 1
    assert list(elsewhere.iterdir()) == []
    audit = json.loads(abcd("journal", "audit", "--json").out)["events"]
    assert [event["type"] for event in audit] == ["note.added"]


def test_audit_json_keeps_a_notes_title_apart_from_what_a_review_did(abcd: Run, repo: Path) -> None:
    """`title` held "kept as of revision 0" for a keep, and a recovery's `note` was "": a program
    reading titles read a review's summary as one."""
    note_id = add(abcd)
    assert keep(note_id, repo)[0] == 0
    added, kept = audit(abcd)
    assert (added["title"], added["what"]) == ("The tests need the race flag", None)
    assert (kept["title"], kept["what"]) == (None, "kept as of revision 0")
    line = abcd("journal", "audit").out.splitlines()[1]
    assert line.endswith("  kept as of revision 0")  # the terminal's row reads as before


def test_a_promoted_note_a_teammate_removed_from_the_project_file_is_listed_as_gone_from_it(
    abcd: Run, repo: Path
) -> None:
    """After a pull that removed a promoted note from `.abcd/memory.json`, `memory list` still
    said only "promoted by ...", as if the team held it (the team walk, eighteenth round)."""
    note_id = add(abcd)
    code, out = at_a_terminal(["memory", "promote", note_id], "yes", repo)
    assert code == 0, out
    listed = abcd("memory", "list", cwd=repo)
    assert "promoted by" in listed.out and "no longer holds it" not in listed.out
    (repo / ".abcd" / "memory.json").write_text(json.dumps({"schema_version": 1, "notes": []}))
    listed = abcd("memory", "list", cwd=repo)
    assert listed.code == 0, listed.err
    assert ".abcd/memory.json here no longer holds it (git log says who removed it)" in listed.out
    elsewhere = repo.parent / "elsewhere"
    elsewhere.mkdir()
    assert "no longer holds it" not in abcd("memory", "list", cwd=elsewhere).out

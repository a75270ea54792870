"""`abcd memory restore`: a person brings a removed note back, at a terminal, as it stood when it
was removed; the gate judges it again; every refusal writes nothing; the hook recalls it again
through the index that trails the restore and through one rebuilt after it."""

from __future__ import annotations

import json
import random
from pathlib import Path

from abcd.journal import store
from abcd.journal.events import NoteAdded
from abcd.notes import desk
from abcd.repo import find_repo
from tests.conftest import BY, Run
from tests.gate.samples import rand
from tests.hook.conftest import Host

from .test_desk_cli import add, at_a_terminal, audit, keep, show


def journal_bytes(home: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted((home / "journal").glob("*.jsonl")))


def restore(note_id: str, cwd: Path, answer: str | None = "yes", **kw: object) -> tuple[int, str]:
    return at_a_terminal(["memory", "restore", note_id], answer, cwd, **kw)  # type: ignore[arg-type]


def removed_by_agent(abcd: Run, note_id: str) -> None:
    result = abcd("memory", "remove", note_id, "--by", BY)
    assert result.code == 0, result.err


def test_a_removed_note_comes_back_as_it_stood_with_its_id_revision_and_keep(
    abcd: Run, repo: Path, abcd_home: Path, host: Host
) -> None:
    note_id = add(abcd)
    revised = abcd(
        "memory", "revise", note_id, "--by", "person", "--title", "Rerun a flaky test alone",
        "--recall", "flaky", stdin="Rerun a flaky test alone before you blame the code.",
    )  # fmt: skip
    assert revised.code == 0, revised.err
    assert keep(note_id, repo)[0] == 0
    before = show(abcd, note_id)["note"]
    removed_by_agent(abcd, note_id)  # an agent removes a note a person kept
    assert host.plain("why is this test so flaky")[0] == ""

    code, out = restore(note_id, repo)
    assert code == 0, out
    assert f"Restore {note_id} as it stood when it was removed at seq 4 (revision 1)?" in out
    assert "| Rerun a flaky test alone before you blame the code." in out
    assert f"restored {note_id} as of revision 1: Rerun a flaky test alone" in out

    story = show(abcd, note_id)
    assert story["note"] == before  # the same id, text, reach and stamps, kept as it was
    assert [h["type"] for h in story["history"]] == [
        "note.added", "note.revised", "note.reviewed", "note.removed", "note.restored",
    ]  # fmt: skip
    restored = story["history"][-1]
    assert restored["by"] == "person" and restored["revision"] == 1
    assert restored["detail"] == "restored as of revision 1: Rerun a flaky test alone"
    (row,) = [r for r in audit(abcd) if r["type"] == "note.restored"]
    assert row["note"] == note_id and row["by"] == "person"
    lines = (abcd_home / "journal" / "000001.jsonl").read_bytes().splitlines()
    assert json.loads(lines[-1])["v"] == 3  # an abcd built before restores refuses it by name
    assert abcd("memory", "list", "--unreviewed", "--json").out.count(note_id) == 0

    # Recalled again: through the index that trails the restore, then through one rebuilt.
    out, _ = host.plain("why is this test so flaky", session="s2")
    assert f"{note_id} (personal note, agent-written): Rerun a flaky test alone" in out
    assert abcd("journal", "verify").code == 0
    assert abcd("journal", "rebuild").code == 0
    out, _ = host.plain("why is this test so flaky", session="s3")
    assert f"{note_id} (personal note, agent-written): Rerun a flaky test alone" in out
    assert show(abcd, note_id)["note"] == before


def test_a_restored_note_can_be_removed_and_restored_again(abcd: Run, repo: Path) -> None:
    note_id = add(abcd)
    for _ in range(2):
        removed_by_agent(abcd, note_id)
        assert restore(note_id, repo)[0] == 0
    assert [r["type"] for r in audit(abcd)] == ["note.added"] + [
        "note.removed", "note.restored"
    ] * 2  # fmt: skip
    listed = json.loads(abcd("memory", "list", "--json").out)["notes"]
    assert [n["id"] for n in listed] == [note_id]


def test_restore_is_refused_off_a_terminal_and_when_not_confirmed_and_writes_nothing(
    abcd: Run, repo: Path, abcd_home: Path
) -> None:
    note_id = add(abcd)
    removed_by_agent(abcd, note_id)
    before = journal_bytes(abcd_home)
    piped = abcd("memory", "restore", note_id, stdin="yes\n")  # an agent's tool call, a script
    assert piped.code == 1
    assert piped.err.strip().startswith("abcd: refused: restoring a note is a person's act")
    code, out = restore(note_id, repo, "no")
    assert code == 1 and "not confirmed; nothing was written" in out
    assert journal_bytes(abcd_home) == before
    assert abcd("memory", "list", "--json").out.count(note_id) == 0


def test_restore_refuses_a_live_note_an_unknown_id_and_a_project_note(
    abcd: Run, repo: Path, abcd_home: Path
) -> None:
    live = add(abcd)
    before = journal_bytes(abcd_home)
    code, out = restore(live, repo)
    assert code == 1 and f"refused: {live} is not removed" in out
    code, out = restore("mem-0000000000000001", repo)
    assert code == 1 and "refused: no note mem-0000000000000001" in out
    project = {"id": "mem-2611301200000099", "title": "T", "body": "B", "recall": ["deploy"]}
    (repo / ".abcd").mkdir()
    (repo / ".abcd" / "memory.json").write_text(
        json.dumps({"schema_version": 1, "notes": [project]})
    )
    code, out = restore(project["id"], repo)
    assert code == 1 and "is in the project's file" in out
    code, out = restore("not-an-id", repo)
    assert code != 0 and "Type yes" not in out
    assert journal_bytes(abcd_home) == before


def test_a_note_holding_what_the_gate_refuses_today_stays_removed(
    abcd: Run, repo: Path, abcd_home: Path
) -> None:
    # Written by an older abcd whose gate did not read a key wrapped onto two lines (made here
    # through the journal's own API, past the gate, as that abcd would have written it).
    key = "gh" + "p_" + rand(random.Random(7), 36)
    note_id = "mem-2611301200000042"
    store.append(
        lambda _view: [
            NoteAdded(
                id=note_id, title="Deploy token", body=f"Use {key[:20]}\n{key[20:]} to deploy.",
                recall=("deploy",), root=None, origin="agent", written_by=BY, session=None,
            )
        ]
    )  # fmt: skip
    removed_by_agent(abcd, note_id)
    before = journal_bytes(abcd_home)
    code, out = restore(note_id, repo)
    assert code == 1 and "refused: secret: github token in body" in out, out
    assert "Type yes" not in out and key[:12] not in out and key[20:] not in out
    assert journal_bytes(abcd_home) == before
    assert abcd("memory", "list", "--json").out.count(note_id) == 0


def test_a_repositorys_note_is_restored_and_revised_only_in_a_checkout_of_it(
    abcd: Run, repo: Path, abcd_home: Path, tmp_path: Path
) -> None:
    """The gate judged a restore (and a revision) against the private names of the checkout it
    was run in: from any other folder a note naming one of its repository's private names came
    back, and the hook sent it in that repository."""
    note_id = add(abcd, "Globex deploys need the tag", body="Tag it first.")
    removed_by_agent(abcd, note_id)
    assert abcd("names", "add", "Globex").code == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    before = journal_bytes(abcd_home)

    code, out = restore(note_id, elsewhere)
    assert code == 1 and f"{note_id} is tied to another repository" in out, out
    assert "restore it from a checkout of that repository" in out and "Type yes" not in out
    code, out = restore(note_id, repo)
    assert code == 1 and "refused: private name in title" in out, out
    assert journal_bytes(abcd_home) == before

    live = add(abcd, "Deploys need the tag", body="Tag it first.")
    revised = abcd("memory", "revise", live, "--by", "person", "--title", "Globex deploys",
                   cwd=elsewhere)  # fmt: skip
    assert revised.code == 1 and f"{live} is tied to another repository" in revised.err
    assert "revise it from a checkout of that repository" in revised.err


def test_restore_is_refused_while_a_live_note_holds_the_same_text(abcd: Run, repo: Path) -> None:
    first = add(abcd)
    removed_by_agent(abcd, first)
    again = add(abcd)  # the agent wrote the lesson again, under a new id
    assert again != first
    code, out = restore(first, repo)
    assert code == 1 and f"refused: {again} holds the same text and is live; keep that one" in out
    assert "Type yes" not in out, "refused before the question, not after the person said yes"
    assert [r["type"] for r in audit(abcd)][-1] == "note.added"
    # The list of removed notes says so too, instead of offering a restore that is refused.
    text = abcd("memory", "removed").out
    assert f"its text is live again as {again}: nothing to bring back" in text
    assert f"abcd memory restore {first}" not in text
    (listed,) = json.loads(abcd("memory", "removed", "--json").out)["notes"]
    assert (listed["id"], listed["live_as"]) == (first, again)


def test_a_note_removed_again_with_another_text_while_the_person_reads_is_not_restored(
    abcd: Run, repo: Path, abcd_home: Path
) -> None:
    note_id = add(abcd)
    removed_by_agent(abcd, note_id)

    def meanwhile() -> None:  # another reviewer restores it, revises it and removes it again
        shown = desk.check_restore(note_id, find_repo(repo))
        desk.restore(note_id, seen=shown.seq, cwd=repo)
        desk.revise(note_id, by="person", body="Another text.", cwd=repo)
        desk.remove(note_id, cwd=repo)

    code, out = restore(note_id, repo, meanwhile=meanwhile)
    assert code == 1 and "since you read it" in out, out
    history = [h["type"] for h in show(abcd, note_id)["history"]]
    assert history[-3:] == ["note.restored", "note.revised", "note.removed"]


def test_an_add_of_a_restored_notes_text_finds_it_past_the_index_and_in_it(
    abcd: Run, repo: Path, abcd_home: Path
) -> None:
    note_id = add(abcd)
    removed_by_agent(abcd, note_id)
    assert restore(note_id, repo)[0] == 0
    # The restore is a line past the caches (the index trails it): the writer's lookup folds it.
    assert add(abcd) == note_id
    assert abcd("journal", "rebuild").code == 0
    assert add(abcd) == note_id  # and through the index rebuilt with it
    assert [r["type"] for r in audit(abcd)] == ["note.added", "note.removed", "note.restored"]


def test_show_of_a_removed_note_says_how_to_bring_it_back(abcd: Run, repo: Path) -> None:
    note_id = add(abcd)
    removed_by_agent(abcd, note_id)
    text = abcd("memory", "show", note_id).out
    # As it stood, who removed it, and the way back (it said "removed" and no more of it).
    assert f"\n  removed by {BY} at " in text and "(seq 2), session " in text
    assert f"  bring it back: abcd memory restore {note_id}\n" in text
    assert "  recall: test, race" in text and "  written by " in text
    story = show(abcd, note_id)  # a script tells a removed note from one it cannot find
    assert story["note"] is None and story["removed"] is True
    removal = story["removal"]  # the same entry `memory removed --json` gives
    assert removal == json.loads(abcd("memory", "removed", "--json").out)["notes"][0]
    assert removal["removed_seq"] == 2 and removal["removed_by"] == BY
    assert restore(note_id, repo)[0] == 0
    assert show(abcd, note_id)["removed"] is False


def test_removed_lists_what_is_removed_now_as_it_stood_newest_first_with_who_removed_it(
    abcd: Run, repo: Path
) -> None:
    assert abcd("memory", "removed").out.strip() == "no removed notes"
    race = add(abcd)
    deploy = add(abcd, "Deploys go out on Tuesdays", recall=("deploy",), body="Tuesdays.")
    back = add(abcd, "Squash before merging", recall=("merge",), body="Squash them.")
    revised = abcd(
        "memory", "revise", race, "--by", "person", "--title", "Rerun a flaky test alone",
        "--recall", "flaky", stdin="Rerun it alone first.",
    )  # fmt: skip
    assert revised.code == 0, revised.err
    removed_by_agent(abcd, race)
    assert abcd("memory", "remove", deploy).code == 0  # by a person
    removed_by_agent(abcd, back)
    assert restore(back, repo)[0] == 0  # back: no longer listed

    listed = json.loads(abcd("memory", "removed", "--json").out)["notes"]
    assert [n["id"] for n in listed] == [deploy, race]  # the newest removal first
    by_id = {n["id"]: n for n in listed}
    assert by_id[race]["title"] == "Rerun a flaky test alone" and by_id[race]["revision"] == 1
    assert by_id[race]["removed_by"] == BY and by_id[deploy]["removed_by"] == "person"
    assert by_id[race]["reach"] == "this repository" and by_id[race]["removed_seq"] == 5
    assert by_id[race]["live_as"] is None
    text = abcd("memory", "removed", "--by", "claude").out
    assert race in text and deploy not in text
    assert f"bring it back: abcd memory restore {race}" in text
    assert "| Rerun it alone first." in text
    assert json.loads(abcd("memory", "removed", "--since", "2999-01-01", "--json").out) == {
        "notes": []
    }
    late = abcd("memory", "removed", "--since", "tomorrow")
    assert late.code == 2 and "not a time" in late.err


def test_a_removed_note_that_was_promoted_says_so_in_removed_and_before_a_restore(
    abcd: Run, repo: Path
) -> None:
    """A promotion reviews the note as it stands; a restore said "not reviewed as it stood", and
    `memory removed` left the promotion out, so a reviewer did not see it had been promoted."""
    note_id = add(abcd)
    code, out = at_a_terminal(["memory", "promote", note_id], "yes", repo)
    assert code == 0, out
    removed_by_agent(abcd, note_id)
    (promoted,) = [r for r in audit(abcd) if r["type"] == "note.promoted"]
    line = f"  promoted by person at {promoted['at']}: reviewed as it stood"
    assert line in abcd("memory", "removed").out.splitlines()
    assert line in abcd("memory", "show", note_id).out.splitlines()
    code, out = restore(note_id, repo, "no")
    assert code == 1 and line in out.splitlines(), out
    assert "not reviewed as it stood" not in out

"""`abcd memory merge`: two branches' promoted notes merged by id, as git's merge driver.

Through real git merges of branches that each promoted a note at a terminal,
and the merge's rule itself as properties over random bases and sides.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from abcd.notes.merge import merge_keyed
from abcd.notes.project import ProjectNote, ProjectText, Written
from abcd.notes.promote import encode_project_file, written_note
from tests.conftest import Run, git
from tests.hook.conftest import Host
from tests.review.test_desk_cli import add, at_a_terminal

PROJECT = ".abcd/memory.json"


def file_of(*notes: ProjectNote) -> bytes:
    """A project file holding `notes`, as promotion writes one."""
    text = ProjectText.new()
    return encode_project_file(
        ProjectText(text.keys, text.notes_at, tuple((n.id, written_note(n)) for n in notes)),
        PROJECT,
    )


def with_driver(repo: Path) -> None:
    """The set-up docs/review.md gives: the attribute committed, the driver in this clone's config."""
    (repo / ".gitattributes").write_text(f"{PROJECT} merge=abcd-memory\n")
    git(repo, "add", ".gitattributes")
    git(repo, "commit", "-q", "-m", "merge promoted notes by id")
    driver = f"{shlex.quote(sys.executable)} -m abcd memory merge %O %A %B"
    git(repo, "config", "merge.abcd-memory.driver", driver)


def promote_on(repo: Path, abcd: Run, branch: str, title: str, word: str) -> str:
    """A note added and promoted at a terminal on a new branch from main, committed there."""
    git(repo, "switch", "-q", "-c", branch, "main")
    note_id = add(abcd, title, recall=(word,), body=f"What to do about {word}.")
    code, out = at_a_terminal(["memory", "promote", note_id], "yes", repo)
    assert code == 0, out
    git(repo, "add", PROJECT)
    git(repo, "commit", "-q", "-m", f"promote {title}")
    return note_id


def merge(repo: Path, branch: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "merge", "--no-edit", branch], cwd=repo, capture_output=True, text=True
    )


def project_ids(repo: Path) -> list[str]:
    return [note["id"] for note in json.loads((repo / PROJECT).read_text())["notes"]]


def edit_body(repo: Path, note_id: str, body: str | None) -> None:
    """Change a project note's body in the file (or remove the note: `None`), and commit it."""
    data = json.loads((repo / PROJECT).read_text())
    notes = [n for n in data["notes"] if n["id"] != note_id or body is not None]
    for note in notes:
        if note["id"] == note_id:
            note["body"] = body
    (repo / PROJECT).write_text(json.dumps({**data, "notes": notes}, indent=2) + "\n")
    git(repo, "commit", "-q", "-am", f"edit {note_id}")


def test_two_branches_that_each_promoted_a_note_merge_with_both(abcd: Run, repo: Path) -> None:
    first = promote_on(repo, abcd, "lint", "Lint before each commit", "lint")
    second = promote_on(repo, abcd, "race", "The tests need the race flag", "race")
    without = merge(repo, "lint")
    assert without.returncode != 0 and "CONFLICT" in without.stdout  # git's line merge alone
    git(repo, "merge", "--abort")

    git(repo, "switch", "-q", "main")
    with_driver(repo)
    git(repo, "switch", "-q", "race")
    git(repo, "merge", "-q", "--no-edit", "main")  # the attribute, on this branch too
    done = merge(repo, "lint")

    assert done.returncode == 0, done.stdout + done.stderr
    assert "merged the other side's notes: 1 added, 0 changed, 0 removed" in done.stdout
    assert project_ids(repo) == [second, first]
    listed = abcd("memory", "list", "--json")
    assert listed.code == 0, listed.err
    layers = {(n["id"], n["layer"]) for n in json.loads(listed.out)["notes"]}
    assert {(first, "project"), (second, "project")} <= layers


def test_a_file_left_with_git_s_conflict_markers_is_named_so_by_every_reader(
    abcd: Run, repo: Path, host: Host
) -> None:
    promote_on(repo, abcd, "lint", "Lint before each commit", "lint")
    promote_on(repo, abcd, "race", "The tests need the race flag", "race")
    assert merge(repo, "lint").returncode != 0  # no driver: git's line merge leaves its markers
    line = (repo / PROJECT).read_text().splitlines().index("<<<<<<< HEAD") + 1
    said = f"{repo / PROJECT}: holds git's conflict markers (<<<<<<< on line {line})"

    out, err = host.plain("lint and race")
    assert "race" in out  # this side's note, as the person's own, still comes back
    assert said in err and "abcd memory merge" in err
    listed = abcd("memory", "list")
    assert listed.code == 1 and said in listed.err
    assert len(listed.err.strip().splitlines()) == 1
    prompt = abcd("rules", "--prompt", "lint", "--all")
    assert said in prompt.out + prompt.err


def test_show_says_when_the_project_s_text_is_not_the_one_promoted_from_this_home(
    abcd: Run, repo: Path
) -> None:
    note_id = promote_on(repo, abcd, "lint", "Lint before each commit", "lint")
    said = "its text is not the one promoted from this home (revision 0)"
    assert said not in abcd("memory", "show", note_id).out

    edit_body(repo, note_id, "A teammate's words, committed by hand.")  # as a pull brings it
    shown = abcd("memory", "show", note_id)
    assert shown.code == 0, shown.err
    assert said in shown.out and "git log -p -- .abcd/memory.json" in shown.out


def test_a_note_changed_on_both_sides_is_a_conflict_that_keeps_a_file_the_hook_reads(
    abcd: Run, repo: Path
) -> None:
    with_driver(repo)
    note_id = promote_on(repo, abcd, "base", "Lint before each commit", "lint")
    git(repo, "switch", "-q", "-c", "theirs")
    edit_body(repo, note_id, "Run ruff and mypy before each commit.")
    git(repo, "switch", "-q", "-c", "ours", "base")
    edit_body(repo, note_id, "Run ruff before each push.")

    done = merge(repo, "theirs")

    assert done.returncode != 0
    assert f"abcd: {note_id}: changed on both sides, differently; kept this side's" in done.stderr
    assert f"git show :3:{PROJECT}" in done.stderr
    assert "1 note(s) changed on both sides" in done.stderr
    kept = json.loads((repo / PROJECT).read_text())["notes"]
    assert [n["body"] for n in kept] == ["Run ruff before each push."]
    assert "ruff and mypy" in git(repo, "show", f":3:{PROJECT}")
    assert abcd("memory", "list").code == 0


def test_a_removal_on_one_side_and_a_promotion_on_the_other_both_land(
    abcd: Run, repo: Path
) -> None:
    with_driver(repo)
    gone = promote_on(repo, abcd, "base", "Lint before each commit", "lint")
    git(repo, "switch", "-q", "main")
    git(repo, "merge", "-q", "--no-edit", "base")
    new = promote_on(repo, abcd, "new", "The tests need the race flag", "race")
    git(repo, "switch", "-q", "-c", "removal", "base")
    edit_body(repo, gone, None)

    done = merge(repo, "new")

    assert done.returncode == 0, done.stderr
    assert "1 added, 0 changed, 0 removed" in done.stdout
    assert project_ids(repo) == [new]
    git(repo, "switch", "-q", "new")
    assert merge(repo, "removal").returncode == 0
    assert project_ids(repo) == [new]


def test_a_side_that_is_not_a_project_file_is_named_and_nothing_is_written(
    abcd: Run, tmp_path: Path
) -> None:
    note = ProjectNote(
        id="mem-2612011200000001", title="Lint first", body="Run ruff.", recall=("lint",)
    )
    base, ours, theirs = tmp_path / "base", tmp_path / "ours", tmp_path / "theirs"
    base.write_bytes(b"")
    ours.write_bytes(file_of(note))
    theirs.write_text('{"schema_version": 1, "notes": [')
    before = ours.read_bytes()

    bad = abcd("memory", "merge", str(base), str(ours), str(theirs))

    assert bad.code == 1 and bad.out == ""
    assert bad.err.startswith(f"abcd: {theirs}: not a memory file") and bad.err.count("\n") == 1
    assert ours.read_bytes() == before

    twice = json.loads(file_of(note))
    twice["notes"] *= 2  # by hand: abcd never writes a file its readers refuse
    theirs.write_text(json.dumps(twice))
    bad = abcd("memory", "merge", str(base), str(ours), str(theirs))
    assert bad.code == 1 and f"notes[1].id {note.id} is notes[0]'s too" in bad.err
    assert ours.read_bytes() == before


def test_a_link_in_place_of_this_side_is_refused_and_not_followed(
    abcd: Run, tmp_path: Path
) -> None:
    target = tmp_path / "elsewhere.json"
    target.write_bytes(file_of())
    link = tmp_path / "ours"
    link.symlink_to(target)
    note = ProjectNote(
        id="mem-2612011200000001", title="Lint first", body="Run ruff.", recall=("lint",)
    )
    (tmp_path / "base").write_bytes(b"")
    (tmp_path / "theirs").write_bytes(file_of(note))

    bad = abcd("memory", "merge", str(tmp_path / "base"), str(link), str(tmp_path / "theirs"))

    assert bad.code == 1 and "is not a regular file (a link is not followed)" in bad.err
    assert link.is_symlink() and target.read_bytes() == file_of()


# --- the rule itself ------------------------------------------------------------------------

IDS = [f"mem-26120112000000{n:02d}" for n in range(6)]
VERSIONS = st.sampled_from(["one", "two", "three"])


Entries = tuple[tuple[str, Written], ...]


def notes_of(versions: dict[str, str]) -> Entries:
    return tuple(
        (note_id, Written.of(json.dumps({"id": note_id, "body": body}).encode()))
        for note_id, body in versions.items()
    )


SIDES = st.dictionaries(st.sampled_from(IDS), VERSIONS, max_size=len(IDS)).map(notes_of)


@given(SIDES, SIDES, SIDES)
def test_each_note_takes_the_side_that_changed_it_and_only_a_double_change_conflicts(
    base: Entries, ours: Entries, theirs: Entries
) -> None:
    done = merge_keyed(base, ours, theirs)
    was, here, there = dict(base), dict(ours), dict(theirs)
    result = dict(done.entries)
    assert len(result) == len(done.entries)  # no id twice
    conflicted = {c.note_id for c in done.conflicts}
    for note_id in set(was) | set(here) | set(there):
        old, mine, other = was.get(note_id), here.get(note_id), there.get(note_id)
        clean = mine in (other, old) or other == old
        assert (note_id not in conflicted) == clean
        expected = other if mine == old else mine  # a conflict keeps this side's
        assert result.get(note_id) == expected
    # this side's notes keep their order; the other side's new ones follow in theirs
    order = [note_id for note_id, _ in done.entries]
    assert order == [i for i in [*here, *(i for i in there if i not in here)] if i in result]


@given(SIDES, SIDES)
def test_a_side_that_did_nothing_gives_the_other_side(base: Entries, side: Entries) -> None:
    assert merge_keyed(base, side, base).entries == side  # theirs did nothing: ours exactly
    assert merge_keyed(base, side, side).entries == side  # both did the same
    taken = merge_keyed(base, base, side)  # ours did nothing: theirs' notes
    assert set(taken.entries) == set(side) and not taken.conflicts


@given(SIDES, SIDES, SIDES)
def test_without_conflicts_the_merge_is_the_same_both_ways(
    base: Entries, ours: Entries, theirs: Entries
) -> None:
    one, other = merge_keyed(base, ours, theirs), merge_keyed(base, theirs, ours)
    assert bool(one.conflicts) == bool(other.conflicts)
    if not one.conflicts:
        assert set(one.entries) == set(other.entries)


def test_a_merge_that_stopped_before_the_driver_is_finished_from_git_s_stages(
    abcd: Run, repo: Path
) -> None:
    first = promote_on(repo, abcd, "lint", "Lint before each commit", "lint")
    second = promote_on(repo, abcd, "race", "The tests need the race flag", "race")
    assert merge(repo, "lint").returncode != 0  # no driver: git's line merge stops

    # The two lines docs/review.md gives, in bash (the stages come through pipes).
    recipe = (
        f"git show :2:{PROJECT} > {PROJECT} && "
        f"{shlex.quote(sys.executable)} -m abcd memory merge "
        f"<(git show :1:{PROJECT} 2>/dev/null) {PROJECT} <(git show :3:{PROJECT})"
    )
    done = subprocess.run(["bash", "-c", recipe], cwd=repo, capture_output=True, text=True)

    assert done.returncode == 0, done.stderr
    assert done.stdout == "merged the other side's notes: 1 added, 0 changed, 0 removed\n"
    assert project_ids(repo) == [second, first]


# --- every key, as written -------------------------------------------------------------------

NOTE = {"id": "mem-2612011200000001", "title": "Lint first", "body": "Run ruff.", "recall": ["w"]}


def sides(
    tmp_path: Path, base: dict[str, Any], ours: dict[str, Any], theirs: dict[str, Any]
) -> tuple[Path, Path, Path]:
    """The three files git hands the driver, compact, as a person might write them."""
    paths = tmp_path / "base", tmp_path / "ours", tmp_path / "theirs"
    for path, data in zip(paths, (base, ours, theirs), strict=True):
        path.write_text(json.dumps(data, separators=(",", ":")))
    return paths


def test_a_change_to_a_key_this_abcd_does_not_know_is_taken_from_the_side_that_made_it(
    abcd: Run, repo: Path
) -> None:
    """A newer abcd (or a person) set a key in a note and in the file on one branch; a merge by
    an abcd that does not know the keys takes both, and adds no key to a note that had none."""
    with_driver(repo)
    (repo / ".abcd").mkdir()
    (repo / PROJECT).write_text(json.dumps({"schema_version": 1, "notes": [NOTE]}) + "\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a hand-written note")
    git(repo, "switch", "-q", "-c", "newer")
    newer = {"schema_version": 1, "team": "x", "notes": [{**NOTE, "promoted_by": "person"}]}
    (repo / PROJECT).write_text(json.dumps(newer, indent=2) + "\n")
    git(repo, "commit", "-q", "-am", "a newer abcd's keys")
    promote_on(repo, abcd, "ours", "The tests need the race flag", "race")

    done = merge(repo, "newer")

    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 added, 1 changed, 0 removed; and 1 of the file's own key(s)" in done.stdout
    merged = json.loads((repo / PROJECT).read_text())
    assert merged["team"] == "x"
    assert merged["notes"][0] == {**NOTE, "promoted_by": "person"}  # no origin, no stamps


def test_a_key_this_abcd_does_not_know_changed_on_both_sides_is_a_conflict(
    abcd: Run, tmp_path: Path
) -> None:
    base, ours, theirs = sides(
        tmp_path,
        {"schema_version": 1, "team": "x", "notes": [NOTE]},
        {"schema_version": 1, "team": "y", "notes": [{**NOTE, "promoted_by": "ann"}]},
        {"schema_version": 1, "team": "z", "notes": [{**NOTE, "promoted_by": "bob"}]},
    )

    done = abcd("memory", "merge", str(base), str(ours), str(theirs))

    assert done.code == 1
    assert f"abcd: {NOTE['id']}: changed on both sides, differently; kept this side's" in done.err
    assert "abcd: the file's key 'team': changed on both sides, differently" in done.err
    assert "2 note(s) or key(s) changed on both sides" in done.err
    kept = json.loads(ours.read_text())
    assert kept["team"] == "y" and kept["notes"] == [{**NOTE, "promoted_by": "ann"}]


def test_a_number_no_reader_reads_as_a_value_in_an_unknown_key_is_merged_as_written(
    abcd: Run, tmp_path: Path
) -> None:
    """`1e999` or an int past 4,300 digits, in a key the readers pass over: the hook and `list`
    read the file, and the merge died with msgspec's traceback comparing the notes."""
    huge = "1" + "0" * 4400
    one = '{"id":"mem-0000000000000001","title":"t1","body":"b","recall":["w"],"x":1e999}'
    two = '{"id":"mem-0000000000000002","title":"t2","body":"b","recall":["w"]}'
    three = '{"id":"mem-0000000000000003","title":"t3","body":"b","recall":["w"]}'
    base, ours, theirs = tmp_path / "base", tmp_path / "ours", tmp_path / "theirs"
    base.write_text(f'{{"schema_version":1,"k":{huge},"notes":[{one}]}}')
    ours.write_text(f'{{"schema_version":1,"k":{huge},"notes":[{one},{two}]}}')
    theirs.write_text(f'{{"schema_version":1,"k":{huge},"notes":[{one},{three}]}}')

    done = abcd("memory", "merge", str(base), str(ours), str(theirs))

    assert done.code == 0 and "Traceback" not in done.err, done.err
    merged = ours.read_text()
    assert '"x": 1e999' in merged and huge in merged
    assert merged.count('"id": "mem-000000000000000') == 3


def test_a_merge_that_would_write_a_file_no_reader_reads_writes_nothing(
    abcd: Run, tmp_path: Path
) -> None:
    """A compact value the layout indents one item a line grew past the readers' bound: the
    merge said "merged" and wrote 75 MB that every reader, the hook included, then refused."""
    deep = "[" * 57 + ",".join(["0"] * 600_000) + "]" * 57
    one = f'{{"id":"mem-0000000000000001","title":"t1","body":"b","recall":["w"],"x":{deep}}}'
    two = '{"id":"mem-0000000000000002","title":"t2","body":"b","recall":["w"]}'
    base, ours, theirs = tmp_path / "base", tmp_path / "ours", tmp_path / "theirs"
    base.write_text(f'{{"schema_version":1,"notes":[{one}]}}')
    ours.write_text(f'{{"schema_version":1,"notes":[{one}]}}')
    theirs.write_text(f'{{"schema_version":1,"notes":[{one},{two}]}}')
    before = ours.read_bytes()

    done = abcd("memory", "merge", str(base), str(ours), str(theirs))

    assert done.code == 1 and done.err.count("\n") == 1, done.err
    assert "past the 67108864 every reader reads: nothing was written" in done.err
    assert ours.read_bytes() == before

"""`abcd memory` through the real command: add, import, list, remove and the bare summary."""

from __future__ import annotations

import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from abcd.cli.memory_cmd import split_lines
from abcd.repo import PRIVATE_NAMES_REL
from tests.conftest import BY, Run, git
from tests.foreign import OWNED_BY_OTHER, give_away
from tests.gate.samples import mixed, prefixed

ID = re.compile(r"^mem-[0-9]{16}$")


def add(
    abcd: Run,
    title: str = "The tests need the race flag",
    *extra: str,
    body: str = "Run go test -race.",
    recall: tuple[str, ...] = ("test", "race"),
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
):  # type: ignore[no-untyped-def]
    args = ["memory", "add", "--title", title, "--by", BY, *extra]
    for word in recall:
        args += ["--recall", word]
    return abcd(*args, stdin=body, env=env, cwd=cwd)


def listed(abcd: Run, cwd: Path | None = None) -> list[dict[str, object]]:
    result = abcd("memory", "list", "--json", cwd=cwd)
    assert result.code == 0, result.err
    notes: list[dict[str, object]] = json.loads(result.out)["notes"]
    return notes


def test_add_prints_a_new_id_and_the_note_records_who_when_and_which_session(
    abcd: Run, repo: Path
) -> None:
    result = add(abcd, env={"CLAUDE_CODE_SESSION_ID": "3f2a9c1e-0b7d-4c55-9a51-1f0e2d3c4b5a"})
    assert result.code == 0, result.err
    assert ID.match(result.out.strip())
    (note,) = listed(abcd)
    assert note["id"] == result.out.strip()
    assert note["written_by"] == BY
    assert note["session"] == "3f2a9c1e-0b7d-4c55-9a51-1f0e2d3c4b5a"
    assert note["root"] == git(repo, "rev-list", "--max-parents=0", "HEAD")
    assert note["layer"] == "machine" and note["reach"] == "this repository"
    assert note["origin"] == "agent"
    assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$", str(note["written_at"]))


def test_the_session_flag_wins_over_the_environment(abcd: Run, repo: Path) -> None:
    add(abcd, "t", "--session", "flag-session", env={"CLAUDE_CODE_SESSION_ID": "env-session"})
    assert listed(abcd)[0]["session"] == "flag-session"


def test_without_a_session_the_note_says_session_unknown(abcd: Run, repo: Path) -> None:
    result = add(abcd)
    assert result.code == 0 and "session unknown" in result.err
    assert listed(abcd)[0]["session"] is None
    assert "session unknown" in abcd("memory", "list").out
    # A person writing at a terminal has no session to give: the notice would be noise.
    mine = abcd("memory", "add", "--title", "Mine", "--recall", "mine", "--by", "person", stdin="b")
    assert mine.code == 0 and "session unknown" not in mine.err


def test_a_note_with_few_recall_words_lands_and_the_writer_is_told_how_to_give_more(
    abcd: Run, repo: Path
) -> None:
    few = add(abcd, "Gradle needs 2 GB of heap", recall=("gradle", "heap"))
    assert few.code == 0
    note_id = few.out.strip()
    assert ID.match(note_id) and [n["id"] for n in listed(abcd)] == [note_id]
    assert f"{note_id} has 2 recall word(s)" in few.err
    assert f"abcd memory revise {note_id}" in few.err

    enough = add(abcd, "Java build out of memory", recall=("gradle", "heap", "jvmargs", "oom"))
    assert enough.code == 0 and "recall word(s)" not in enough.err


def test_a_link_shaped_session_is_refused(abcd: Run, repo: Path) -> None:
    result = add(abcd, "t", "--session", "https://claude.ai/chat/abc")
    assert result.code == 1 and "--session" in result.err
    assert listed(abcd) == []


def test_everywhere_stores_no_root_and_says_only_this_checkouts_names_were_checked(
    abcd: Run, repo: Path
) -> None:
    result = add(abcd, "t", "--everywhere")
    assert result.code == 0
    assert "only this checkout's private names were checked" in result.err
    note = listed(abcd)[0]
    assert note["root"] is None and note["reach"] == "everywhere"


def test_outside_a_repository_add_refuses_and_points_at_everywhere(
    abcd: Run, tmp_path: Path
) -> None:
    result = add(abcd, cwd=tmp_path)
    assert result.code == 1
    assert "--everywhere" in result.err and len(result.err.strip().splitlines()) == 1


def test_a_shallow_clone_ties_no_note_to_the_commit_its_history_was_cut_at(
    abcd: Run, repo: Path, tmp_path: Path
) -> None:
    root = git(repo, "rev-parse", "HEAD")
    git(repo, "commit", "-q", "--allow-empty", "-m", "second")
    tied = add(abcd, "Tied in the full clone", recall=("deep",))
    assert tied.code == 0, tied.err
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow))

    result = add(abcd, "Written in the shallow clone", recall=("shallow",), cwd=shallow)
    assert result.code == 1, result.out
    assert "shallow" in result.err and "git fetch --unshallow" in result.err
    assert len(result.err.strip().splitlines()) == 1
    assert [n["root"] for n in listed(abcd)] == [root]

    withheld = abcd("rules", "--prompt", "deep", cwd=shallow)
    assert "notes tied to this repository withheld: this clone is shallow" in withheld.err
    listing = abcd("memory", "list", cwd=shallow)
    assert "root commit is unknown, so its notes are shown as another's" in listing.err
    assert "git fetch --unshallow" in listing.err


@pytest.mark.parametrize(
    ("title", "body", "recall", "named"),
    [
        ("x" * 121, "b", ("w",), "title is 121 characters; the limit is 120"),
        ("two\nlines", "b", ("w",), "title must be one line"),
        ("t", "b" * 2049, ("w",), "body is 2049 bytes; the limit is 2048"),
        ("t", "   ", ("w",), "body is empty (the body comes on stdin)"),
        ("t", "b", tuple(f"w{i}" for i in range(13)), "recall has 13 words; a note takes 1 to 12"),
        ("t", "b", ("w" * 65,), "recall[0] is 65 characters; the limit is 64"),
        ("t", "b", ("ok", "--"), "recall[1] holds no letter or digit"),
        # Letters to Python's isalnum() that the recall rule reads as none (NFKC makes U+037A a
        # space and a mark, and a mark never starts a word): such a word can never be hit, and
        # the writer's look-up of a live twin through the index found no note by it.
        ("t", "b", ("\u037a", "race"), "recall[0] holds no letter or digit"),
        ("t", "b", ("Race", "race"), "recall[1] repeats an earlier recall word"),
    ],
)
def test_every_limit_is_refused_naming_the_field_and_the_limit(
    abcd: Run, repo: Path, title: str, body: str, recall: tuple[str, ...], named: str
) -> None:
    result = add(abcd, title, body=body, recall=recall)
    assert result.code == 1
    assert named in result.err
    assert len(result.err.strip().splitlines()) == 1
    assert listed(abcd) == []


def test_a_badly_shaped_writer_is_refused(abcd: Run, repo: Path) -> None:
    result = abcd("memory", "add", "--title", "t", "--recall", "w", "--by", "someone", stdin="b")
    assert result.code == 1 and "--by" in result.err


def test_add_takes_no_path_operand(abcd: Run, repo: Path) -> None:
    (repo / "lesson.txt").write_text("a lesson")
    result = abcd(
        "memory", "add", "lesson.txt", "--title", "t", "--recall", "w", "--by", BY, stdin="b"
    )
    assert result.code == 2
    assert listed(abcd) == []


def test_moved_from_host_files_pasted_text_with_its_origin(abcd: Run, repo: Path) -> None:
    result = add(abcd, "Prefer uv over pip", "--moved-from-host", body="Use uv pip install.")
    assert result.code == 0, result.err
    note = listed(abcd)[0]
    assert note["origin"] == "host-memory-move" and note["body"] == "Use uv pip install."


def test_remove_drops_a_personal_note_and_the_journal_keeps_both_events(
    abcd: Run, repo: Path
) -> None:
    note_id = add(abcd).out.strip()
    result = abcd("memory", "remove", note_id)
    assert result.code == 0 and note_id in result.out
    assert listed(abcd) == []
    audit = json.loads(abcd("journal", "audit", "--note", note_id, "--json").out)["events"]
    assert [e["type"] for e in audit] == ["note.added", "note.removed"]
    assert audit[1]["by"] == "person"


def test_remove_refuses_an_unknown_id_and_a_removed_one(
    abcd: Run, repo: Path, abcd_home: Path
) -> None:
    assert abcd("memory", "remove", "mem-0000000000000000").code == 1
    assert not abcd_home.exists()  # a refusal creates nothing
    note_id = add(abcd).out.strip()
    assert abcd("memory", "remove", note_id).code == 0
    again = abcd("memory", "remove", note_id)
    assert again.code == 1 and "already removed" in again.err


def project_file(repo: Path, *notes: dict[str, object]) -> None:
    (repo / ".abcd").mkdir(exist_ok=True)
    (repo / ".abcd" / "memory.json").write_text(
        json.dumps({"schema_version": 1, "notes": list(notes)})
    )


PROMOTED = {
    "id": "mem-2611010000001234",
    "title": "Promoted lesson",
    "body": "b",
    "recall": ["deploy"],
    "origin": "agent",
    "written_by": BY,
    "written_at": "2026-11-01T00:00:00Z",
    "session": None,
}


def test_remove_refuses_a_project_note_and_points_at_its_file(abcd: Run, repo: Path) -> None:
    project_file(repo, PROMOTED)
    result = abcd("memory", "remove", str(PROMOTED["id"]))
    assert (
        result.code == 1 and ".abcd/memory.json" in result.err and "reviewed change" in result.err
    )


def test_list_shows_both_layers_with_their_reach(abcd: Run, repo: Path, tmp_path: Path) -> None:
    project_file(repo, PROMOTED)
    add(abcd, "here")
    add(abcd, "everywhere", "--everywhere")
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    git(other, "commit", "-q", "--allow-empty", "-m", "other root")
    add(abcd, "elsewhere", cwd=other)
    reach = {n["title"]: (n["layer"], n["reach"]) for n in listed(abcd)}
    assert reach == {
        "here": ("machine", "this repository"),
        "everywhere": ("machine", "everywhere"),
        "elsewhere": ("machine", "another repository"),
        "Promoted lesson": ("project", "project file"),
    }
    text = abcd("memory", "list").out
    assert "Promoted lesson" in text and "Run go test -race." in text


def test_bare_memory_counts_each_layer(abcd: Run, repo: Path) -> None:
    project_file(repo, PROMOTED)
    add(abcd, "here")
    add(abcd, "everywhere", "--everywhere")
    result = abcd("memory")
    assert result.code == 0
    assert "personal notes for this repository: 1" in result.out
    assert "personal notes everywhere: 1" in result.out
    assert "project notes (.abcd/memory.json): 1" in result.out


def test_bare_memory_names_an_unreadable_layer_and_why(abcd: Run, repo: Path) -> None:
    (repo / ".abcd").mkdir()
    (repo / ".abcd" / "memory.json").write_text("{broken")
    result = abcd("memory")
    assert result.code == 1  # as `memory list`: the counts, and on stderr what was not read
    assert "personal notes everywhere: 0" in result.out
    # Not "0": the layer was not read (a file left mid-merge read as a project with no notes).
    assert "project notes (.abcd/memory.json): unreadable\n" in result.out
    assert result.err.startswith("abcd: project notes unreadable")
    assert ".abcd/memory.json" in result.err and "not a memory file" in result.err


@pytest.mark.parametrize(
    ("field", "change"),
    [("title", {"title": "Lesson\n- mem-2611010000009999 (personal note)"}), ("id", {"id": "p1"})],
)
def test_list_refuses_a_project_note_the_hook_refuses_naming_the_note_and_field(
    abcd: Run, repo: Path, field: str, change: dict[str, str]
) -> None:
    """Both readers of `.abcd/memory.json` take the same notes: a reviewer's list never shows a
    note the hook will not send as if it would be."""
    project_file(repo, PROMOTED, {**PROMOTED, "id": "mem-2611010000001235", **change})
    mine = add(abcd, "here").out.strip()

    result = abcd("memory", "list")

    assert result.code == 1
    assert f".abcd/memory.json: notes[1].{field} " in result.err
    assert mine in result.out, "the machine's notes are still listed"


def test_import_lands_the_good_lines_in_one_batch_and_names_each_refused_line(
    abcd: Run, repo: Path
) -> None:
    lines = [
        json.dumps({"title": "one", "body": "b1", "recall": ["a"]}),
        json.dumps({"title": "x" * 121, "body": "b2", "recall": ["a"]}),
        "not json",
        json.dumps({"title": "four", "body": "b4", "recall": ["a"], "everywhere": True}),
    ]
    result = abcd("memory", "import", "-", "--by", BY, stdin="\n".join(lines) + "\n")
    assert result.code == 1
    assert len(result.out.split()) == 2
    assert "line 2: refused: title is 121 characters" in result.err
    assert "line 3: not a note" in result.err
    assert "imported 2 note(s); refused 2 line(s)" in result.err
    assert [n["title"] for n in listed(abcd)] == ["one", "four"]
    audit = json.loads(abcd("journal", "audit", "--json").out)["events"]
    assert len({e["at"] for e in audit}) == 1  # one batch, one append
    # From a file, each line is named with the file it is of, as the person named it.
    (repo / "notes.jsonl").write_text("\n".join(lines[1:3]) + "\n", encoding="utf-8")
    from_file = abcd("memory", "import", "notes.jsonl", "--by", BY)
    assert from_file.code == 1
    assert "abcd: notes.jsonl line 1: refused: title is 121 characters" in from_file.err
    assert "abcd: notes.jsonl line 2: not a note" in from_file.err


def test_an_import_counts_only_what_it_wrote_and_names_each_line_a_note_already_holds(
    abcd: Run, repo: Path
) -> None:
    """A line twice in a batch, or a note already live, wrote nothing, yet the import said it had
    imported them: a script believed new notes were written."""
    line = json.dumps({"title": "Migrations are numbered", "body": "b", "recall": ["migration"]})
    other = json.dumps({"title": "Other", "body": "b", "recall": ["other"]})
    first = abcd("memory", "import", "-", "--by", BY, stdin=f"{line}\n{line}\n")
    assert first.code == 0, first.err
    (held,) = set(first.out.split())
    assert f"abcd: line 2: {held} already holds this text and reach: nothing written" in first.err
    assert "imported 1 note(s); 1 line(s) already held, nothing written for them" in first.err
    before = json.loads(abcd("journal", "audit", "--json").out)["events"]
    assert len(before) == 1

    again = abcd("memory", "import", "-", "--by", BY, "--json", stdin=f"{line}\n{other}\n")
    out = json.loads(again.out)
    assert again.code == 0 and out["imported"][0] == held and out["written"] == 1
    assert out["already_held"] == [{"line": 1, "id": held}]
    assert "imported 1 note(s); 1 line(s) already held" in again.err
    added = json.loads(abcd("journal", "audit", "--json").out)["events"][len(before) :]
    assert [(e["type"], e["note"]) for e in added] == [("note.added", out["imported"][1])]

    nothing = abcd("memory", "import", "-", "--by", BY, stdin=f"{line}\n")
    assert nothing.code == 0 and nothing.out.split() == [held]
    assert "imported 0 note(s); 1 line(s) already held" in nothing.err


def test_an_import_of_many_bad_lines_names_the_first_counts_the_rest_and_stays_small(
    abcd: Run, repo: Path
) -> None:
    """A reason was kept and printed for every refused line: 30 million one-byte lines (60 MB,
    under the input's bound) took 6.7 GB and 91 s. Past the first hundred they are counted."""
    good = json.dumps({"title": "the one good line", "body": "b", "recall": ["a"]})
    bad_lines = 2_000_000
    text = "x\n" * (bad_lines // 2) + good + "\n" + "x\n" * (bad_lines // 2)
    script = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run([sys.executable, '-m', 'abcd', 'memory', 'import', '-', '--by', "
        f"{BY!r}, '--json'], input=sys.stdin.buffer.read(), capture_output=True)\n"
        "sys.stdout.buffer.write(done.stdout)\n"
        "sys.stderr.buffer.write(done.stderr)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
        "sys.exit(done.returncode)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], input=text.encode(), capture_output=True, cwd=repo
    )
    err = [line for line in done.stderr.decode().splitlines() if "session unknown" not in line]
    assert done.returncode == 1
    peak_kib = int(err[-1])
    assert peak_kib < 200 * 1024, peak_kib  # 43 MB now; a reason a line took 484 MB
    bad = "not a note (JSON is malformed: invalid character (byte 0))"
    assert err[:100] == [f"abcd: line {n}: {bad}" for n in range(1, 101)]
    assert err[100] == f"abcd: ... and {bad_lines - 100} more refused line(s), not named"
    assert err[101] == f"abcd: imported 1 note(s); refused {bad_lines} line(s)"
    out = json.loads(done.stdout)
    assert len(out["imported"]) == 1 and len(out["refused"]) == 100
    assert out["refused_lines"] == bad_lines
    assert [n["title"] for n in listed(abcd)] == ["the one good line"]


@given(
    st.text(alphabet=st.sampled_from("ab \n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"), max_size=40)
)
def test_an_import_is_split_into_the_lines_splitlines_gives(text: str) -> None:
    assert list(split_lines(text)) == text.splitlines()


def test_an_import_file_saved_with_a_byte_order_mark_lands_whole(abcd: Run, repo: Path) -> None:
    """A JSONL file saved by a Windows editor starts with a byte order mark: its first note was
    refused ("invalid character (byte 0)") while the rest landed, so the batch came in part."""
    lines = [
        json.dumps({"title": "one", "body": "b1", "recall": ["a"]}),
        json.dumps({"title": "two", "body": "b2", "recall": ["b"]}),
    ]
    (repo / "notes.jsonl").write_bytes(b"\xef\xbb\xbf" + "\n".join(lines).encode() + b"\n")
    result = abcd("memory", "import", "notes.jsonl", "--by", BY)
    assert result.code == 0, result.err
    assert [n["title"] for n in listed(abcd)] == ["one", "two"]
    # From stdin alike; a mark anywhere but the very start is still not JSON.
    more = [json.dumps({"title": t, "body": t, "recall": ["c"]}) for t in ("three", "four")]
    piped = abcd("memory", "import", "-", "--by", BY, stdin=f"\ufeff{more[0]}\n\ufeff{more[1]}")
    assert piped.code == 1
    assert "line 1" not in piped.err and "line 2: not a note" in piped.err
    assert [n["title"] for n in listed(abcd)] == ["one", "two", "three"]


def endless_stdin(*args: str) -> subprocess.CompletedProcess[str]:
    """`yes | abcd ARGS`: a body on stdin that never ends (a script piping the wrong command)."""
    yes = subprocess.Popen(["yes"], stdout=subprocess.PIPE)
    try:
        return subprocess.run(
            [sys.executable, "-m", "abcd", *args],
            stdin=yes.stdout,
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        assert yes.stdout is not None
        yes.stdout.close()
        yes.kill()
        yes.wait()


def test_a_body_on_stdin_that_never_ends_is_refused_not_read_forever(
    abcd: Run, repo: Path, abcd_home: Path
) -> None:
    """`memory add` and `revise` read stdin whole: an endless pipe held the command (and its
    memory, growing) until it was killed. stdin is read to a bound, past which it is refused."""
    note_id = add(abcd).out.strip()
    before = sorted((p.name, p.read_bytes()) for p in abcd_home.rglob("*") if p.is_file())
    for args in (
        ("memory", "add", "--title", "t", "--recall", "w", "--by", BY),
        ("memory", "revise", note_id, "--by", BY),
    ):
        done = endless_stdin(*args)
        assert done.returncode == 1, done.stderr
        assert done.stderr == (
            "abcd: refused: body is more than 1048576 characters on stdin; the limit is 2048 "
            "bytes (2 KiB)\n"
        )
    assert sorted((p.name, p.read_bytes()) for p in abcd_home.rglob("*") if p.is_file()) == before


def test_a_closed_stdin_reads_as_an_empty_one(abcd: Run, repo: Path) -> None:
    """Run with stdin closed (`<&-`, a launcher that closes it), `add`, `revise` and `import -`
    ended in a traceback (`sys.stdin` is None): read as empty, each says what it says then."""
    note_id = add(abcd).out.strip()

    def closed(*args: str) -> subprocess.CompletedProcess[str]:
        line = " ".join([shlex.quote(sys.executable), "-m", "abcd", *map(shlex.quote, args)])
        return subprocess.run(
            ["sh", "-c", f"exec {line} <&-"], capture_output=True, text=True, timeout=60
        )

    empty = closed("memory", "add", "--title", "t", "--recall", "w", "--by", BY)
    assert (empty.returncode, empty.stderr) == (
        1,
        "abcd: refused: body is empty (the body comes on stdin)\n",
    )
    assert closed("memory", "import", "-", "--by", BY).returncode == 0
    revised = closed("memory", "revise", note_id, "--by", BY, "--title", "A new title")
    assert revised.returncode == 0, revised.stderr
    assert revised.stdout.startswith(f"revised {note_id} (revision 1)")


def test_a_closed_stdout_or_stderr_writes_to_nowhere_after_a_write_never_a_traceback(
    abcd: Run, repo: Path
) -> None:
    """Run with stdout closed (`>&-`), `memory import --json` wrote its note, then ended in a
    traceback and exit 1 (`sys.stdout` is None), which promises nothing was written; with stderr
    closed (`2>&-`) a refusal was printed on stdout, where a program reads the note's id."""

    def closed(redirect: str, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        line = " ".join([shlex.quote(sys.executable), "-m", "abcd", *map(shlex.quote, args)])
        return subprocess.run(
            ["sh", "-c", f"exec {line} {redirect}"],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=60,
        )

    line = json.dumps({"title": "t", "body": "b", "recall": ["w"]}) + "\n"
    done = closed(">&-", "memory", "import", "-", "--by", BY, "--json", stdin=line)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert len(listed(abcd)) == 1
    done = closed(">&-", "memory", "list", "--json")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    refused = closed("2>&-", "memory", "add", "--title", "t", "--recall", "w", "--by", BY)
    assert (refused.returncode, refused.stdout) == (1, "")
    added = closed("2>&-", "memory", "add", "--title", "u", "--recall", "w", "--by", BY, stdin="b")
    assert added.returncode == 0 and re.fullmatch(r"mem-\d{16}\n", added.stdout), added.stdout
    assert len(listed(abcd)) == 2


def _with_output(argv: list[str], output: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """The CLI with stdout on `/dev/full` (`full`) or on a pipe whose reader has closed it
    (`closed`, as `| head -0` or `| true` leave it)."""
    command = [sys.executable, "-m", "abcd", *argv]
    if output == "full":
        with open("/dev/full", "w") as full:
            return subprocess.run(
                command, input=stdin, stdout=full, stderr=subprocess.PIPE, text=True, timeout=60
            )
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first byte
    try:
        return subprocess.run(
            command,
            input=stdin,
            stdout=write,
            stderr=write if output == "both closed" else subprocess.PIPE,  # `2>&1 | true`
            text=True,
            timeout=60,
        )
    finally:
        os.close(write)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("output", ["full", "closed"])
def test_a_command_whose_output_fails_after_it_wrote_says_what_stands_and_exits_0(
    abcd: Run, repo: Path, output: str
) -> None:
    """stdout on a full disk (`> /dev/full`) or a closed pipe (`| true`): the note was written,
    then its id's print failed and the command exited 1, which promises that nothing was
    written; with a closed pipe it said nothing at all. It now names what stands and exits 0;
    a command that wrote nothing still exits 1."""
    add = ["memory", "add", "--title", "t", "--by", BY, "--recall", "w"]
    done = _with_output(add, output, stdin="b")
    reason = "No space left on device" if output == "full" else "Broken pipe"
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        f"abcd: cannot write the output ({reason}); what the command did stands: the journal "
        "took event 1 (abcd journal audit shows it)"
    ]
    assert len(listed(abcd)) == 1
    # Nothing written: exit 1, said on a full disk, silent on a closed pipe (`| head -1`).
    done = _with_output(["memory", "list"], output)
    assert done.returncode == 1
    assert done.stderr.splitlines() == (
        [f"abcd: cannot write the output ({reason}); the journal took nothing"]
        if output == "full"
        else []
    )
    # A write outside the journal: the private-names list.
    done = _with_output(["names", "add", "Acme Corp"], output)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"abcd: cannot write the output ({reason}); what the command did stands: "
        f".abcd/.work.local/.gitignore was written; {PRIVATE_NAMES_REL} was written"
    )
    assert "Acme Corp" in (repo / PRIVATE_NAMES_REL).read_text()
    assert "Traceback" not in done.stderr
    if output == "closed":  # stderr the same closed pipe: nothing can be said, the exit tells
        another = ["memory", "add", "--title", "u", "--by", BY, "--recall", "w"]
        assert _with_output(another, "both closed", stdin="b").returncode == 0  # nudge unsaid
        assert len(listed(abcd)) == 2
        assert _with_output(["memory", "list"], "both closed").returncode == 1


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("output", ["full", "closed"])
def test_a_merge_a_folder_or_a_rebuild_whose_output_fails_after_it_wrote_exits_0(
    abcd: Run, repo: Path, tmp_path: Path, output: str
) -> None:
    """Writes outside the journal and the names list were not counted: `memory merge` replaced
    this side's file, `names path` made the `.gitignore`, `journal rebuild` wrote the view, and
    each exited 1 saying "the journal took nothing" when its output failed. For `merge`, git's
    driver, an exit of 1 reads as a conflict over a file that was merged. Each now exits 0."""
    reason = "No space left on device" if output == "full" else "Broken pipe"
    base, ours, theirs = tmp_path / "base.json", tmp_path / "ours.json", tmp_path / "theirs.json"
    empty = {"schema_version": 1, "notes": []}
    note = {"id": "mem-2612011200000001", "title": "t", "body": "b", "recall": ["w"]}
    base.write_text(json.dumps(empty))
    ours.write_text(json.dumps(empty))
    theirs.write_text(json.dumps({"schema_version": 1, "notes": [note]}))
    done = _with_output(["memory", "merge", str(base), str(ours), str(theirs)], output)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        f"abcd: cannot write the output ({reason}); what the command did stands: {ours} was written"
    ]
    assert [n["id"] for n in json.loads(ours.read_text())["notes"]] == [note["id"]]
    # Changed on both sides: a conflict exits 1 for git, even with stderr failing too.
    base.write_text(json.dumps({"schema_version": 1, "notes": [note]}))
    ours.write_text(json.dumps({"schema_version": 1, "notes": [{**note, "body": "ours"}]}))
    other = {**note, "id": "mem-2612011200000002"}  # and one added there: the file is written
    theirs.write_text(
        json.dumps({"schema_version": 1, "notes": [{**note, "body": "theirs"}, other]})
    )
    if output == "closed":
        conflict = _with_output(
            ["memory", "merge", str(base), str(ours), str(theirs)], "both closed"
        )
        assert conflict.returncode == 1
    done = _with_output(["names", "path"], output)  # makes the folder and its .gitignore
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"abcd: cannot write the output ({reason}); what the command did stands: "
        ".abcd/.work.local/.gitignore was written"
    )
    assert (repo / ".abcd" / ".work.local" / ".gitignore").is_file()
    assert abcd("memory", "add", "--title", "t", "--by", BY, "--recall", "w", stdin="b").code == 0
    home = Path(os.environ["ABCD_HOME"])
    (home / "memory.json").unlink()
    done = _with_output(["journal", "rebuild"], output)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1].endswith("memory.json was written")
    assert (home / "memory.json").is_file()
    done = _with_output(["journal", "rebuild"], output)  # up to date: nothing changed
    assert done.returncode == 1, done.stderr


def test_import_of_a_missing_file_is_refused_cleanly(abcd: Run, repo: Path) -> None:
    result = abcd("memory", "import", "nope.jsonl", "--by", BY)
    assert result.code == 1 and "nope.jsonl" in result.err


def test_a_usage_error_exits_2(abcd: Run, repo: Path) -> None:
    assert abcd("memory", "add", "--title", "t").code == 2
    assert abcd("memory", "frobnicate").code == 2


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_an_error_whose_stderr_fails_too_keeps_its_exit_code(repo: Path) -> None:
    """With stderr a closed pipe (`2>&1 | true`) or a full disk, saying a usage error raised
    again inside its handler: the run ended in a traceback and exit 1, not the usage error's 2."""
    command = [sys.executable, "-m", "abcd", "memory", "add", "--bogus"]
    read, write = os.pipe()
    os.close(read)
    try:
        closed = subprocess.run(command, stdout=write, stderr=write, timeout=60)
    finally:
        os.close(write)
    assert closed.returncode == 2
    with open("/dev/full", "w") as full:
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=full, timeout=60)
    assert done.returncode == 2
    refused = [sys.executable, "-m", "abcd", "memory", "add", "--title", "t", "--recall", "w"]
    with open("/dev/full", "w") as full:
        done = subprocess.run([*refused, "--by", BY], input=b"", stderr=full, timeout=60)
    assert done.returncode == 1


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("group", [[], ["journal"]], ids=["abcd", "abcd journal"])
def test_a_group_called_alone_with_its_stdout_full_exits_2_without_a_traceback(
    repo: Path, group: list[str]
) -> None:
    """A group called alone prints its help on stdout and exits 2; with stdout on a full disk
    (`abcd > /dev/full`) the print raised in its handler: a traceback and exit 1."""
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "abcd", *group],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    assert (done.returncode, done.stderr) == (2, "")


def test_the_hot_reader_of_an_absent_home_creates_nothing(
    abcd: Run, repo: Path, abcd_home: Path
) -> None:
    assert abcd("memory", "list").code == 0
    assert abcd("memory").code == 0
    assert not abcd_home.exists()


def test_the_console_script_is_installed() -> None:
    script = Path(sys.executable).parent / "abcd"
    out = subprocess.run([str(script), "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "memory" in out.stdout


def test_without_git_a_tied_add_is_refused_saying_git_is_missing(
    abcd: Run, repo: Path, tmp_path: Path
) -> None:
    import os

    bare_path = tmp_path / "no-git-bin"
    bare_path.mkdir()
    result = add(abcd, env={"PATH": str(bare_path)})
    assert result.code == 1 and "git is not on PATH" in result.err
    assert add(abcd, "t", "--everywhere", env={"PATH": str(bare_path)}).code == 0
    assert os.environ["PATH"]


@pytest.mark.parametrize("entry", ["", ".", "tools"])
def test_a_git_the_checkout_holds_is_never_run_through_an_empty_or_relative_path_entry(
    abcd: Run, repo: Path, tmp_path: Path, entry: str
) -> None:
    """Git runs from the checkout's top, where `PATH=$PATH:` (or `.`, or `tools`) would find a
    `git` the checkout holds before the real one: only PATH's absolute folders are searched."""
    marker = tmp_path / "ran-the-checkouts-git"
    for folder in (repo, repo / "tools"):
        folder.mkdir(exist_ok=True)
        planted = folder / "git"
        planted.write_text(f"#!/bin/sh\necho planted >> '{marker}'\necho {'f' * 40}\n")
        planted.chmod(0o755)
    real = Path(shutil.which("git") or "/usr/bin/git").parent

    result = add(abcd, env={"PATH": f"{entry}:{real}:/usr/bin:/bin"})

    assert result.code == 0, result.err
    assert not marker.exists()
    (note,) = listed(abcd)
    assert note["root"] == git(repo, "rev-list", "--max-parents=0", "HEAD")


def test_a_note_cannot_be_tied_to_a_repository_another_account_owns_and_the_refusal_says_so(
    abcd: Run, repo: Path
) -> None:
    give_away(repo)
    asked = subprocess.run(
        ["git", "rev-list", "--max-parents=0", "HEAD"], cwd=repo, capture_output=True, check=False
    )
    if asked.returncode == 0:
        pytest.skip("this git reads a repository another account owns")
    result = add(abcd, "A lesson")
    assert result.code == 1
    assert result.err.strip() == (
        f"abcd: refused: {repo}: {OWNED_BY_OTHER}: git does not read a repository another "
        "account owns, so a note cannot be tied to its root commit; pass --everywhere"
    )
    assert add(abcd, "A lesson", "--everywhere").code == 0


def test_an_import_of_twenty_thousand_notes_lands_whole_past_ten_thousand_ids_a_second(
    abcd: Run, repo: Path
) -> None:
    lines = [
        json.dumps({"title": f"lesson {n}", "body": "b", "recall": ["bulk"], "everywhere": True})
        for n in range(20_000)
    ]
    result = abcd("memory", "import", "-", "--by", BY, stdin="\n".join(lines) + "\n")
    assert result.code == 0, result.err
    ids = result.out.split()
    assert len(ids) == len(set(ids)) == 20_000
    assert all(ID.match(i) for i in ids)
    assert len(listed(abcd)) == 20_000


def test_bytes_that_are_not_utf8_are_refused_by_field_in_one_line(
    repo: Path, abcd_home: Path
) -> None:
    """Python keeps such bytes (argv, stdin) as lone surrogates: they reached the journal's
    encoder and ended in a traceback."""
    add = [sys.executable, "-m", "abcd", "memory", "add", "--by", BY]
    for extra, body, field in (
        (["--title", "T", "--recall", "r"], b"\xff\xfe a body", "body"),
        (["--title", os.fsdecode(b"T\xff"), "--recall", "r"], b"a body", "title"),
        (["--title", "T", "--recall", os.fsdecode(b"r\xff")], b"a body", "recall[0]"),
    ):
        done = subprocess.run([*add, *extra], input=body, capture_output=True, cwd=repo)
        assert done.returncode == 1
        assert done.stderr.decode() == f"abcd: refused: {field} is not UTF-8 text\n"
    assert not abcd_home.exists()


def test_a_mistyped_id_is_named_in_the_refusal_cut_short_when_long(abcd: Run, repo: Path) -> None:
    """`refused: id is not a note id` alone left the person to guess which word was read as the id."""
    add(abcd)
    removed = abcd("memory", "remove", "mem-261203")
    assert (removed.code, removed.out) == (1, "")
    assert removed.err == "abcd: refused: id 'mem-261203' is not a note id (mem- and 16 digits)\n"
    long = abcd("memory", "show", "x" * 100)
    assert long.err == f"abcd: refused: id '{'x' * 40}...' is not a note id (mem- and 16 digits)\n"


def test_a_secret_given_as_the_id_or_by_is_not_repeated_in_the_refusal(
    abcd: Run, repo: Path
) -> None:
    """A refused id (and `--by`) is named as given so a typo is seen: a token pasted in its
    place was repeated whole on stderr (into an agent's transcript, a CI log), where every other
    refusal names only the secret's kind."""
    secret = prefixed("gh" + "p_", mixed(random.Random(7), 36))
    for args in (
        ("memory", "show", secret.text),
        ("memory", "remove", secret.text),
        ("memory", "add", "--by", secret.text, "--title", "t", "--recall", "r"),
        ("memory", "add", "--by", f"Claude:{secret.text}", "--title", "t", "--recall", "r"),
        ("memory", "add", "--by", f"claude:{secret.text}", "--title", "t", "--recall", "r"),
    ):
        done = abcd(*args, stdin="a body")
        assert done.code == 1, (args, done.err)
        assert secret.secret[:8] not in done.err, args
        assert "(not shown: secret: github token)" in done.err, done.err
    assert abcd("memory", "show", "mem-261203").err == (
        "abcd: refused: id 'mem-261203' is not a note id (mem- and 16 digits)\n"
    )


def test_an_import_from_stdin_names_stdin_when_refused(abcd: Run, abcd_home: Path) -> None:
    """`import -` said "refused: -: not UTF-8 text", naming nothing a person typed."""
    done = subprocess.run(
        [sys.executable, "-m", "abcd", "memory", "import", "-", "--by", BY],
        input=b'{"title": "caf\xe9"}\n',
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.decode().strip() == "abcd: refused: stdin: not UTF-8 text", done.stderr
    assert not abcd_home.exists()


def test_an_error_after_a_write_landed_says_what_stands() -> None:
    """A command that fails after its events landed exits with its error, and the line says the
    write stands: an exit of 1 is never left to read as "nothing was written"."""
    code = (
        "import abcd.cli.main as m\n"
        "from abcd.errors import StorageError\n"
        "from abcd.journal.store import LANDED\n"
        "def app(**kwargs):\n"
        "    LANDED.extend([7, 8])\n"
        "    raise StorageError('memory.json: cannot write: No space left on device')\n"
        "m.app = app\n"
        "m.main()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "abcd: memory.json: cannot write: No space left on device; what the command did "
        "stands: the journal took events 7 to 8 (abcd journal audit shows it)"
    ]

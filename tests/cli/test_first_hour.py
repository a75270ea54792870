"""What a person meets in their first hour with `abcd` (issue 15): the version, help on every
command with readable value names and an example, one error style, JSON wherever a script
reads, `--by person`, a lower-case vendor, commas in `--recall`, shell completion."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main

from abcd import __version__
from abcd.cli.main import app
from tests.conftest import BY, Run, git
from tests.review.test_desk_cli import at_a_terminal


def every_command() -> list[list[str]]:
    """Every command path of the CLI, the root and the groups included."""
    paths: list[list[str]] = []

    def walk(command: object, path: list[str]) -> None:
        paths.append(path)
        children = getattr(command, "commands", None)
        if isinstance(children, dict):
            for name, child in children.items():
                walk(child, [*path, name])

    walk(typer.main.get_command(app), [])
    return paths


def add(abcd: Run, *args: str, by: str = BY, body: str = "Run the linter first.") -> str:
    result = abcd("memory", "add", "--title", "Lint first", "--by", by, *args, stdin=body)
    assert result.code == 0, result.err
    return result.out.strip()


def test_version_prints_the_packages_version(abcd: Run) -> None:
    result = abcd("--version")

    assert result.code == 0
    assert result.out == f"abcd {__version__}\n"


@pytest.mark.parametrize("path", every_command(), ids=lambda p: " ".join(p) or "abcd")
def test_every_command_takes_h_and_shows_value_names_a_person_reads_and_an_example(
    abcd: Run, path: list[str]
) -> None:
    short = abcd(*path, "-h")
    long = abcd(*path, "--help")

    assert short.code == 0, short.err
    assert short.out == long.out
    assert "<str>" not in short.out and "<list" not in short.out and "<bool>" not in short.out
    assert "╭" not in short.out, "plain help, not boxes"
    assert "Example" in short.out
    assert "\\b" not in short.out, "click's no-rewrap mark, not text"
    assert re.search(r"^ +Example[^\n]*:\n +\S", short.out, re.MULTILINE), (
        "the example on lines of its own"
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["nope"], "abcd: no such command 'nope' (see: abcd --help)"),
        (["memory", "add"], "abcd: missing option '--title' (see: abcd memory add --help)"),
        (["journal", "verify", "--bogus"], "abcd: no such option: --bogus"),
        (["journal", "replay"], "abcd: missing option '--as-of'"),
        (
            ["memory", "add", "--title"],
            "abcd: option '--title' requires an argument (see: abcd memory add --help)",
        ),
        (
            ["journal", "replay", "--as-of"],
            "abcd: option '--as-of' requires an argument (see: abcd journal replay --help)",
        ),
        (
            ["statusline", "--bogus"],
            "abcd: unexpected argument '--bogus' (usage: abcd statusline [--pass-through",
        ),
        (["statusline", "--pass-through"], "abcd: --pass-through needs a command (usage: "),
    ],
)
def test_a_usage_error_is_one_abcd_line_and_exit_2(abcd: Run, args: list[str], says: str) -> None:
    result = abcd(*args)

    assert result.code == 2
    assert result.out == ""
    assert result.err.count("\n") == 1
    assert result.err.startswith(says)


def test_bare_memory_json_counts_personal_and_project_notes(abcd: Run, repo: Path) -> None:
    add(abcd, "--recall", "lint")
    add(abcd, "--recall", "lint", "--everywhere")

    result = abcd("memory", "--json")

    assert result.code == 0
    assert json.loads(result.out) == {
        "personal_notes": {"this_repository": 1, "everywhere": 1, "other_repositories": 0},
        "project_notes": 0,
        "unreadable": [],
    }


def test_json_before_a_memory_command_is_a_usage_error_that_says_where_it_goes(
    abcd: Run,
) -> None:
    result = abcd("memory", "--json", "list")

    assert result.code == 2
    assert "goes after the command: abcd memory list --json" in result.err


def test_journal_verify_json_says_intact_and_then_names_the_break(
    abcd: Run, abcd_home: Path
) -> None:
    add(abcd, "--recall", "lint", "--everywhere")
    add(abcd, "--recall", "lint", "--everywhere", body="Run the formatter too.")
    intact = abcd("journal", "verify", "--json")
    segment = abcd_home / "journal" / "000001.jsonl"
    segment.write_bytes(segment.read_bytes().replace(b"formatter", b"Formatter"))

    broken = abcd("journal", "verify", "--json")

    assert intact.code == 0
    assert json.loads(intact.out) | {"head": None} == {
        "intact": True,
        "events": 2,
        "segments": 1,
        "head": None,
        "breaks": [],
        "differs": [],
        "recall_cache_differs": [],
    }
    assert broken.code == 1
    report = json.loads(broken.out)
    assert report["intact"] is False
    assert [b["seq"] for b in report["breaks"]] == [2]


def test_journal_rebuild_json_says_what_changed(abcd: Run, abcd_home: Path) -> None:
    note = add(abcd, "--recall", "lint", "--everywhere")
    view = json.loads((abcd_home / "memory.json").read_text())
    view["notes"][0]["title"] = "tampered"
    (abcd_home / "memory.json").write_text(json.dumps(view))

    result = abcd("journal", "rebuild", "--json")

    assert result.code == 0
    out = json.loads(result.out)
    assert (out["view"], out["notes"], out["changed"], out["added"]) == ("rebuilt", 1, [note], [])


def test_journal_rebuild_of_a_home_that_is_not_there_makes_nothing(
    abcd: Run, abcd_home: Path
) -> None:
    said = abcd("journal", "rebuild")
    assert said.code == 0 and said.out == "no journal yet: nothing to rebuild\n"
    as_json = abcd("journal", "rebuild", "--json")
    assert as_json.code == 0 and json.loads(as_json.out)["view"] == "no journal"
    assert not abcd_home.exists()  # a mistyped ABCD_HOME is not made into a home


def test_import_json_lists_the_ids_written_and_the_lines_refused(abcd: Run) -> None:
    good = {
        "title": "Lint first",
        "body": "Run the linter.",
        "recall": ["lint"],
        "everywhere": True,
    }
    lines = json.dumps(good) + "\n" + "not json\n"

    result = abcd("memory", "import", "-", "--by", BY, "--json", stdin=lines)

    assert result.code == 1
    out = json.loads(result.out)
    assert len(out["imported"]) == 1 and out["imported"][0].startswith("mem-")
    assert [r["line"] for r in out["refused"]] == [2]


def test_a_person_adds_a_note_as_themselves(abcd: Run, repo: Path) -> None:
    add(abcd, "--recall", "lint", by="person")

    (entry,) = json.loads(abcd("memory", "list", "--json").out)["notes"]

    assert (entry["written_by"], entry["origin"]) == ("person", "person")


def test_a_lower_case_vendor_is_refused_with_the_shape_it_should_have(
    abcd: Run, repo: Path
) -> None:
    result = abcd(
        "memory", "add", "--title", "t", "--recall", "w", "--by", "claude:opus", stdin="b"
    )

    assert result.code == 1
    assert result.err == (
        "abcd: refused: --by 'claude:opus': the vendor starts with a capital letter: "
        "--by Claude:opus\n"
    )


def test_commas_in_one_recall_give_several_recall_words(abcd: Run, repo: Path) -> None:
    add(abcd, "--recall", "lint, format", "--recall", "ruff")

    (entry,) = json.loads(abcd("memory", "list", "--json").out)["notes"]

    assert entry["recall"] == ["lint", "format", "ruff"]


def test_shell_completion_completes_commands_as_bash_asks() -> None:
    env = dict(os.environ, _ABCD_COMPLETE="complete_bash", COMP_WORDS="abcd mem", COMP_CWORD="1")
    script = Path(sys.executable).with_name("abcd")

    out = subprocess.run(
        [str(script)], env=env, capture_output=True, text=True, timeout=60, check=False
    )

    assert out.returncode == 0
    assert out.stdout.split() == ["memory"]


@pytest.mark.parametrize(("shell", "marks"), [("bash", "complete -o"), ("zsh", "#compdef abcd")])
def test_show_completion_prints_the_script_of_the_shell_it_runs_in(shell: str, marks: str) -> None:
    """What the README and `abcd --help` say: `eval "$(abcd --show-completion)"` in the rc file."""
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed (.ci/run installs zsh)")
    script = shlex.quote(str(Path(sys.executable).with_name("abcd")))
    out = subprocess.run(  # `; true`: the shell stays the parent, as in an rc file
        [shell, "-c", f"{script} --show-completion; true"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert marks in out.stdout


@pytest.mark.parametrize(
    "args", [["journal", "replay", "--as-of", "yesterday"], ["journal", "audit", "--since", "x"]]
)
def test_a_time_that_cannot_be_read_is_a_usage_error_even_before_any_journal(
    abcd: Run, args: list[str]
) -> None:
    result = abcd(*args)

    assert result.code == 2
    assert result.err.startswith(("abcd: not a time:", "abcd: not a time nor a seq:"))


def test_a_note_of_another_repository_is_named_by_its_folder(
    abcd: Run, repo: Path, tmp_path: Path
) -> None:
    add(abcd, "--recall", "lint")
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q", "-b", "main")
    git(other, "commit", "-q", "--allow-empty", "-m", "another first")

    listed = abcd("memory", "list", cwd=other)

    assert listed.code == 0, listed.err
    assert f"personal note, recalled in another repository ({repo}, root " in listed.out


def test_a_repository_no_note_was_written_from_says_so(
    abcd: Run, repo: Path, abcd_home: Path, tmp_path: Path
) -> None:
    add(abcd, "--recall", "lint")
    (abcd_home / "places.json").unlink()
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q", "-b", "main")
    git(other, "commit", "-q", "--allow-empty", "-m", "another first")

    listed = abcd("memory", "list", cwd=other)

    assert "no note was written from it on this machine)" in listed.out


def _from_a_removed_folder(
    where: Path, *args: str, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    """`abcd ARGS` run from `where` after the folder was removed under it (a shell that had
    `cd`'d into a build folder a clean then deleted)."""
    where.mkdir()
    script = 'cd "$1" && rmdir "$1" && shift && exec "$@"'
    return subprocess.run(
        ["sh", "-c", script, "sh", str(where), sys.executable, "-m", "abcd", *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_removed_working_folder_is_in_no_checkout_and_nothing_fails_on_it(
    abcd: Run, abcd_home: Path, tmp_path: Path
) -> None:
    note = add(abcd, "--recall", "lint", "--everywhere")
    listed = _from_a_removed_folder(tmp_path / "gone1", "memory", "list")
    assert listed.returncode == 0, listed.stderr
    assert note in listed.stdout
    verified = _from_a_removed_folder(tmp_path / "gone2", "journal", "verify", "--json")
    assert verified.returncode == 0, verified.stderr
    assert json.loads(verified.stdout)["intact"] is True
    # The hook given no `cwd`: the folder it was started in is gone, the home's notes come back.
    payload = json.dumps({"session_id": "s1", "prompt": "lint before pushing"})
    hooked = _from_a_removed_folder(tmp_path / "gone3", "hook", "prompt-router", stdin=payload)
    assert hooked.returncode == 0 and "failed" not in hooked.stderr, hooked.stderr
    assert note in hooked.stdout


def test_an_add_at_a_terminal_says_it_reads_the_body_there_and_takes_what_is_typed(
    abcd: Run, repo: Path
) -> None:
    args = ["memory", "add", "--title", "Lint first", "--recall", "lint", "--by", "person"]
    code, out = at_a_terminal(args, "Run ruff first.\n\x04", repo, when=b"Ctrl-D")

    assert code == 0, out
    assert "abcd: reading the note's body from the terminal: type it, then Ctrl-D" in out
    (note,) = json.loads(abcd("memory", "list", "--json").out)["notes"]
    assert note["body"] == "Run ruff first."


def test_an_add_from_a_pipe_says_nothing_of_a_terminal(abcd: Run, repo: Path) -> None:
    added = abcd("memory", "add", "--title", "Lint first", "--recall", "lint", "--by", "person",
                 stdin="Run ruff first.")  # fmt: skip
    assert added.code == 0 and added.err.count("Ctrl-D") == 0


def test_an_unknown_hook_names_every_hook_there_is_and_blocks_nothing(abcd: Run) -> None:
    result = abcd("hook", "bogus")
    assert result.code == 0 and result.out == ""
    assert result.err == (
        "abcd memory: unknown hook 'bogus' "
        "(expected prompt-router, session-start, pre-compact or pre-tool-use)\n"
    )
    listed = abcd("hook", "--help").out  # the hooks the message names are the ones there are
    assert all(hook in listed for hook in ("prompt-router", "session-start", "pre-compact"))
    assert "pre-tool-use" in listed


def test_a_list_of_a_home_that_does_not_exist_names_the_folder_it_read(
    abcd: Run, abcd_home: Path, tmp_path: Path
) -> None:
    """A mistyped ABCD_HOME (or one set in another shell) read as an empty memory, "no notes",
    and said nothing of where it looked; the list names the folder, and creates nothing."""
    mistyped = tmp_path / "abcd-hom"
    listed = abcd("memory", "list", env={"ABCD_HOME": str(mistyped)})
    assert listed.code == 0, listed.err
    assert listed.out.strip() == (
        f"no notes (no home at {mistyped}: nothing was ever written there; "
        "ABCD_HOME names the home when it is set)"
    )
    assert not mistyped.exists()
    add(abcd, "--recall", "lint")
    assert abcd_home.is_dir()
    assert "no home" not in abcd("memory", "list").out
    assert json.loads(abcd("memory", "list", "--json", env={"ABCD_HOME": str(mistyped)}).out) == {
        "notes": [],
        "unreadable": [],
    }

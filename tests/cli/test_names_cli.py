"""`abcd names`: the private-names list made, filled and edited from the CLI, never in git."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import BY, Run, git

LIST = Path(".abcd/.work.local/private-names.txt")


def test_add_makes_the_list_and_keeps_it_out_of_git(abcd: Run, repo: Path) -> None:
    result = abcd("names", "add", "Acme  Corp", "Globex")

    assert result.code == 0, result.err
    assert "added 2 name(s)" in result.out
    assert (repo / LIST).read_text().splitlines()[-2:] == ["Acme Corp", "Globex"]
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""
    assert "wrote .abcd/.work.local/.gitignore" in result.err


def test_a_name_already_there_is_not_added_twice_ignoring_case(abcd: Run, repo: Path) -> None:
    abcd("names", "add", "Globex")

    result = abcd("names", "add", "GLOBEX", "Initech")

    assert "added 1 name(s), 1 already there; 2 in all" in result.out
    assert abcd("names", "list").out == "Globex\nInitech\n"


def test_the_gate_refuses_a_note_naming_someone_added(abcd: Run, repo: Path) -> None:
    abcd("names", "add", "Initech")

    result = abcd(
        "memory", "add", "--title", "Ask Initech", "--recall", "w", "--by", BY, stdin="body"
    )

    assert result.code == 1
    assert "private name" in result.err


def test_edit_opens_the_list_in_the_persons_editor(abcd: Run, repo: Path, tmp_path: Path) -> None:
    editor = tmp_path / "editor"
    editor.write_text('#!/bin/sh\necho Hooli >> "$1"\n')
    editor.chmod(0o755)

    result = abcd("names", "edit", env={"VISUAL": str(editor)})

    assert result.code == 0, result.err
    assert abcd("names", "list").out == "Hooli\n"


def test_a_list_git_already_tracks_is_named_with_the_way_out(abcd: Run, repo: Path) -> None:
    (repo / LIST).parent.mkdir(parents=True)
    (repo / LIST).write_text("Globex\n")
    git(repo, "add", str(LIST))

    for command in ("path", "list", "add"):
        result = abcd("names", command, *(["Hooli"] if command == "add" else []))
        assert result.code == 0, result.err
        assert f"warning: git tracks {LIST}" in result.err, command
        assert f"git rm --cached {LIST}" in result.err, command


def test_listing_the_names_makes_nothing_in_the_checkout(abcd: Run, repo: Path) -> None:
    listed = abcd("names", "list")
    assert listed.code == 0 and listed.out == "" and listed.err == ""
    assert not (repo / ".abcd").exists()


def test_outside_a_repository_it_says_the_list_belongs_to_a_checkout(
    abcd: Run, tmp_path: Path
) -> None:
    result = abcd("names", "add", "Globex", cwd=tmp_path)

    assert result.code == 1
    assert result.err.startswith("abcd: not in a git repository")


def test_a_name_that_is_a_comment_or_two_lines_is_refused(abcd: Run, repo: Path) -> None:
    assert abcd("names", "add", "# x").code == 1
    assert abcd("names", "add", "a\nb").code == 1
    assert not (repo / LIST).exists()


def test_a_name_that_is_not_utf8_is_refused_in_one_line_before_anything_is_made(
    abcd: Run, repo: Path
) -> None:
    """A name of bytes that are not UTF-8 (a shell's `$'\\xff'`, a Latin-1 terminal) reached
    the list's write as a traceback, after the folder, its `.gitignore` and an empty list were
    made."""
    result = abcd("names", "add", "Globex", "Acme\udcff")
    assert result.code == 1
    assert result.err == "abcd: refused: name 2 is not UTF-8 text\n"
    assert not (repo / ".abcd").exists()


def test_a_list_that_is_not_a_plain_file_is_refused_in_one_line_and_hangs_nothing(
    abcd: Run, repo: Path, tmp_path: Path
) -> None:
    """The list was opened without `O_NONBLOCK`: a FIFO in its place hung `names add` and
    `names list`. It is now read as the gate reads it, with a checkout file's every check."""
    assert abcd("names", "add", "Globex").code == 0
    (repo / LIST).unlink()
    os.mkfifo(repo / LIST)
    for command in (("names", "add", "Initech"), ("names", "list")):
        result = abcd(*command)
        assert result.code == 1, result.err
        assert result.err == f"abcd: refused: {repo / LIST}: is not a regular file\n"
    (repo / LIST).unlink()
    (tmp_path / "elsewhere").write_text("Globex\n")
    (repo / LIST).symlink_to(tmp_path / "elsewhere")
    result = abcd("names", "add", "Initech")
    assert result.code == 1 and "symlink" in result.err, result.err
    assert (tmp_path / "elsewhere").read_text() == "Globex\n"


def test_a_list_refused_leaves_nothing_made_and_a_checkout_it_cannot_write_is_one_line(
    abcd: Run, repo: Path
) -> None:
    (repo / LIST).parent.mkdir(parents=True)
    os.mkfifo(repo / LIST)
    assert abcd("names", "add", "Initech").code == 1
    assert sorted(p.name for p in (repo / LIST).parent.iterdir()) == [LIST.name]  # no .gitignore
    shutil.rmtree(repo / ".abcd")
    (repo / ".abcd").write_text("not a folder")
    for command in (("names", "add", "Initech"), ("names", "path")):
        result = abcd(*command)
        assert result.code == 1 and len(result.err.splitlines()) == 1, result.err
        assert result.err.startswith(f"abcd: refused: {repo / '.abcd'}"), result.err


def test_an_editor_that_fails_after_the_list_was_made_says_it_was_made(
    abcd: Run, repo: Path
) -> None:
    result = abcd("names", "edit", env={"EDITOR": "false", "VISUAL": ""})
    assert result.code == 1
    assert result.err.splitlines()[-1] == (  # exit 1 with what stands said on the line
        f"abcd: the editor 'false' exited 1; {LIST} was made from its template; what the "
        f"command did stands: {LIST.parent}/.gitignore was written; {LIST} was written"
    )
    assert (repo / LIST).exists()


@pytest.mark.parametrize(
    ("env", "said"),
    [
        (
            {"VISUAL": 'code --wait "my file'},
            "$VISUAL is not a command line (No closing quotation)",
        ),
        ({"VISUAL": "", "EDITOR": "  "}, "$EDITOR is not a command line (no command)"),
    ],
)
def test_an_editor_setting_that_is_not_a_command_is_refused_before_anything_is_made(
    abcd: Run, repo: Path, env: dict[str, str], said: str
) -> None:
    """An unclosed quote in $VISUAL was a traceback (shlex's ValueError) after the folder, its
    `.gitignore` and the list had been made; a blank $EDITOR ran the list itself."""
    result = abcd("names", "edit", env=env)
    assert result.code == 1
    assert result.err == f"abcd: refused: {said}; nothing was written\n"
    assert not (repo / ".abcd").exists()


def _shipped(repo: Path, kind: str) -> None:
    """The checkout ships `.abcd/.work.local/.gitignore` as `kind`, committed: a file of its
    own (not abcd's `*`), a link to nowhere, or a folder."""
    ignore = repo / LIST.parent / ".gitignore"
    ignore.parent.mkdir(parents=True)
    if kind == "file":
        ignore.write_text("# local\n")
    elif kind == "dangling link":
        ignore.symlink_to(repo / "nowhere")
    else:
        ignore.mkdir()
        (ignore / "keep").write_text("")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "ship the folder")


@pytest.mark.parametrize("kind", ["file", "dangling link", "folder"])
def test_add_refuses_where_the_checkouts_own_gitignore_would_let_git_take_the_list(
    abcd: Run, repo: Path, kind: str
) -> None:
    _shipped(repo, kind)

    result = abcd("names", "add", "AcmeSecretCorp")

    assert result.code == 1 and result.out == ""
    assert result.err == (
        f"abcd: refused: git would not ignore {LIST} ({LIST.parent}/.gitignore is not abcd's "
        f"`*`), so a commit could publish the list; make git ignore it, say with a line `*` in "
        f"{LIST.parent}/.gitignore (a regular file); nothing was written\n"
    )
    assert not (repo / LIST).exists()
    git(repo, "add", "-A")
    assert git(repo, "status", "--porcelain") == ""  # nothing for a commit to take

    if kind == "file":  # the way out the refusal gives
        (repo / LIST.parent / ".gitignore").write_text("# local\n*\n")
        assert abcd("names", "add", "AcmeSecretCorp").code == 0
        git(repo, "add", "-A")
        assert str(LIST) not in git(repo, "status", "--porcelain")


def test_edit_refuses_and_path_warns_where_git_would_take_the_list(
    abcd: Run, repo: Path, tmp_path: Path
) -> None:
    _shipped(repo, "file")
    editor = tmp_path / "editor"
    editor.write_text('#!/bin/sh\necho Hooli >> "$1"\n')
    editor.chmod(0o755)

    edited = abcd("names", "edit", env={"VISUAL": str(editor)})
    shown = abcd("names", "path")

    assert edited.code == 1 and "refused: git would not ignore" in edited.err
    assert not (repo / LIST).exists()
    assert shown.code == 0 and shown.out.strip() == str(repo / LIST)
    assert shown.err.startswith(f"abcd: warning: git would not ignore {LIST}")


def test_list_shows_a_names_control_characters_escaped(abcd: Run, repo: Path) -> None:
    """Every output a person reads is escaped (docs/gate.md); the list printed a name raw."""
    (repo / LIST).parent.mkdir(parents=True)
    (repo / LIST).parent.joinpath(".gitignore").write_text("*\n")
    (repo / LIST).write_text("Hooli\x1b]0;owned\x07\n")
    listed = abcd("names", "list")
    assert listed.code == 0 and listed.out == "Hooli\\x1b]0;owned\\x07\n", listed.out

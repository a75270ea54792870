"""The private-names banlist: loading it from a checkout, and whole-word, case-insensitive matching."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from abcd.errors import Refused
from abcd.gate import judge_note, load_private_names
from abcd.gate.names import UNREADABLE, parse_private_names
from abcd.repo import PRIVATE_NAMES_REL, find_repo

PRIVATE = "private name"


def write_list(top: Path, text: str | bytes) -> Path:
    path = top / PRIVATE_NAMES_REL
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def top_of(path: Path) -> Path:
    """The checkout a banlist at `path` belongs to."""
    return path.parents[2]


def git(cwd: Path, *args: str) -> str:
    out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def primary_and_linked(tmp_path: Path) -> tuple[Path, Path]:
    """A checkout with one commit, and a worktree linked to it."""
    primary = tmp_path / "primary"
    primary.mkdir()
    git(primary, "init", "-q", "-b", "main")
    git(
        primary,
        "-c",
        "user.name=T",
        "-c",
        "user.email=t@example.com",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "first",
    )
    linked = tmp_path / "linked"
    git(primary, "worktree", "add", "-q", str(linked), "-b", "side")
    return primary, linked


def test_names_are_one_a_line_with_comments_and_blank_lines_skipped(tmp_path: Path) -> None:
    path = write_list(
        tmp_path, "# clients\nZorblax Industries\n\n   \n  Quennell  \n#Hidden\nquennell\n"
    )
    assert load_private_names([top_of(path)]) == ["Zorblax Industries", "Quennell"]


def test_a_name_matches_whole_word_and_ignoring_case() -> None:
    names = ["Quennell", "Zorblax Industries"]
    assert (
        judge_note("t", "we shipped it for QUENNELL today", ["w"], private_names=names) is not None
    )
    assert (
        judge_note("t", "a zorblax   industries\nproject", ["w"], private_names=names) is not None
    )
    assert (
        judge_note("t", "the Quennells and quennellish words", ["w"], private_names=names) is None
    )
    assert judge_note("t", "Zorblax alone is fine", ["w"], private_names=names) is None


def test_a_private_name_in_a_recall_word_is_refused_naming_that_word() -> None:
    finding = judge_note("t", "body", ["deploy", "quennell"], private_names=["Quennell"])
    assert finding is not None
    assert (finding.kind, finding.field) == (PRIVATE, "recall[1]")


def test_names_with_regex_characters_match_literally() -> None:
    names = ["C#", "a.b", "(x)"]
    assert judge_note("t", "the C# team", ["w"], private_names=names) is not None
    assert judge_note("t", "axb is not a.b", ["w"], private_names=names) is not None
    assert judge_note("t", "axb only", ["w"], private_names=names) is None


def test_an_absent_list_contributes_nothing(tmp_path: Path) -> None:
    assert load_private_names([tmp_path, tmp_path / "nope"]) == []


def _refusal(path: Path) -> Refused:
    with pytest.raises(Refused) as info:
        load_private_names([top_of(path)])
    return info.value


def test_a_list_that_is_not_utf8_refuses(tmp_path: Path) -> None:
    path = write_list(tmp_path, b"Quennell\n\xff\xfe bad bytes\n")
    err = _refusal(path)
    assert err.kind == UNREADABLE
    assert str(path) in err.detail or err.detail.startswith("~")
    assert "Quennell" not in str(err)


def test_a_list_that_is_a_folder_refuses(tmp_path: Path) -> None:
    path = tmp_path / PRIVATE_NAMES_REL
    path.mkdir(parents=True)
    assert _refusal(path).kind == UNREADABLE


def test_a_list_that_is_a_symlink_refuses_even_to_a_readable_file(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_text("Quennell\n", encoding="utf-8")
    path = tmp_path / PRIVATE_NAMES_REL
    path.parent.mkdir(parents=True)
    path.symlink_to(target)
    assert _refusal(path).kind == UNREADABLE


def test_a_list_that_is_a_fifo_refuses_without_hanging(tmp_path: Path) -> None:
    path = tmp_path / PRIVATE_NAMES_REL
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    assert _refusal(path).kind == UNREADABLE


def test_a_list_larger_than_its_bound_refuses(tmp_path: Path) -> None:
    path = write_list(tmp_path, "Quennell\n" * 10_000)
    assert _refusal(path).kind == UNREADABLE


def test_the_refusal_names_the_file_in_home_relative_form(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    path = write_list(tmp_path / "proj", b"\xff")
    err = _refusal(path)
    assert err.detail == "~/proj/" + PRIVATE_NAMES_REL
    assert str(err) == f"refused: {UNREADABLE}: ~/proj/{PRIVATE_NAMES_REL}"


def test_a_linked_worktree_is_judged_against_its_own_list_and_the_primary_checkouts(
    tmp_path: Path,
) -> None:
    primary, linked = primary_and_linked(tmp_path)
    write_list(primary, "Quennell\n")
    write_list(linked, "Zorblax\n")

    (linked / "src").mkdir()
    repo = find_repo(linked / "src")
    assert repo is not None
    checkouts = repo.private_names_checkouts()
    assert checkouts == [str(linked), str(primary)]
    names = load_private_names(checkouts)
    assert names == ["Zorblax", "Quennell"]
    for text in ("notes on quennell", "notes on zorblax"):
        finding = judge_note("t", text, ["w"], private_names=names)
        assert finding is not None
        assert finding.kind == PRIVATE

    # The primary checkout sees only its own list.
    primary_repo = find_repo(primary)
    assert primary_repo is not None
    assert load_private_names(primary_repo.private_names_checkouts()) == ["Quennell"]


def test_an_unreadable_primary_list_refuses_in_a_linked_worktree(tmp_path: Path) -> None:
    primary, linked = primary_and_linked(tmp_path)
    write_list(primary, b"\xff\xfe")
    repo = find_repo(linked)
    assert repo is not None
    with pytest.raises(Refused) as info:
        load_private_names(repo.private_names_checkouts())
    assert info.value.kind == UNREADABLE


def test_parsing_collapses_runs_of_whitespace_inside_a_name() -> None:
    assert parse_private_names("Zorblax \t Industries\n") == ["Zorblax Industries"]

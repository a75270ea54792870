"""Home-directory paths are refused; `~/`, `$HOME/` and relative paths pass."""

from __future__ import annotations

import pytest

from abcd.gate import judge_note
from abcd.gate.homepath import HOME_PATH, find_home_path

REFUSED = [
    "/home/alice/project/build.log",
    "cd /home/bob && make",
    "/var/home/carol/.config",
    "/Users/dana/Library/Caches",
    "open /Users/erin",
    r"C:\Users\frank\AppData\Local",
    r"c:\users\grace",
    "C:/Users/heidi/Documents",
    r"D:\\USERS\\ivan\\x",
    "file:///home/judy/notes.txt",
    "mounted at=/home/kim",
]

PASSES = [
    "~/project/build.log",
    "$HOME/.config/tool",
    "${HOME}/x",
    "/home/ alone is just the folder",
    "ls /home/",
    "/home/$USER/.cache and /home/<you>/x and /home/*/x",
    "src/home/views.py and apps/home/urls.py",
    "/Users/Shared/data and /Users/Guest",
    r"C:\Users\Public\Desktop and C:\Users\Default",
    "%USERPROFILE%\\AppData",
    "/usr/local/bin and /opt/homebrew and /etc/hosts",
    "GET /users/42 is an API path",
]


@pytest.mark.parametrize("text", REFUSED)
def test_a_home_directory_path_is_refused(text: str) -> None:
    assert find_home_path(text) == HOME_PATH
    finding = judge_note("t", text, ["w"])
    assert finding is not None
    assert (finding.kind, finding.field) == (HOME_PATH, "body")


@pytest.mark.parametrize("text", PASSES)
def test_home_relative_and_relative_paths_pass(text: str) -> None:
    assert find_home_path(text, "/home/tester") is None
    assert judge_note("t", text, ["w"], home="/home/tester") is None


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        ("logs under /srv/ci-home/cache", True),
        ("logs under /srv/ci-home", True),
        ("logs under /srv/ci-home.", True),
        ("logs under /srv/ci-home/", True),
        ("logs under /srv/ci-homework", False),
        ("logs under /srv/ci-home.d/x", False),
        ("logs under /data/srv/ci-home", False),
        ("logs under ~/srv/ci-home", False),
    ],
)
def test_the_literal_value_of_home_is_refused_only_as_a_whole_path(
    text: str, refused: bool
) -> None:
    assert (find_home_path(text, "/srv/ci-home") == HOME_PATH) is refused


@pytest.mark.parametrize("home", [None, "", "/"])
def test_an_empty_or_root_home_skips_the_literal_check(home: str | None) -> None:
    assert judge_note("t", "see /etc/hosts and /srv/data", ["w"], home=home) is None


def test_a_home_path_in_the_title_is_refused_naming_the_title() -> None:
    finding = judge_note("build at /home/alice/x", "body", ["w"])
    assert finding is not None
    assert finding.field == "title"

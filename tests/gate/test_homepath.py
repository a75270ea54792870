"""Home-directory paths are refused; `~/`, `$HOME/` and relative paths pass."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abcd.gate import homepath, judge_note
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


# Each scanner finds what the expression it stands for finds (see `abcd.gate.homepath`).
SCANNERS = [
    ("unix", homepath._UNIX, lambda text: homepath._unix_home(text)),
    ("windows", homepath._WINDOWS, lambda text: homepath._windows_home(text, text.lower())),
    ("tilde", homepath._TILDE_USER, lambda text: homepath._tilde_user(text)),
]
# The pieces the expressions are made of, so that random text often nearly matches.
_PIECES = [
    *("/home/", "/Users/", "/var", "/usr", "/export", "/c", "/mnt/", "/cygdrive/", "c:", "Z:"),
    *("users", "USERS", "\\", "\\\\", "/", "Shared", "Guest", "public", "Default", "default user"),
    *("all users", "~", "~a", "~_", "~5", "bob", "x", "_", ".", "-", "$", " ", "\t", "\n", "'"),
    *('"', "`", "=", ":", "(", "[", ")", "]", "é", "9", "a" * 33),
]


# Every prefix, drive and separator the expressions allow, each also glued to a name.
_FORMS = [
    *("/home/x", "/var/home/x", "/usr/home/x", "/export/home/x", "/Users/x", "/c/Users/x"),
    *("/Users/Shared", "/Users/Shared.x", "/Users/Guest/", "/C/Users/x", "/cc/Users/x"),
    *("/home/Shared", "/usr/home/Guest", "/home/Guests"),
    *("c:\\users\\x", "c:\\\\users\\\\x", "c:\\\\\\users\\x", "c:/users/x", "c:/users//x"),
    *("/mnt/c/Users/x", "/cygdrive/d/USERS/x", "/mnt/cc/users/x", "c:\\users\\public"),
    *("c:\\users\\default user", "c:\\users\\all users.x", "c:\\users\\defaultx"),
    *("~alice/src", "~alice", "~_a ", "~5/x", "~" + "a" * 32, "~" + "a" * 31, "(~bob)", "~bob~"),
]
_EVERY_FORM = [g + f + t for f in _FORMS for g in ("", "a", "_", ".", " ", "=") for t in ("", " ")]


@pytest.mark.parametrize(("name", "expression", "scan"), SCANNERS, ids=[s[0] for s in SCANNERS])
def test_each_scanner_agrees_with_its_expression_on_the_samples(
    name: str, expression: str, scan: Callable[[str], bool]
) -> None:
    pattern = re.compile(expression)
    texts = [*REFUSED, *PASSES, *_EVERY_FORM]
    texts += [t + x for t in REFUSED for x in ("", ".", "-", "_x", " ")]
    texts += ["x" + t for t in REFUSED] + ["_" + t for t in REFUSED] + [" " + t for t in REFUSED]
    for text in texts:
        assert scan(text) == bool(pattern.search(text)), text


@settings(max_examples=1500, deadline=None)
@given(
    scanner=st.sampled_from(SCANNERS),
    pieces=st.lists(st.sampled_from(_PIECES), max_size=8),
)
def test_each_scanner_agrees_with_its_expression_on_random_text(
    scanner: tuple[str, str, Callable[[str], bool]], pieces: list[str]
) -> None:
    _, expression, scan = scanner
    text = "".join(pieces)
    assert scan(text) == bool(re.search(expression, text)), text


@settings(max_examples=500, deadline=None)
@given(
    scanner=st.sampled_from(SCANNERS), text=st.text(alphabet="/\\~:cuUsSer hom._-$9'", max_size=20)
)
def test_each_scanner_agrees_with_its_expression_on_any_text(
    scanner: tuple[str, str, Callable[[str], bool]], text: str
) -> None:
    _, expression, scan = scanner
    assert scan(text) == bool(re.search(expression, text)), text


def test_a_text_that_lower_casing_lengthens_is_judged_by_the_expression() -> None:
    text = "\u0130 C:\\Users\\bob"  # `İ`.lower() is two characters
    assert len(text.lower()) != len(text)
    assert find_home_path(text) == HOME_PATH
    assert find_home_path("\u0130 C:\\Users\\Public") is None

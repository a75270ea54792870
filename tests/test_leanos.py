"""`abcd.leanos`, the lean commands' `os`, held to `os`, `posixpath` and `stat` themselves.

The functions it takes from `posix` must be the very objects `os` gives; the
path functions it writes must answer as `posixpath` does for any path
(hypothesis); the mode tests as `stat` does for every file type; and in a
fresh `python -S`, as the plugin's launcher starts a hook, importing it loads
no `os`, while its environment is the one `os` would have decoded, bytes that
are not UTF-8 included (every Python installed here).
"""

from __future__ import annotations

import os
import posixpath
import stat
import subprocess
from pathlib import PurePosixPath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from abcd import leanos
from tests.fresh import PYTHONS, SRC, interpreter

# Paths made mostly of what path functions care about: slashes, dots, `~`.
PARTS = st.lists(st.sampled_from(["/", ".", "..", "a", "b", "~", " ", "é"]), max_size=10).map(
    "".join
)


def test_what_it_takes_from_posix_is_what_os_gives() -> None:
    from_posix = [name for name in leanos.__all__ if hasattr(__import__("posix"), name)]
    assert len(from_posix) > 30
    for name in from_posix:
        assert getattr(leanos, name) is getattr(os, name), name
    for name in ("sep", "pathsep", "defpath", "devnull", "SEEK_SET"):
        assert getattr(leanos, name) == getattr(os, name), name


def test_its_environment_is_os_environ_once_os_is_loaded() -> None:
    assert leanos.environ is os.environ  # pytest loaded `os` first: a test's setenv is seen


@given(PARTS, st.lists(PARTS, max_size=3))
def test_join_is_posixpaths(first: str, rest: list[str]) -> None:
    assert leanos.path.join(first, *rest) == posixpath.join(first, *rest)


@given(PARTS)
def test_the_one_path_functions_are_posixpaths(p: str) -> None:
    assert leanos.path.split(p) == posixpath.split(p)
    assert leanos.path.dirname(p) == posixpath.dirname(p)
    assert leanos.path.basename(p) == posixpath.basename(p)
    assert leanos.path.isabs(p) == posixpath.isabs(p)
    assert leanos.path.normpath(p) == posixpath.normpath(p)
    assert leanos.path.abspath(p) == posixpath.abspath(p)


def test_path_functions_take_path_objects() -> None:
    where = PurePosixPath("/a/b/../c")
    assert leanos.path.normpath(where) == "/a/c"
    assert leanos.path.join(where, PurePosixPath("d")) == "/a/b/../c/d"
    assert leanos.path.split(where) == ("/a/b/..", "c")


@pytest.mark.parametrize("home", ["/home/person", "/home/person/", "/", "", "//x//"])
@pytest.mark.parametrize("p", ["~", "~/notes", "~root", "a/~"])
def test_expanduser_is_posixpaths(home: str, p: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", home)
    assert leanos.path.expanduser(p) == posixpath.expanduser(p)


def test_without_home_expanduser_is_posixpaths(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOME", raising=False)
    assert leanos.path.expanduser("~") == posixpath.expanduser("~")


def test_the_mode_tests_are_stats_for_every_file_type_and_permission() -> None:
    for mode in range(0o200000):
        assert leanos.S_ISREG(mode) == stat.S_ISREG(mode)
        assert leanos.S_ISDIR(mode) == stat.S_ISDIR(mode)
        assert leanos.S_ISLNK(mode) == stat.S_ISLNK(mode)


@given(st.text())
def test_fsencode_is_os_fsencode(name: str) -> None:
    assert leanos.fsencode(name) == os.fsencode(name)
    assert leanos.fsencode(PurePosixPath(name or ".")) == os.fsencode(PurePosixPath(name or "."))


def test_the_rare_paths_functions_are_os_own(tmp_path: os.PathLike[str]) -> None:
    folder = os.path.join(tmp_path, "a", "b")
    leanos.makedirs(folder, exist_ok=True)
    assert leanos.path.isdir(folder) and not leanos.path.isfile(folder)
    fd = leanos.open(os.path.join(folder, "f"), os.O_WRONLY | os.O_CREAT, 0o600)
    with leanos.fdopen(fd, "w") as out:
        out.write("x")
    assert leanos.path.realpath(folder) == os.path.realpath(folder)


# In a fresh `python -S`: what importing it loads, and the environment it decodes.
FRESH = r"""
import sys
sys.path.insert(0, SRC)
from abcd import leanos
loaded = sorted({"os", "stat", "posixpath", "_collections_abc"} & set(sys.modules))
mine = dict(leanos.environ)
import os
print(repr((loaded, mine == dict(os.environ), leanos.path.expanduser("~") == os.path.expanduser("~"))))
"""


@pytest.mark.parametrize("version", PYTHONS)
def test_in_a_fresh_interpreter_it_loads_no_os_and_decodes_the_environment_as_os_does(
    version: str,
) -> None:
    env = {b"PATH": b"/usr/bin:/bin", b"HOME": b"/home/p\xe9rson", b"ABCD_X": b"caf\xc3\xa9 \xff"}
    done = subprocess.run(
        [interpreter(version), "-S", "-c", FRESH.replace("SRC", repr(str(SRC)), 1)],
        env=env,
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert done.stdout.decode().strip() == "([], True, True)"

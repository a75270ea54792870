"""`os` for the lean commands (the hooks, the status line), without importing `os`.

`os` is CPython's `posix` module (the very same functions: `os.stat is posix.stat`)
with, written in Python, `os.path` (`posixpath`), `os.environ` and a few helpers.
Importing it loads `_collections_abc` (its abstract classes, registered one by
one), `stat`, `posixpath` and `genericpath`: ~0.9 ms of a fresh `python -S`,
which is how the plugin's launcher starts a hook (`plugin/hooks/abcd-hook`), so
no `site` has loaded `os` before (docs/performance.md, "Twentieth round"). The
lean commands' modules import this instead (`from abcd import leanos as os`),
and it gives the names they use:

- `posix`'s own functions and flags, the same objects `os` gives;
- `environ`: `os.environ` itself when `os` was loaded before this module (any
  process that imports the CLI, and every test), else the process's
  environment decoded as `os` decodes it (the file system encoding,
  `surrogateescape`), read once. Nothing in abcd changes its environment, so
  the two never differ;
- `path`: `join`, `split`, `dirname`, `basename`, `isabs`, `normpath` and
  `abspath` as `posixpath` writes them, and `expanduser` of `~` alone from
  `HOME`; `realpath`, `isfile`, `isdir` and `expanduser` of anything else are
  `posixpath`'s, imported when first asked (a rare path pays `os`, and does
  nothing differently);
- `S_ISREG`, `S_ISDIR`, `S_ISLNK` as `stat` defines them (without importing it);
- `fsencode`, `devnull`, `sep`, `pathsep`, `defpath`, `SEEK_SET`, and `makedirs`
  and `fdopen` (rare paths: `os`'s own, imported when first called).

`tests/test_leanos.py` holds each to the standard module's, on every Python
installed, in fresh interpreters. POSIX only, as abcd is (its hooks are shell scripts).
"""

import posix
import sys
from posix import (
    O_APPEND,
    O_CLOEXEC,
    O_CREAT,
    O_DIRECTORY,
    O_EXCL,
    O_NOFOLLOW,
    O_NONBLOCK,
    O_RDONLY,
    O_RDWR,
    O_WRONLY,
    W_OK,
    X_OK,
    _exit,
    access,
    close,
    dup,
    fspath,
    fstat,
    fsync,
    ftruncate,
    getcwd,
    geteuid,
    getpid,
    listdir,
    lseek,
    lstat,
    mkdir,
    open,
    pread,
    pwrite,
    read,
    rename,
    replace,
    stat,
    stat_result,
    unlink,
    urandom,
    utime,
    write,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from os import PathLike as PathLike  # for annotations: `os.PathLike[str]`
    from typing import IO, Any

__all__ = [
    "O_APPEND",
    "O_CLOEXEC",
    "O_CREAT",
    "O_DIRECTORY",
    "O_EXCL",
    "O_NOFOLLOW",
    "O_NONBLOCK",
    "O_RDONLY",
    "O_RDWR",
    "O_WRONLY",
    "SEEK_SET",
    "S_ISDIR",
    "S_ISLNK",
    "S_ISREG",
    "W_OK",
    "X_OK",
    "_exit",
    "access",
    "close",
    "defpath",
    "devnull",
    "dup",
    "environ",
    "fdopen",
    "fsencode",
    "fspath",
    "fstat",
    "fsync",
    "ftruncate",
    "getcwd",
    "geteuid",
    "getpid",
    "listdir",
    "lseek",
    "lstat",
    "makedirs",
    "mkdir",
    "open",
    "path",
    "pathsep",
    "pread",
    "pwrite",
    "read",
    "rename",
    "replace",
    "sep",
    "stat",
    "stat_result",
    "unlink",
    "urandom",
    "utime",
    "write",
]

sep = "/"
pathsep = ":"
defpath = "/bin:/usr/bin"  # `os.defpath` on POSIX
devnull = "/dev/null"
SEEK_SET = 0

_ENCODING = sys.getfilesystemencoding()

environ: "Mapping[str, str]"
if "os" in sys.modules:
    environ = sys.modules["os"].environ
else:
    environ = {
        key.decode(_ENCODING, "surrogateescape"): value.decode(_ENCODING, "surrogateescape")
        for key, value in posix.environ.items()
    }


def fsencode(filename: "str | bytes | PathLike[str] | PathLike[bytes]") -> bytes:
    """`os.fsencode`: a path as the bytes the system is given for it."""
    name = fspath(filename)
    return name.encode(_ENCODING, "surrogateescape") if isinstance(name, str) else name


# The file-type bits of `st_mode` and the types' values, as `stat` (and POSIX) defines them.
_S_IFMT = 0o170000
_S_IFDIR = 0o040000
_S_IFREG = 0o100000
_S_IFLNK = 0o120000


def S_ISREG(mode: int) -> bool:  # the name `stat` gives it
    """`stat.S_ISREG`: a regular file's mode."""
    return mode & _S_IFMT == _S_IFREG


def S_ISDIR(mode: int) -> bool:
    """`stat.S_ISDIR`: a folder's mode."""
    return mode & _S_IFMT == _S_IFDIR


def S_ISLNK(mode: int) -> bool:
    """`stat.S_ISLNK`: a symbolic link's mode."""
    return mode & _S_IFMT == _S_IFLNK


def makedirs(name: str, mode: int = 0o777, exist_ok: bool = False) -> None:
    """`os.makedirs` (a rare path: imports `os`)."""
    import os

    os.makedirs(name, mode, exist_ok)


def fdopen(fd: int, mode: str = "r", *args: "Any", **kwargs: "Any") -> "IO[Any]":
    """`os.fdopen` (a rare path: imports `os`)."""
    import os

    return os.fdopen(fd, mode, *args, **kwargs)


class path:  # read as `os.path`
    """`os.path`'s functions the lean commands use, as `posixpath` writes them."""

    @staticmethod
    def join(a: "str | PathLike[str]", *parts: "str | PathLike[str]") -> str:
        joined = fspath(a)
        for each in parts:
            part = fspath(each)
            if part.startswith("/"):
                joined = part
            elif not joined or joined.endswith("/"):
                joined += part
            else:
                joined += "/" + part
        return joined

    @staticmethod
    def split(p: "str | PathLike[str]") -> tuple[str, str]:
        p = fspath(p)
        at = p.rfind("/") + 1
        head, tail = p[:at], p[at:]
        if head and head != "/" * len(head):
            head = head.rstrip("/")
        return head, tail

    @staticmethod
    def dirname(p: "str | PathLike[str]") -> str:
        return path.split(p)[0]

    @staticmethod
    def basename(p: "str | PathLike[str]") -> str:
        p = fspath(p)
        return p[p.rfind("/") + 1 :]

    @staticmethod
    def isabs(p: "str | PathLike[str]") -> bool:
        return fspath(p).startswith("/")

    @staticmethod
    def normpath(p: "str | PathLike[str]") -> str:
        p = fspath(p)
        if not p:
            return "."
        # POSIX keeps exactly two leading slashes (their meaning is the system's own); one or
        # three and more are one.
        initial = 2 if p.startswith("//") and not p.startswith("///") else int(p.startswith("/"))
        kept: list[str] = []
        for part in p.split("/"):
            if part in ("", "."):
                continue
            if part != ".." or (not initial and not kept) or (kept and kept[-1] == ".."):
                kept.append(part)
            elif kept:
                kept.pop()
        return "/" * initial + "/".join(kept) or "."

    @staticmethod
    def abspath(p: "str | PathLike[str]") -> str:
        p = fspath(p)
        if not p.startswith("/"):
            p = path.join(getcwd(), p)
        return path.normpath(p)

    @staticmethod
    def expanduser(p: "str | PathLike[str]") -> str:
        if fspath(p) == "~" and "HOME" in environ:
            return environ["HOME"].rstrip("/") or "/"
        import posixpath

        return posixpath.expanduser(p)

    @staticmethod
    def realpath(p: "str | PathLike[str]") -> str:
        import posixpath

        return posixpath.realpath(p)

    @staticmethod
    def isfile(p: "str | PathLike[str]") -> bool:
        import posixpath

        return posixpath.isfile(p)

    @staticmethod
    def isdir(p: "str | PathLike[str]") -> bool:
        import posixpath

        return posixpath.isdir(p)

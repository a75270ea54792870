"""Home-directory paths: `/home/<name>`, `/Users/<name>`, `C:\\Users\\<name>`, and `$HOME` itself.

A home path names a person (their account) and a machine layout; a note says
`~/` or `$HOME/` instead, which pass. So do `/home/` with no name after it,
placeholders (`/home/$USER`, `/home/<you>`), relative paths that merely hold a
`home` folder (`src/home/views.py`), and the shared macOS and Windows folders
(`/Users/Shared`, `C:\\Users\\Public`, `C:\\Users\\Default`).

`/home/` and `/Users/` are matched in the case the systems write them (Linux
paths are case-sensitive and macOS always writes `/Users`); a Windows drive
path matches in any case and with either slash.

Invariant: `find_home_path` answers with a kind or `None`, never the path.
"""

from __future__ import annotations

from abcd.gate.compiled import compiled

HOME_PATH = "home path"

# `/home` (Linux), `/var/home` (Fedora Atomic), `/usr/home` (FreeBSD),
# `/export/home` (Solaris), `/Users` (macOS; also Git Bash's `/c/Users`).
_UNIX = (
    r"(?a)(?<![\w.~$-])(?:(?:/var|/usr|/export)?/home|(?:/[a-z])?/Users)/"
    r"(?!(?:Shared|Guest)(?![\w.-]))\w"
)
# A Windows profile: `C:\Users\x` (any drive, either slash, doubled backslashes),
# and the same folder as WSL (`/mnt/c/Users/x`) and Cygwin (`/cygdrive/c/...`)
# mount it; Windows paths ignore case.
_WINDOWS = (
    r"(?ai)(?:(?<![^\W_])[a-z]:|(?<![\w.~$-])(?:/mnt|/cygdrive)/[a-z])"
    r"(?:\\{1,2}|/)users(?:\\{1,2}|/)"
    r"(?!(?:public|default|default user|all users)(?![\w.-]))\w"
)
# `~name`: the shell's name for another account's home (`~alice/src`, `cd ~bob`).
# It starts a word and is followed by a slash, a space, a quote or the end;
# `~/`, `~+`, `~-` and `~5` are not names.
_TILDE_USER = r"(?a)(?:^|(?<=[\s\"'`=:(\[]))~[A-Za-z_][\w.-]{0,31}(?=[/\s\"'`)\]]|$)"
# Characters that continue a path component: a match of `$HOME` followed by one
# of them is a longer name (`/root` inside `/rootfs`), not the home folder.
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def _holds_literal_home(text: str, home: str) -> bool:
    home = home.rstrip("/\\")
    if not home:
        return False
    start = text.find(home)
    while start != -1:
        before = text[start - 1] if start else ""
        end = start + len(home)
        after = text[end : end + 2]
        glued_before = bool(before) and (before in _NAME_CHARS or before in "./~$")
        # A following `.` ends a sentence unless a name character follows it (`/root.d`).
        glued_after = after[:1] in _NAME_CHARS or (after[:1] == "." and after[1:2] in _NAME_CHARS)
        if not glued_before and not glued_after:
            return True
        start = text.find(home, start + 1)
    return False


def find_home_path(text: str, home: str | None = None) -> str | None:
    """`HOME_PATH` when `text` holds a home-directory path or the literal `home`, else `None`."""
    if home and home not in ("/", "\\") and _holds_literal_home(text, home):
        return HOME_PATH
    if ("/home/" in text or "/Users/" in text) and compiled("home-unix", _UNIX).search(text):
        return HOME_PATH
    if "users" in text.lower() and compiled("home-windows", _WINDOWS).search(text):
        return HOME_PATH
    if "~" in text and compiled("home-tilde", _TILDE_USER).search(text):
        return HOME_PATH
    return None

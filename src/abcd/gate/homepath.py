"""Home-directory paths: `/home/<name>`, `/Users/<name>`, `C:\\Users\\<name>`, and `$HOME` itself.

A home path names a person (their account) and a machine layout; a note says
`~/` or `$HOME/` instead, which pass. So do `/home/` with no name after it,
placeholders (`/home/$USER`, `/home/<you>`), relative paths that merely hold a
`home` folder (`src/home/views.py`), and the shared macOS and Windows folders
(`/Users/Shared`, `C:\\Users\\Public`, `C:\\Users\\Default`).

`/home/` and `/Users/` are matched in the case the systems write them (Linux
paths are case-sensitive and macOS always writes `/Users`); a Windows drive
path matches in any case and with either slash.

Each expression below is what the gate means; the scanners beside them find
the same matches with `str.find` (compiling the three would cost about 0.3 ms
of the gate's first call), and `tests/gate/test_homepath.py` holds each
scanner to its expression on samples and random text.

Invariant: `find_home_path` answers with a kind or `None`, never the path.
"""

from __future__ import annotations

from abcd.gate.compiled import compiled

HOME_PATH = "home path"

# `/home` (Linux), `/var/home` (Fedora Atomic), `/usr/home` (FreeBSD),
# `/export/home` (Solaris), `/Users` (macOS; also Git Bash's `/c/Users`). The path may be
# glued to a one-letter flag (`-I/home/x/include`, `-L/Users/x/lib`: a compiler's command
# line), and the name after the folder may start with a letter of any script (`(?u:\w)`,
# here and in `_WINDOWS`): a home folder is its account's name (`C:\Users\Élodie`).
_UNIX = (
    r"(?a)(?:(?<![\w.~$-])|(?<=(?<![\w.~$-])-[A-Za-z]))"
    r"(?:(?:/var|/usr|/export)?/home|(?:/[a-z])?/Users)/"
    r"(?!(?:Shared|Guest)(?![\w.-]))(?u:\w)"
)
# A Windows profile: `C:\Users\x` (any drive, either slash, doubled backslashes),
# and the same folder as WSL (`/mnt/c/Users/x`) and Cygwin (`/cygdrive/c/...`)
# mount it; Windows paths ignore case.
_WINDOWS = (
    r"(?ai)(?:(?<![^\W_])[a-z]:|(?<![\w.~$-])(?:/mnt|/cygdrive)/[a-z])"
    r"(?:\\{1,2}|/)users(?:\\{1,2}|/)"
    r"(?!(?:public|default|default user|all users)(?![\w.-]))(?u:\w)"
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


# What `\w` and `\s` are under `(?a)`, and the classes of the expressions above.
_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_ALNUM = _WORD - {"_"}
_GLUED = _WORD | frozenset(".~$-")  # a path that starts after one of these is part of a name
_NAME_GOES_ON = _WORD | frozenset(".-")
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")


def _starts_name(ch: str) -> bool:
    """What `(?u:\\w)` matches: a letter or digit of any script, or `_`."""
    return ch in _WORD or (not ch.isascii() and ch.isalnum())


_TILDE_BEFORE = frozenset(" \t\n\r\f\v\"'`=:([")
_TILDE_AFTER = frozenset("/ \t\n\r\f\v\"'`)]")


def _is_word(text: str, at: int, words: tuple[str, ...]) -> bool:
    """True when one of `words` starts at `at` and no name character follows it."""
    for word in words:
        end = at + len(word)
        if text.startswith(word, at) and not (end < len(text) and text[end] in _NAME_GOES_ON):
            return True
    return False


def _starts_path(text: str, at: int) -> bool:
    """True when a path may start at `at`: the start of the text or a character not in a name."""
    return at == 0 or (at > 0 and text[at - 1] not in _GLUED)


_LETTERS = _LOWER | frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _starts_unix_path(text: str, at: int) -> bool:
    """`_starts_path`, or glued to a one-letter flag that starts a word (`-I/home/x`)."""
    return _starts_path(text, at) or (
        at >= 2 and text[at - 2] == "-" and text[at - 1] in _LETTERS and _starts_path(text, at - 2)
    )


def _unix_home(text: str) -> bool:
    """`_UNIX`, without `re`."""
    for folder, prefixes in (("/home/", ("/var", "/usr", "/export")), ("/Users/", ())):
        at = text.find(folder)
        while at != -1:
            name = at + len(folder)
            named = name < len(text) and _starts_name(text[name])
            if named and not _is_word(text, name, ("Shared", "Guest")):
                if folder == "/Users/":
                    lone_drive = at >= 2 and text[at - 2] == "/" and text[at - 1] in _LOWER
                    starts = _starts_unix_path(text, at) or (
                        lone_drive and _starts_unix_path(text, at - 2)
                    )
                else:
                    starts = _starts_unix_path(text, at) or any(
                        text.startswith(p, at - len(p)) and _starts_unix_path(text, at - len(p))
                        for p in prefixes
                        if at >= len(p)
                    )
                if starts:
                    return True
            at = text.find(folder, at + 1)
    return False


def _windows_home(text: str, lowered: str) -> bool:
    """`_WINDOWS`, without `re` (`lowered` is `text.lower()`, as long as `text`)."""
    at = lowered.find("users")
    while at != -1:
        if _windows_drive_before(lowered, at) and _windows_name_after(lowered, at + 5):
            return True
        at = lowered.find("users", at + 1)
    return False


def _windows_drive_before(lowered: str, at: int) -> bool:
    """True when a drive (`c:`, `/mnt/c`, `/cygdrive/c`) and one separator end at `at`."""
    if at >= 1 and lowered[at - 1] == "/":
        end = at - 1
    elif at >= 1 and lowered[at - 1] == "\\":
        end = at - 2 if at >= 2 and lowered[at - 2] == "\\" else at - 1
    else:
        return False
    if end < 2:
        return False
    letter, colon = lowered[end - 2], lowered[end - 1]
    if colon == ":" and letter in _LOWER and not (end >= 3 and lowered[end - 3] in _ALNUM):
        return True
    if lowered[end - 1] not in _LOWER or lowered[end - 2] != "/":
        return False
    mount = end - 2
    return any(
        lowered.startswith(m, mount - len(m)) and _starts_path(lowered, mount - len(m))
        for m in ("/mnt", "/cygdrive")
        if mount >= len(m)
    )


def _windows_name_after(lowered: str, at: int) -> bool:
    """True when one separator and a name (not a shared profile) follow `users` at `at`."""
    if lowered.startswith("/", at):
        name = at + 1
    elif lowered.startswith("\\", at):
        name = at + 2 if lowered.startswith("\\\\", at) else at + 1
    else:
        return False
    if name >= len(lowered) or not _starts_name(lowered[name]):
        return False
    return not _is_word(lowered, name, ("public", "default", "default user", "all users"))


def _tilde_user(text: str) -> bool:
    """`_TILDE_USER`, without `re`."""
    at = text.find("~")
    while at != -1:
        if (at == 0 or text[at - 1] in _TILDE_BEFORE) and text[at + 1 : at + 2] in _WORD - set(
            "0123456789"
        ):
            end = at + 2
            while end < len(text) and end < at + 2 + 32 and text[end] in _NAME_GOES_ON:
                end += 1
            follows = text[end : end + 1]
            if end - (at + 2) <= 31 and (not follows or follows in _TILDE_AFTER):
                return True
        at = text.find("~", at + 1)
    return False


def find_home_path(text: str, home: str | None = None) -> str | None:
    """`HOME_PATH` when `text` holds a home-directory path or the literal `home`, else `None`."""
    if home and home not in ("/", "\\") and _holds_literal_home(text, home):
        return HOME_PATH
    if ("/home/" in text or "/Users/" in text) and _unix_home(text):
        return HOME_PATH
    lowered = text.lower()
    if "users" in lowered:
        # Lower-casing can change a non-ASCII text's length; the expression then judges it.
        if len(lowered) != len(text):
            if compiled("home-windows", _WINDOWS).search(text):
                return HOME_PATH
        elif _windows_home(text, lowered):
            return HOME_PATH
    if "~" in text and _tilde_user(text):
        return HOME_PATH
    return None

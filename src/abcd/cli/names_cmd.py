"""`abcd names`: keep this checkout's private-names list, and keep it out of git.

The gate refuses a note naming anyone on the list (docs/gate.md). The list is
`<repo>/.abcd/.work.local/private-names.txt`; a person should never publish it
by accident, so every command here that makes the folder also writes
`.abcd/.work.local/.gitignore` holding `*`: git then ignores the folder's whole
content, that file included, with nothing to add to the project's own
`.gitignore`. Before `add` or `edit` writes the list, git is asked whether it
ignores it (`git check-ignore`): a repository that ships its own
`.abcd/.work.local/.gitignore` (or has a link or a folder there) may not, and
then nothing is written and the refusal says how to fix it; `path` says so.
A list git already tracks is named, with the command that stops tracking it.
Nothing here prints a name except `list`, to the person who asked.
"""

from __future__ import annotations

import os
import shlex
import stat
import subprocess
from typing import Annotated

import typer

from abcd.cli.app import command_group
from abcd.cli.output import WROTE, notice
from abcd.errors import AbcdError, Refused
from abcd.gate.limits import PRIVATE_NAMES_MAX_BYTES
from abcd.gate.names import parse_private_names
from abcd.journal.lean import is_text
from abcd.repo import PRIVATE_NAMES, PRIVATE_NAMES_REL, Repo, find_repo, git_program
from abcd.terminal import escaped
from abcd.trust.guarded import Checkout, shown

FOLDER_REL = os.path.dirname(PRIVATE_NAMES_REL)  # .abcd/.work.local
GITIGNORE = "*\n"
HEADER = (
    "# Private names: the write gate refuses any note naming one of these (docs/gate.md).\n"
    "# One name a line; lines starting with # are comments. Kept out of git by .gitignore here.\n"
)

app = command_group(
    "Keep this checkout's private-names list (the gate refuses notes naming them), out of git."
    '\n\n\b\nExample:\n  abcd names add "Acme Corp"',
    no_args_is_help=True,
)


def _repo() -> Repo:
    repo = find_repo()
    if repo is None:
        raise AbcdError(
            "not in a git repository: the private-names list belongs to a checkout; "
            "run this inside one"
        )
    return repo


def _prepare(repo: Repo) -> str:
    """Make `.abcd/.work.local/` with its `.gitignore` if missing; the list's path. Callers read
    the list first (`_read`), so a list that will be refused leaves nothing made."""
    folder = os.path.join(repo.top, FOLDER_REL)
    ignore = os.path.join(folder, ".gitignore")
    made = False
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        if not os.path.lexists(ignore):
            with open(ignore, "x", encoding="utf-8") as handle:
                handle.write(GITIGNORE)
            made = True
    except OSError as err:
        raise Refused(
            "unwritable", message=f"refused: {shown(folder)}: cannot create: {err.strerror}"
        ) from None
    if made:  # said outside the try: a notice that fails is not a refusal to create
        WROTE.append(os.path.join(FOLDER_REL, ".gitignore"))
        notice(f"wrote {os.path.join(FOLDER_REL, '.gitignore')}: git ignores everything in it")
    path = os.path.join(repo.top, PRIVATE_NAMES_REL)
    _say_if_tracked(repo, path)
    return path


def _say_if_tracked(repo: Repo, path: str) -> None:
    git = git_program()
    if git is None:
        return  # without git there is nothing to publish it with
    try:
        tracked = subprocess.run(
            [git, "ls-files", "--error-unmatch", "--", PRIVATE_NAMES_REL],
            cwd=repo.top,
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return  # without git there is nothing to publish it with
    if tracked.returncode == 0 and os.path.lexists(path):
        notice(
            f"warning: git tracks {PRIVATE_NAMES_REL}, so a commit publishes it; stop with: "
            f"git rm --cached {shlex.quote(PRIVATE_NAMES_REL)}"
        )


def _not_ignored(repo: Repo) -> str | None:
    """What to say when git would not ignore the list (so a `git add -A` takes it), else `None`.

    Asked of git itself (`check-ignore --no-index`: its rules, whether or not the list is
    tracked, which `_say_if_tracked` says), so a `.gitignore` that is not abcd's `*`, a link git
    does not follow or a folder in its place all count. Without git, or when git cannot answer,
    nothing is said: without git there is nothing to publish the list with."""
    git = git_program()
    if git is None:
        return None
    try:
        asked = subprocess.run(
            [git, "check-ignore", "-q", "--no-index", "--", PRIVATE_NAMES_REL],
            cwd=repo.top,
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if asked.returncode != 1:  # 0: ignored; 128: git could not say
        return None
    ignore = os.path.join(FOLDER_REL, ".gitignore")
    return (
        f"git would not ignore {PRIVATE_NAMES_REL} ({ignore} is not abcd's `*`), so a commit "
        f"could publish the list; make git ignore it, say with a line `*` in {ignore} "
        "(a regular file)"
    )


def _refuse_unless_ignored(repo: Repo) -> None:
    """Refuse, before the list is written, when git would not ignore it."""
    said = _not_ignored(repo)
    if said is not None:
        raise Refused("not ignored by git", message=f"refused: {said}; nothing was written")


def _read(repo: Repo) -> str:
    """The list's text (`""` when there is none), read as the gate reads it: every trust check
    of a checkout's file, a FIFO opened without waiting and refused, at most its bound."""
    try:
        with Checkout.open(repo.top) as checkout:
            data = checkout.read(PRIVATE_NAMES, PRIVATE_NAMES_MAX_BYTES)
    except AbcdError as err:
        raise Refused("unreadable", message=f"refused: {err}") from None
    if data is None:
        return ""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise Refused("not UTF-8", message=f"refused: {PRIVATE_NAMES_REL} is not UTF-8") from None


def _append(path: str, text: str) -> None:
    """Append to the list (made 0600 if new), never through a symbolic link."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | os.O_NOFOLLOW
    try:
        fd = os.open(path, flags, 0o600)
    except OSError as err:
        raise Refused(
            "unwritable", message=f"refused: {PRIVATE_NAMES_REL}: {err.strerror}"
        ) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Refused(
                "unwritable", message=f"refused: {PRIVATE_NAMES_REL}: is not a regular file"
            )
        os.write(fd, text.encode("utf-8"))
        WROTE.append(PRIVATE_NAMES_REL)
    finally:
        os.close(fd)


@app.command()
def add(
    names: Annotated[
        list[str], typer.Argument(metavar="NAME...", help="A name the gate refuses; one or more.")
    ],
) -> None:
    """Add names to the list, making it (and its `.gitignore`) if it is not there yet.

    \b
    Example:
      abcd names add "Acme Corp" Globex
    """
    for place, name in enumerate(names, start=1):
        if "\n" in name or "\r" in name or not name.strip():
            raise Refused("bad name", message="refused: a name is one non-empty line")
        if not is_text(name):  # bytes that were not UTF-8 are kept as lone surrogates
            # Not named: the list is private, and the bytes would show only as escapes.
            raise Refused("bad name", message=f"refused: name {place} is not UTF-8 text")
        if name.strip().startswith("#"):
            raise Refused("bad name", message="refused: a name cannot start with # (a comment)")
    repo = _repo()
    text = _read(repo)
    path = _prepare(repo)
    _refuse_unless_ignored(repo)
    have = {n.casefold() for n in parse_private_names(text)}
    new = []
    for name in names:
        clean = " ".join(name.split())
        if clean.casefold() not in have:
            have.add(clean.casefold())
            new.append(clean)
    lead = "" if text else HEADER
    if text and not text.endswith("\n"):
        lead = "\n"
    if new:
        _append(path, lead + "".join(f"{n}\n" for n in new))
    print(
        f"{PRIVATE_NAMES_REL}: added {len(new)} name(s), {len(names) - len(new)} already there; "
        f"{len(have)} in all"
    )


@app.command("list")
def list_() -> None:
    """Print the names on this checkout's list, one a line (nothing is made or written).

    \b
    Example:
      abcd names list
    """
    repo = _repo()
    for name in parse_private_names(_read(repo)):
        print(escaped(name, keep=""))  # a control character in the list is shown, never run
    _say_if_tracked(repo, os.path.join(repo.top, PRIVATE_NAMES_REL))


@app.command()
def path() -> None:
    """Print the list's path (making its folder and `.gitignore`, not the list).

    \b
    Example:
      "$EDITOR" "$(abcd names path)"
    """
    repo = _repo()
    print(_prepare(repo))
    said = _not_ignored(repo)
    if said is not None:  # the path is asked for to write the list: say it before that
        notice(f"warning: {said}")


def _editor() -> tuple[list[str], str]:
    """The editor's command line, split as a shell would, and as set: refused before anything is
    made when it is not one (an unclosed quote, nothing but blanks)."""
    for variable in ("VISUAL", "EDITOR"):
        editor = os.environ.get(variable)
        if editor:
            try:
                command = shlex.split(editor)
            except ValueError as err:
                why = str(err)
            else:
                if command:
                    return command, editor
                why = "no command"
            raise Refused(
                "bad editor",
                message=f"refused: ${variable} is not a command line ({why}); nothing was written",
            )
    return ["vi"], "vi"


@app.command()
def edit() -> None:
    """Open the list in $VISUAL or $EDITOR (vi if neither is set), making it first if need be.

    \b
    Example:
      EDITOR=nano abcd names edit
    """
    repo = _repo()
    command, editor = _editor()
    made = not _read(repo)
    path = _prepare(repo)
    _refuse_unless_ignored(repo)
    if made:
        _append(path, HEADER)
    # Said when it fails after the list was made from its template: a failure that wrote says so.
    left = f"; {PRIVATE_NAMES_REL} was made from its template" if made else ""
    try:
        done = subprocess.run([*command, path], check=False)
    except OSError as err:
        raise AbcdError(f"cannot run the editor {editor!r}: {err.strerror}{left}") from None
    if done.returncode != 0:
        raise AbcdError(f"the editor {editor!r} exited {done.returncode}{left}")

"""The git repository a command runs in: its top folder, its primary checkout, its root commit.

Finding the repository walks up from the working folder looking for `.git`
(no subprocess, so the prompt hook pays nothing); only the root commit asks
git, and only when a caller reads it. The hook loads this module on every
prompt, so it imports only `os` (paths are plain strings; `subprocess` is
imported when git is asked).
"""

from __future__ import annotations

from abcd import leanos as os
from abcd.leanos import S_ISDIR, S_ISREG

TYPE_CHECKING = False
if TYPE_CHECKING:
    from subprocess import CompletedProcess

# The repository layer's files, under `<top>/.abcd/` (read through `abcd.trust.Checkout`), and
# the same under the top.
PRIVATE_NAMES = ".work.local/private-names.txt"
PROJECT_MEMORY = "memory.json"
PROJECT_RULES = "rules.json"
PROJECT_PAGES = "memory"
PRIVATE_NAMES_REL = f".abcd/{PRIVATE_NAMES}"
PROJECT_MEMORY_REL = f".abcd/{PROJECT_MEMORY}"
PROJECT_RULES_REL = f".abcd/{PROJECT_RULES}"
PROJECT_PAGES_REL = f".abcd/{PROJECT_PAGES}"

_UNASKED = "\0"  # `root_commit` before git was asked (no commit hash is this)


class Repo:
    """A checkout: `top` is its work tree; `primary` is the main checkout of a linked worktree.

    Both are absolute paths as strings. Read-only and compared by `top` and
    `primary`; the root commit is asked of git once, when first read.
    """

    __slots__ = ("_failed", "_primary", "_root", "_top")

    def __init__(
        self, top: str | os.PathLike[str], primary: str | os.PathLike[str] | None = None
    ) -> None:
        self._top = os.fspath(top)
        self._primary = os.fspath(primary) if primary is not None else None
        self._root: str | None = _UNASKED
        self._failed: Exception | None = None

    @property
    def top(self) -> str:
        return self._top

    @property
    def primary(self) -> str | None:
        return self._primary

    @property
    def root_commit(self) -> str | None:
        """The full hash of the repository's first root commit, `None` before the first commit.

        Raises `StorageError` when git cannot be run at all (not "no commit"), or the clone is
        shallow; asked once, so that error is raised again from then on.
        """
        if self._root == _UNASKED:
            try:
                self._root = _ask_root_commit(self._top)
            except Exception as err:
                self._failed = err  # asked once: a listing of many notes runs git once
                self._root = None
                raise
        if self._failed is not None:
            raise self._failed
        return self._root

    def private_names_checkouts(self) -> list[str]:
        """The checkouts whose banlists judge a note: this one and, in a linked worktree, the primary."""
        tops = [self._top]
        if self._primary is not None and self._primary != self._top:
            tops.append(self._primary)
        return tops

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Repo):
            return NotImplemented
        return (self._top, self._primary) == (other._top, other._primary)

    def __hash__(self) -> int:
        return hash((self._top, self._primary))

    def __repr__(self) -> str:
        return f"Repo(top={self._top!r}, primary={self._primary!r})"


def git_program() -> str | None:
    """The `git` to run, looked for in PATH's absolute folders only; `None` when there is none.

    Git is run from a checkout's top, and an empty or relative PATH entry (`PATH=$PATH:`, or
    `.`) names a folder there: a `git` the checkout holds would run in its place, from a hook
    the person never typed.
    """
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        path = os.path.join(folder, "git")
        if os.path.isabs(folder) and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def _ask_root_commit(top: str) -> str | None:
    import subprocess  # ~5 ms to import: paid only by a caller that needs the root

    from abcd.errors import StorageError

    no_git = "git is not on PATH, so this repository's root commit is unknown"
    git = git_program()
    if git is None:
        raise StorageError(no_git)
    try:
        out = _git(git, top, "rev-list", "--max-parents=0", "HEAD")
    except FileNotFoundError:  # gone since it was found
        raise StorageError(no_git) from None
    except (OSError, subprocess.SubprocessError) as err:
        raise StorageError(f"git could not tell this repository's root commit ({err})") from None
    roots = out.stdout.split() if out.returncode == 0 else []
    if roots and _cut_at(git, top, roots):
        raise StorageError(
            "this clone is shallow: its history is cut before the root commit, which ties a "
            "note to this repository; run git fetch --unshallow to bring it"
        )
    # rev-list lists newest first; the last is the history's original root.
    return roots[-1] if roots else None


def _git(git: str, top: str, *args: str) -> CompletedProcess[str]:
    """`git ARGS` run in `top`, its output as text; what `subprocess.run` raises."""
    import subprocess

    return subprocess.run(
        [git, *args], cwd=top, capture_output=True, text=True, timeout=30, check=False
    )


def _cut_at(git: str, top: str, roots: list[str]) -> bool:
    """Whether the original root `rev-list` found is a shallow clone's cut, not the first commit.

    A clone made with `--depth` lists the commits its history was cut at (git's `shallow`
    file) and `rev-list` gives them as roots: a note tied to one would be tied to a commit no
    full clone calls a root, and the notes tied to the real one would be withheld here.
    """
    import subprocess

    try:
        out = _git(git, top, "rev-parse", "--git-path", "shallow")
    except (OSError, subprocess.SubprocessError):
        return False  # rev-list answered a moment ago: read as not shallow
    path = out.stdout.strip()
    if out.returncode != 0 or not path:
        return False
    try:
        with open(os.path.join(top, path), encoding="ascii", errors="replace") as shallow:
            cut = set(shallow.read(1 << 20).split())
    except OSError:
        return False  # no such file: a full clone
    return roots[-1] in cut


# A `.git` file and a `commondir` each hold one path: far below this.
GIT_FILE_MAX_BYTES = 4096


def _read_git_file(path: str) -> str | None:
    """The text of a small regular file git keeps (`.git`, `commondir`), or `None`.

    Found on every prompt's walk up from the working folder, in any folder above it, so
    possibly planted by anyone: a FIFO is opened without waiting and refused, as is a device,
    and no more than `GIT_FILE_MAX_BYTES` is read, so such a file can neither hang the hook
    nor fill its memory. Links are followed, as git follows them.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (OSError, ValueError):
        return None
    try:
        if not S_ISREG(os.fstat(fd).st_mode):
            return None
        data = os.read(fd, GIT_FILE_MAX_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data.decode("utf-8", "replace") if len(data) <= GIT_FILE_MAX_BYTES else None


def _primary_of(dot_git_file: str) -> str | None:
    """For a linked worktree's `.git` file, the primary checkout's top folder."""
    text = _read_git_file(dot_git_file)
    if text is None:
        return None
    line = text.strip().splitlines()[0] if text.strip() else ""
    if not line.startswith("gitdir:"):
        return None
    gitdir = line[len("gitdir:") :].strip()
    if not os.path.isabs(gitdir):
        gitdir = os.path.realpath(os.path.join(os.path.dirname(dot_git_file), gitdir))
    common_text = _read_git_file(os.path.join(gitdir, "commondir"))
    if common_text is None:
        return None  # a submodule's .git file, not a linked worktree
    common = common_text.strip()
    absolute = os.path.isabs(common)
    common_dir = (
        os.path.normpath(common) if absolute else os.path.realpath(os.path.join(gitdir, common))
    )
    return os.path.dirname(common_dir) if os.path.basename(common_dir) == ".git" else None


def working_folder() -> str:
    """The working folder, or `""` when it is gone (removed under the process): in no checkout."""
    try:
        return os.getcwd()
    except OSError:
        return ""


def find_repo(start: str | os.PathLike[str] | None = None) -> Repo | None:
    """The checkout holding `start` (default: the working folder), or `None` outside one (a
    working folder that is gone is in none)."""
    start = start if start is not None else working_folder()
    if not os.path.isabs(start):
        cwd = working_folder()
        if not cwd:
            return None
        start = os.path.join(cwd, start)
    folder = os.path.normpath(start)
    while True:
        dot_git = os.path.join(folder, ".git")
        try:
            mode = os.stat(dot_git).st_mode
        except (OSError, ValueError):
            mode = 0
        if S_ISDIR(mode):
            return Repo(folder)
        if S_ISREG(mode):
            return Repo(folder, _primary_of(dot_git))
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent

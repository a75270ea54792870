"""The home and a checkout's `.abcd/`, each opened once, and `dir_fd`-relative opens below them.

Every open the tool makes goes through `open_at`, one seam a test can wrap to
record what was opened (SPEC P5). Failures are `TrustError`s naming the file
in `~/` form; an absent file is `None` and creates nothing.

This module is on the prompt hook's path, so it imports only `os`, `stat`
and `errno` (no pathlib, contextlib or secrets: each costs milliseconds).
"""

from __future__ import annotations

import errno

from abcd import leanos as os
from abcd.constants import DIR_MODE, FILE_MODE, HOME_DEFAULT_NAME, HOME_ENV
from abcd.errors import StorageError, TrustError
from abcd.leanos import S_ISLNK, S_ISREG

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType
    from typing import Self

_NOFOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW
# O_NONBLOCK so that opening a FIFO planted where a file should be never hangs.
_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | _NOFOLLOW


def open_at(path: str, flags: int, mode: int = FILE_MODE, dir_fd: int | None = None) -> int:
    """The one place the tool opens a file or folder (a seam for tests)."""
    return os.open(path, flags, mode, dir_fd=dir_fd)


def create_synced(
    name: str, data: bytes, dir_fd: int, *, durable: bool = True, mode: int = FILE_MODE
) -> None:
    """Create `name` in `dir_fd` (never over a file or through a link), write it whole, fsync it
    (unless not `durable`).

    `OSError` as the system raised it; the caller names the file.
    """
    fd = open_at(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, mode, dir_fd)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)


def locate_home() -> str:
    """`$ABCD_HOME`, else `~/.abcd.noindex`; never resolved through symlinks."""
    override = os.environ.get(HOME_ENV)
    if override:
        return os.path.abspath(override)
    return os.path.join(os.path.expanduser("~"), HOME_DEFAULT_NAME)


def shown(path: str | os.PathLike[str]) -> str:
    """A path in `~/` form when it lies under the person's home, else as it is."""
    text = os.fspath(path)
    home = os.path.expanduser("~").rstrip("/")
    if home and (text == home or text.startswith(home + "/")):
        return "~" + text[len(home) :]
    return text


CHECKOUT_LAYER = ".abcd"  # a checkout's layer: its folder under the repository's top

# Who may write what a scope holds besides its owner: no one for the home; the group for a
# checkout, whose files git writes under the person's umask (docs/decisions.md).
HOME_WRITABLE = 0o022
CHECKOUT_WRITABLE = 0o002


def check_owner_and_mode(st: os.stat_result, name: str, writable: int = HOME_WRITABLE) -> None:
    """Refuse what another account owns, or what the `writable` mode bits let others change."""
    if st.st_uid != os.geteuid():
        raise TrustError(name, f"owned by uid {st.st_uid}, not you")
    if st.st_mode & writable:
        who = "group or others" if writable & 0o020 else "others"
        raise TrustError(name, f"writable by {who}")


def _is_link(path: str, dir_fd: int | None) -> bool:
    try:
        return S_ISLNK(os.lstat(path, dir_fd=dir_fd).st_mode)
    except OSError:
        return False


def open_error(err: OSError, name: str, path: str, dir_fd: int | None = None) -> TrustError:
    """The trust error for a failed open of `path` (shown as `name`)."""
    # O_NOFOLLOW on a symlink fails with ELOOP; with O_DIRECTORY, a symlink to a
    # folder fails with ENOTDIR on Linux, so look before calling it "not a folder".
    if err.errno in (errno.ELOOP, errno.EMLINK) or (
        err.errno == errno.ENOTDIR and _is_link(path, dir_fd)
    ):
        return TrustError(name, "is a symlink (refused: links are never followed)")
    if err.errno == errno.ENOTDIR:
        return TrustError(name, "is not a folder")
    if err.errno == errno.EACCES:
        return TrustError(name, "permission denied")
    return TrustError(name, err.strerror or str(err))


def _parts(rel: str) -> list[str]:
    parts = [p for p in rel.split("/") if p]
    if not parts or any(p in (".", "..") for p in parts):
        raise ValueError(f"not a plain relative path: {rel!r}")
    return parts


def _read_bounded(fd: int, st: os.stat_result, max_bytes: int, name: str) -> bytes:
    if st.st_size > max_bytes:
        raise TrustError(name, f"larger than its bound of {max_bytes} bytes")
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        if total > max_bytes:
            raise TrustError(name, f"larger than its bound of {max_bytes} bytes")
    return b"".join(chunks)


class _Folder:
    """`with home.folder(rel) as dfd:` a folder descriptor (or `None`), closed on exit."""

    def __init__(self, fd: int | None) -> None:
        self.fd = fd

    def __enter__(self) -> int | None:
        return self.fd

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.fd is not None:
            os.close(self.fd)


class _Scope:
    """A folder held open as a descriptor, and the checked `dir_fd`-relative opens below it.

    Every folder walked and every file opened is reached without following a
    link, is owned by this account, and has none of the `writable` mode bits.
    """

    writable = HOME_WRITABLE

    def __init__(self, path: str, fd: int) -> None:
        self.path = path
        self.fd = fd

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def shown(self, rel: str = "") -> str:
        return shown(f"{self.path}/{rel}" if rel else self.path)

    # -- folders -------------------------------------------------------------

    def open_dir(self, rel: str, *, create: bool = False) -> int | None:
        """A descriptor of the folder `rel` below the scope, every step opened without following.

        `None` when a step is absent and `create` is false. The caller closes it.
        """
        fd = os.dup(self.fd)
        walked = ""
        try:
            for part in _parts(rel):
                walked = f"{walked}/{part}" if walked else part
                if create:
                    try:
                        os.mkdir(part, DIR_MODE, dir_fd=fd)
                    except FileExistsError:
                        pass
                    except OSError as err:
                        raise StorageError(
                            f"{self.shown(walked)}: cannot create: {err.strerror}"
                        ) from err
                try:
                    child = open_at(part, _DIR_FLAGS, dir_fd=fd)
                except FileNotFoundError:
                    os.close(fd)
                    return None
                except OSError as err:
                    raise open_error(err, self.shown(walked), part, fd) from err
                os.close(fd)
                fd = child
                st = os.fstat(fd)
                if st.st_uid != os.geteuid() or st.st_mode & self.writable:
                    check_owner_and_mode(st, self.shown(walked), self.writable)
            return fd
        except BaseException:
            os.close(fd)
            raise

    def folder(self, rel: str, *, create: bool = False) -> _Folder:
        """`with home.folder(rel) as dfd:`; `dfd` is `None` when the folder is absent."""
        return _Folder(self.open_dir(rel, create=create) if rel else os.dup(self.fd))

    # -- files ---------------------------------------------------------------

    def _split(self, rel: str) -> tuple[str, str]:
        parts = _parts(rel)
        return "/".join(parts[:-1]), parts[-1]

    def open_file(self, rel: str, flags: int = _READ_FLAGS) -> tuple[int, os.stat_result] | None:
        """Open `rel` for reading after every check; `None` when absent. The caller closes it."""
        folder, leaf = self._split(rel)
        with self.folder(folder) as dfd:
            if dfd is None:
                return None
            return self.open_in(dfd, leaf, rel, flags)

    def open_in(
        self, dfd: int, leaf: str, rel: str, flags: int = _READ_FLAGS
    ) -> tuple[int, os.stat_result] | None:
        """Open `leaf` in the folder `dfd` (which is `rel`'s folder) after every check."""
        try:
            fd = open_at(leaf, flags | _NOFOLLOW, FILE_MODE, dfd)
        except FileNotFoundError:
            return None
        except OSError as err:
            raise open_error(err, self.shown(rel), leaf, dfd) from err
        try:
            st = os.fstat(fd)
            if not S_ISREG(st.st_mode):
                raise TrustError(self.shown(rel), "is not a regular file")
            if st.st_uid != os.geteuid() or st.st_mode & self.writable:
                check_owner_and_mode(st, self.shown(rel), self.writable)
        except BaseException:
            os.close(fd)
            raise
        return fd, st

    def read(self, rel: str, max_bytes: int) -> bytes | None:
        """The whole of `rel`, after every check; `None` when absent (nothing is created)."""
        read = self.read_stat(rel, max_bytes)
        return None if read is None else read[0]

    def read_stat(self, rel: str, max_bytes: int) -> tuple[bytes, os.stat_result] | None:
        """The whole of `rel` and the `stat` of the file it was read from; `None` when absent."""
        opened = self.open_file(rel)
        if opened is None:
            return None
        fd, st = opened
        try:
            return _read_bounded(fd, st, max_bytes, self.shown(rel)), st
        except OSError as err:
            raise StorageError(f"{self.shown(rel)}: {err.strerror}") from err
        finally:
            os.close(fd)


class Home(_Scope):
    """The machine home, held open as a folder descriptor for `dir_fd`-relative opens."""

    # -- opening -------------------------------------------------------------

    @classmethod
    def open(
        cls, path: str | os.PathLike[str] | None = None, *, create: bool = False
    ) -> Home | None:
        """Open the home; `None` when it is absent and `create` is false."""
        text = os.fspath(path) if path is not None else locate_home()
        if create:
            try:
                os.mkdir(text, DIR_MODE)
            except FileExistsError:
                pass
            except OSError as err:
                raise StorageError(f"{shown(text)}: cannot create: {err.strerror}") from err
        try:
            fd = open_at(text, _DIR_FLAGS)
        except FileNotFoundError:
            return None
        except OSError as err:
            raise open_error(err, shown(text), text) from err
        try:
            check_owner_and_mode(os.fstat(fd), shown(text))
        except BaseException:
            os.close(fd)
            raise
        return cls(text, fd)

    def write_atomic(self, rel: str, data: bytes, *, durable: bool = True) -> None:
        """Replace `rel` whole: temp file in the same folder, fsync, rename, fsync the folder.

        Not `durable` (a cache every reader checks and can do without): no fsync, so after a
        crash the file may hold the old bytes or bytes that do not check, never a mix that does.
        """
        folder, leaf = self._split(rel)
        with self.folder(folder, create=True) as dfd:
            assert dfd is not None  # create=True never yields None
            tmp = f".{leaf}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
            try:
                create_synced(tmp, data, dfd, durable=durable)
                os.rename(tmp, leaf, src_dir_fd=dfd, dst_dir_fd=dfd)
                if durable:
                    os.fsync(dfd)
            except OSError as err:
                try:
                    os.unlink(tmp, dir_fd=dfd)
                except OSError:
                    pass
                raise StorageError(f"{self.shown(rel)}: cannot write: {err.strerror}") from err


class CheckoutRefused(TrustError):
    """The checkout itself (its top folder, `.git` or `.abcd/`) failed a check: nothing in it is read."""


class Checkout(_Scope):
    """A repository's `.abcd/` folder, opened once after the checkout's own checks.

    The checkout is trusted like the home, as git trusts a repository
    (`safe.directory`): its top folder and its `.git` must be this account's,
    and `.abcd/`, each folder walked below it and each file read must be this
    account's, reached without following a link, and not writable by others
    (the group may write: git writes a checkout under the person's umask).
    A refused checkout is held as `refused`, raised by every read, so each
    layer names it; an absent `.abcd/` reads as nothing and is never judged.
    """

    writable = CHECKOUT_WRITABLE

    def __init__(self, top: str, fd: int, refused: CheckoutRefused | None = None) -> None:
        super().__init__(os.path.join(top, CHECKOUT_LAYER), fd)
        self.top = top
        self.refused = refused

    @classmethod
    def open(cls, top: str | os.PathLike[str]) -> Checkout:
        """The layer of the checkout at `top`; never raises a trust error, it holds it."""
        text = os.fspath(top)
        try:
            top_fd = open_at(text, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError:
            return cls(text, -1)  # gone, or not a folder: nothing to read
        try:
            try:
                fd = open_at(CHECKOUT_LAYER, _DIR_FLAGS, dir_fd=top_fd)
            except FileNotFoundError:
                return cls(text, -1)
            except OSError as err:
                name = shown(os.path.join(text, CHECKOUT_LAYER))
                trust = open_error(err, name, CHECKOUT_LAYER, top_fd)
                return cls(text, -1, CheckoutRefused(name, trust.reason))
            try:
                _check_checkout(top_fd, fd, text)
            except TrustError as err:
                os.close(fd)
                return cls(text, -1, CheckoutRefused(err.shown_path, err.reason))
            return cls(text, fd)
        finally:
            os.close(top_fd)

    def read(self, rel: str, max_bytes: int) -> bytes | None:
        """The whole of `rel` under `.abcd/` after every check; `None` when absent."""
        if self.refused is not None:
            raise self.refused
        return super().read(rel, max_bytes) if self.fd >= 0 else None

    def open_dir(self, rel: str, *, create: bool = False) -> int | None:
        """A descriptor of the folder `rel` under `.abcd/` after every check; `None` when absent."""
        if self.refused is not None:
            raise self.refused
        return super().open_dir(rel) if self.fd >= 0 else None


def _check_checkout(top_fd: int, fd: int, top: str) -> None:
    """The top folder and `.git` are this account's (as git asks); `.abcd/` is checked as a folder."""
    _check_repository(top_fd, top)
    check_owner_and_mode(os.fstat(fd), shown(os.path.join(top, CHECKOUT_LAYER)), CHECKOUT_WRITABLE)


def _check_repository(top_fd: int, top: str) -> None:
    check_owner_and_mode(os.fstat(top_fd), shown(top), 0)
    try:
        git = os.stat(".git", dir_fd=top_fd)  # a folder, or a linked worktree's file
    except OSError:
        git = None  # not a repository's top (a folder a test or a caller named)
    if git is not None:
        check_owner_and_mode(git, shown(os.path.join(top, ".git")), 0)


def foreign_repository(top: str | os.PathLike[str]) -> TrustError | None:
    """Why git would not read the repository at `top` (its top folder or `.git` is another
    account's), or `None`; what cannot be opened is not judged here."""
    text = os.fspath(top)
    try:
        top_fd = open_at(text, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        _check_repository(top_fd, text)
    except TrustError as err:
        return err
    finally:
        os.close(top_fd)
    return None

"""The per-session files: `<home>/sessions/<sha256(session)>.jsonl` and `<home>/fill/<sha256(session)>.jsonl`.

A session id never appears in a file name or in output: files are named by
its SHA-256. Appends are one `O_APPEND` write of whole lines (atomic for
lines this small), through the trust layer; reads are guarded and bounded.
The stale sweep deletes whole files older than a fixed age.
"""

from __future__ import annotations

import time

from abcd import leanos as os
from abcd.clock import now_rfc3339
from abcd.digest import sha256_hex
from abcd.errors import AbcdError, StorageError
from abcd.recall.constants import SESSION_STALE_SECONDS
from abcd.session.events import (
    SessionEvent,
    SessionRecord,
    decode_session_lines,
    encode_session_line,
)
from abcd.trust import Home

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

SESSIONS_DIR = "sessions"
CACHE_DIR = "cache"  # the recall stem caches (`abcd.recall.stemcache`), swept with the sessions
FILL_DIR = "fill"
# A session file holds a few lines per prompt; this bound is far past any real session.
SESSION_FILE_MAX_BYTES = 8 * 1024 * 1024
# What a reviewer's read of a whole session file may hold (`abcd.notes.provenance`: every send
# of the session, from its first prompt): the hook and the status line read a file back to its
# last reset or reading only, under `SESSION_FILE_MAX_BYTES`, so a session may grow past that.
SESSION_FILE_REVIEW_MAX_BYTES = 64 * 1024 * 1024
# Read and write: an append first reads the last byte, to end a torn line.
_APPEND = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: a FIFO in the mark's place fails to open (ENXIO) instead of holding the start.
_STAMP = os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC


def file_name(session_id: str) -> str:
    return sha256_hex(session_id.encode("utf-8")) + ".jsonl"


def read_events(
    home: Home, folder: str, session_id: str, problems: list[str] | None = None
) -> list[SessionRecord]:
    """The session's events, oldest first; empty when the file or folder is absent.

    A line that is not JSON is skipped; with `problems`, one line naming the
    file says how many were.
    """
    rel = f"{folder}/{file_name(session_id)}"
    data = home.read(rel, SESSION_FILE_MAX_BYTES)
    return _decoded(home, rel, data, problems) if data else []


def _decoded(home: Home, rel: str, data: bytes, problems: list[str] | None) -> list[SessionRecord]:
    records, unreadable = decode_session_lines(data)
    if unreadable and problems is not None:
        problems.append(f"{home.shown(rel)}: {unreadable} unreadable line(s) skipped")
    return records


# How a reset line reads on disk (the codec writes compact separators).
_RESET_MARK = b'"type":"session.reset"'
_TAIL_FIRST_BYTES = 64 * 1024


def read_events_since_reset(
    home: Home, folder: str, session_id: str, problems: list[str] | None = None
) -> list[SessionRecord]:
    """The session's events from its last reset on (all of them when it has none), and, as
    `read_events`, a line in `problems` when some were not JSON.

    A session file only grows, and the ledger is the fold since the last
    reset, so the hook reads the file from its end back to that reset: the
    cost follows the prompts since the reset, not the session's length. The
    hook writes again, after every reset, the facts that outlive one
    (`repo.seen`, `fill.unknown-said`). The bound is on what is read: a long
    session's file may pass it (seventeenth round: past 8 MiB, some thousands
    of prompts, its ledger was refused on every prompt and every item sent
    again), the prompts since its last reset may not.
    """
    rel = f"{folder}/{file_name(session_id)}"

    def since_reset(start: int, data: bytes, last: bool) -> list[SessionRecord] | None:
        mark = data.rfind(_RESET_MARK)
        line = data.rfind(b"\n", 0, mark) + 1 if mark >= 0 else 0
        if start == 0 or (mark >= 0 and line > 0):
            return _decoded(home, rel, data[line:] if mark >= 0 else data, problems)
        if last:
            from abcd.errors import TrustError

            raise TrustError(
                home.shown(rel),
                f"more than its bound of {SESSION_FILE_MAX_BYTES} bytes since its last reset",
            )
        return None

    return _read_back(home, rel, _TAIL_FIRST_BYTES, 4, since_reset)


def _read_back(
    home: Home,
    rel: str,
    span: int,
    growth: int,
    judge: Callable[[int, bytes, bool], list[SessionRecord] | None],
) -> list[SessionRecord]:
    """What `judge` makes of the first of ever larger windows of a file's end it takes (`span`
    bytes first, then `growth` times as many), given where each starts, its bytes, and whether it
    is the last (the file's start, or the bound); empty when the file is absent."""
    opened = home.open_file(rel)
    if opened is None:
        return []
    fd, st = opened
    size = st.st_size
    try:
        while True:
            start = max(0, size - min(span, SESSION_FILE_MAX_BYTES))
            data = os.pread(fd, size - start, start)
            last = start == 0 or span >= SESSION_FILE_MAX_BYTES
            taken = judge(start, data, last)
            if taken is not None or last:
                return taken or []
            span *= growth
    except OSError as err:
        raise StorageError(f"{home.shown(rel)}: {err.strerror}") from err
    finally:
        os.close(fd)


# How much of its end `read_events_back_to` reads first: the last status line readings, some 90.
_LAST_FIRST_BYTES = 8 * 1024


def read_events_back_to(
    home: Home,
    folder: str,
    session_id: str,
    wanted: Callable[[SessionRecord], bool],
    problems: list[str] | None = None,
) -> list[SessionRecord]:
    """The session's last events, oldest first: those of its file's last 8 KiB, or back far enough
    to hold the last one `wanted` picks (all of them when none does), within its bound; and, as
    `read_events`, a line in `problems` when some of the lines read were not JSON.

    A fill file gains a line each time the status line reads a new figure
    (tens a prompt), and only its last reading says the fill: read whole, a
    session of 5,000 prompts cost every prompt and every status line refresh
    some 200 ms (seventeenth round), and past the bound the fill was refused.
    A window that does not start the file drops its first line, which it may
    have cut.
    """
    rel = f"{folder}/{file_name(session_id)}"

    def back_to(start: int, data: bytes, last: bool) -> list[SessionRecord] | None:
        if start:
            cut = data.find(b"\n")
            data = data[cut + 1 :] if cut >= 0 else b""
        records, unreadable = decode_session_lines(data)
        if not (last or any(map(wanted, records))):
            return None
        if unreadable and problems is not None:
            problems.append(f"{home.shown(rel)}: {unreadable} unreadable line(s) skipped")
        return records

    return _read_back(home, rel, _LAST_FIRST_BYTES, 8, back_to)


def append_events(
    home: Home,
    folder: str,
    session_id: str,
    events: Sequence[SessionEvent],
    *,
    create_folder: bool = True,
) -> bool:
    """Append the events as whole lines; `False` (nothing written) when the folder is absent and not created."""
    if not events:
        return True
    at = now_rfc3339()
    data = b"".join(encode_session_line(at, e) for e in events)
    rel = f"{folder}/{file_name(session_id)}"
    with home.folder(folder, create=create_folder) as dfd:
        if dfd is None:
            return False
        opened = home.open_in(dfd, file_name(session_id), rel, _APPEND)
        assert opened is not None  # O_CREAT
        fd, st = opened
        try:
            # A torn last line (a writer died mid-line) is ended first, so it stays one bad line
            # and does not swallow the first of these.
            size = st.st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                data = b"\n" + data
            written = os.write(fd, data)
        except OSError as err:
            raise StorageError(f"{home.shown(rel)}: cannot append: {err.strerror}") from err
        finally:
            os.close(fd)
    if written < len(data):  # a full disk: the torn line is ended by the next append
        raise StorageError(
            f"{home.shown(rel)}: cannot append: wrote {written} of {len(data)} bytes"
        )
    return True


# A session's start looks at most this many files of a folder for the sweep (`sweep_stale`).
SWEEP_AT_ONCE = 512
# ...and sweeps at most once in this many seconds, the last sweep's moment kept as the mtime of
# `SWEPT_MARK` in the sessions folder: the other starts skip listing the folders.
SWEEP_EVERY_SECONDS = 600
SWEPT_MARK = ".swept"


def sweep_stale(home: Home, now: float | None = None) -> int:
    """Delete whole session, fill and recall-cache files older than the fixed age; return how many.

    A session's start sweeps when the last sweep (`SWEPT_MARK`'s mtime) is more than
    `SWEEP_EVERY_SECONDS` old, or in the future (the clock was set back): listing the folders
    cost a start 40 ms at 10,000 past sessions. A folder of more than `SWEEP_AT_ONCE` files has
    that many of them looked at, a window that moves with the clock, so a sweep costs the same
    however many sessions the week held (10,000 cost 79 ms, every file `stat`ed); a stale file is
    removed by a later sweep instead, and nothing reads it meanwhile (its session is a week old).
    """
    moment = now if now is not None else time.time()
    cutoff = moment - SESSION_STALE_SECONDS
    removed = 0
    for folder, suffix in ((SESSIONS_DIR, ".jsonl"), (FILL_DIR, ".jsonl"), (CACHE_DIR, ".marshal")):
        with home.folder(folder) as dfd:
            if dfd is None:
                continue
            if folder == SESSIONS_DIR and _swept_lately(dfd, moment):
                return 0  # the sessions folder is the first: nothing was swept
            names = [name for name in os.listdir(dfd) if name.endswith(suffix)]
            if len(names) > SWEEP_AT_ONCE:
                start = int(moment * 1000) % len(names)
                names = (names[start:] + names[:start])[:SWEEP_AT_ONCE]
            for name in names:
                try:
                    st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
                    if st.st_mtime < cutoff:
                        os.unlink(name, dir_fd=dfd)
                        removed += 1
                except OSError:
                    continue
            if folder == SESSIONS_DIR:
                _mark_swept(home, dfd, moment)
    return removed


def _swept_lately(dfd: int, moment: float) -> bool:
    """Whether `SWEPT_MARK` in the sessions folder `dfd` says a sweep ran within
    `SWEEP_EVERY_SECONDS` before `moment` (a mark in the future does not: the clock was set back)."""
    try:
        last = os.stat(SWEPT_MARK, dir_fd=dfd, follow_symlinks=False).st_mtime
    except OSError:
        return False
    return moment - SWEEP_EVERY_SECONDS < last <= moment


def _mark_swept(home: Home, dfd: int, moment: float) -> None:
    """Stamp `SWEPT_MARK` with the sweep's moment; a mark that cannot be written (or a file in
    its place this account does not own) leaves every start sweeping, as before the mark."""
    try:
        opened = home.open_in(dfd, SWEPT_MARK, f"{SESSIONS_DIR}/{SWEPT_MARK}", _STAMP)
        if opened is not None:
            fd, _ = opened
            try:
                os.utime(fd, (moment, moment))
            finally:
                os.close(fd)
    except (OSError, AbcdError):
        pass

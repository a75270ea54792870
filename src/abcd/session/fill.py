"""How full the session's context window is: status line readings, else the transcript's tail, else unknown.

The fill is a fold, never a stored state. It is the last `FillRead` in
`<home>/fill/<sha256(session)>.jsonl` stamped after the session's last
`SessionReset` in `<home>/sessions/<sha256(session)>.jsonl` (the two files'
`at` stamps are compared, so a compaction is never followed by the figure
from before it). Without such a reading, the last main-chain reply in the
last 256 KiB of the host's transcript gives it: input + cache-creation +
cache-read tokens over the model's window from `MODEL_WINDOWS`. Otherwise
it is unknown.

The invariant: `current_fill` never raises and never writes; every open goes
through `abcd.trust.guarded.open_at`, a transcript is read only when it is a
regular file of this account reached without following a final symlink,
and never more than `TRANSCRIPT_TAIL_BYTES` of it. This module is on the
prompt hook's path: it imports the standard library's `json` and nothing
heavier (no msgspec, no `typing` at run time).
"""

from __future__ import annotations

from abcd import fastjson
from abcd import leanos as os
from abcd.errors import AbcdError
from abcd.leanos import S_ISREG
from abcd.session.events import FillRead, SessionReset
from abcd.session.files import (
    FILL_DIR,
    SESSIONS_DIR,
    read_events_back_to,
    read_events_since_reset,
)
from abcd.trust import guarded
from abcd.value import Value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Final, Literal

    from abcd.session.events import SessionRecord
    from abcd.trust.guarded import Home

    FillSource = Literal["statusline", "transcript", "unknown"]

# The hook reads at most this much of the transcript's end: a long session's
# transcript runs to tens of MB, and the last reply sits near the end (one
# turn's tool output rarely passes this; when it does, the fill is unknown).
TRANSCRIPT_TAIL_BYTES: Final = 256 * 1024

# Context window per model, in tokens, by longest matching prefix of the
# model id the transcript records (`message.model`, e.g. `claude-opus-4-8`).
# Where a model is sold with two windows (200k, and 1M in a beta or a
# separate tier) the table holds the smaller: the transcript does not say
# which one the session runs with, and guessing small only shrinks recall
# early, while guessing large would flood a 200k window that is nearly full.
MODEL_WINDOWS: Final[dict[str, int]] = {
    # Every Claude model since claude-2.1 (November 2023) has at least 200k.
    "claude-": 200_000,
    # The first Claude 2 and Instant models had 100k.
    "claude-2.0": 100_000,
    "claude-instant": 100_000,
    # Families also offered with a 1M window: the smaller, as above.
    "claude-opus-4": 200_000,
    "claude-sonnet-4": 200_000,
    "claude-haiku-4": 200_000,
}

# A reply the host made up without asking the model ("No response
# requested.") carries this model and zero usage: it says nothing of the fill.
_SYNTHETIC_MODEL_PREFIX = "<"
_TOKEN_FIELDS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class Fill(Value):
    """How full the window is (percent used, 0-100) and where the figure came from.

    `problem` is one line naming a session or fill file that failed a trust
    check (the fill then fell back as if it were absent); the hook prints it.
    """

    __slots__ = ("problem", "source", "used_percentage")
    __match_args__ = ("used_percentage", "source", "problem")
    used_percentage: float | None
    source: FillSource
    problem: str | None

    def __init__(
        self, used_percentage: float | None, source: FillSource, problem: str | None = None
    ) -> None:
        object.__setattr__(self, "used_percentage", used_percentage)
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "problem", problem)


def _percent(used: float) -> float:
    return min(100.0, max(0.0, used))


def _as_percent(value: float) -> float | None:
    """A figure held to 0-100; `None` for NaN (no figure at all)."""
    try:
        figure = float(value)
    except OverflowError:  # an integer too large for a float is past full
        return 100.0 if value > 0 else 0.0
    return None if figure != figure else _percent(figure)


# --- status line readings ---------------------------------------------------


def reading_after_last_reset(
    fill_records: Iterable[SessionRecord], session_records: Iterable[SessionRecord]
) -> float | None:
    """The last `FillRead` stamped after the last `SessionReset`, held to 0-100; `None` when there is none."""
    last_reset = max(
        (r.at for r in session_records if isinstance(r.event, SessionReset)), default=""
    )
    figure: float | None = None
    for record in fill_records:
        if isinstance(record.event, FillRead) and record.at > last_reset:
            value = _as_percent(record.event.used_percentage)
            if value is not None:  # a NaN is no reading
                figure = value
    return figure


def is_reading(record: SessionRecord) -> bool:
    """Whether `record` is a status line reading with a figure (a NaN is none)."""
    event = record.event
    return isinstance(event, FillRead) and _as_percent(event.used_percentage) is not None


# --- the transcript ---------------------------------------------------------


class Reply(Value):
    """A main-chain reply from the model: its id and the tokens its request carried."""

    __slots__ = ("model", "used_tokens")
    __match_args__ = ("model", "used_tokens")
    model: str
    used_tokens: int

    def __init__(self, model: str, used_tokens: int) -> None:
        object.__setattr__(self, "model", model)
        object.__setattr__(self, "used_tokens", used_tokens)


class Compaction(Value):
    """A `compact_boundary`: what came before it is no longer in the window."""

    __slots__ = ()


def _count(value: object) -> int | None:
    if value is None:
        return 0
    if type(value) is not int or value < 0:  # `bool` is an int subclass: not a count
        return None
    return value


def parse_transcript_line(line: bytes) -> Reply | Compaction | None:
    """What one transcript line says about the fill; `None` for any other or malformed line."""
    # Cheap before decoding: the quoted token can only be a JSON key or value
    # (inside a string its quotes would be escaped), and most lines carry neither.
    if b'"assistant"' not in line and b'"compact_boundary"' not in line:
        return None
    # The host writes compact JSON, its top-level `isSidechain` before `message`: a subagent's
    # line is passed over without decoding (a tail full of them would otherwise cost the hook
    # milliseconds). The same bytes after `message` are inside it (a tool's input is an object,
    # written as the model wrote it) and decide nothing: the decoded field does.
    side = line.find(b'"isSidechain":true')
    if 0 <= side < line.find(b'"message"'):
        return None
    try:
        entry = fastjson.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(entry, dict) or entry.get("isSidechain") not in (None, False):
        return None
    kind = entry.get("type")
    if kind == "system" and entry.get("subtype") == "compact_boundary":
        return Compaction()
    message = entry.get("message")
    if kind != "assistant" or not isinstance(message, dict):
        return None
    model, usage = message.get("model"), message.get("usage")
    if not isinstance(model, str) or model.startswith(_SYNTHETIC_MODEL_PREFIX):
        return None
    if not isinstance(usage, dict) or "input_tokens" not in usage:
        return None
    counts = [_count(usage.get(name)) for name in _TOKEN_FIELDS]
    if None in counts:
        return None
    return Reply(model, sum(n for n in counts if n is not None))


def window_for(model: str) -> int | None:
    """The model's window from `MODEL_WINDOWS` (longest matching prefix); `None` when none matches."""
    best = ""
    for prefix in MODEL_WINDOWS:
        if model.startswith(prefix) and len(prefix) > len(best):
            best = prefix
    return MODEL_WINDOWS[best] if best else None


def fill_from_transcript(tail: bytes, *, starts_file: bool) -> float | None:
    """Percent used by the last fact in `tail`: a reply gives its share, a compaction 0.

    A compaction after the last reply means the window holds only the
    summary; the host's own status line reads 0 then, and so does this.
    A first line of a tail that does not start the file may be cut: skipped.
    """
    lines = tail.split(b"\n")
    if not starts_file:
        lines = lines[1:]
    for line in reversed(lines):
        match parse_transcript_line(line):
            case Compaction():
                return 0.0
            case Reply(model, used):
                window = window_for(model)
                return None if window is None else 100.0 * min(used, window) / window
    return None


def read_transcript_tail(
    path: str, max_bytes: int = TRANSCRIPT_TAIL_BYTES
) -> tuple[bytes, bool] | None:
    """At most the last `max_bytes` of `path`, and whether they start the file.

    `None` (never an error) unless `path` is absolute and names a regular file
    of this account, opened without following a final symlink and without
    blocking on a FIFO.
    """
    if not os.path.isabs(path) or "\0" in path:
        return None
    try:
        fd = guarded.open_at(path, _READ_FLAGS)
    except (OSError, ValueError):
        return None
    try:
        st = os.fstat(fd)
        if not S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
            return None
        offset = max(0, st.st_size - max_bytes)
        if offset:
            os.lseek(fd, offset, os.SEEK_SET)
        chunks: list[bytes] = []
        left = max_bytes
        while left > 0:
            chunk = os.read(fd, left)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks), offset == 0
    except OSError:
        return None
    finally:
        os.close(fd)


# --- the fold the hook calls ------------------------------------------------


def current_fill(
    home: Home | None,
    session_id: str | None,
    transcript_path: str | None,
    *,
    session_records: Sequence[SessionRecord] | None = None,
) -> Fill:
    """How full the session is now; never raises, never writes.

    `session_records` are the session file's events when the caller has
    read them already (the hook has, for its ledger); else they are read here.
    """
    problems: list[str] = []  # the fill file's unreadable lines, or why it could not be read
    if home is not None and session_id:
        try:
            # Read from the file's end back to its last reading: the fill file of a long session
            # holds thousands of them, and the last one decides.
            fill_records = read_events_back_to(home, FILL_DIR, session_id, is_reading, problems)
            if fill_records:
                if session_records is None:
                    session_records = read_events_since_reset(home, SESSIONS_DIR, session_id)
                figure = reading_after_last_reset(fill_records, session_records)
                if figure is not None:
                    return Fill(figure, "statusline", "; ".join(problems) or None)
        except AbcdError as err:
            problems.append(str(err))
        except OSError as err:  # e.g. out of descriptors: the fill falls back, the hook goes on
            problems.append(f"fill: {err.strerror or err}")
    problem = "; ".join(problems) or None
    if transcript_path:
        tail = read_transcript_tail(transcript_path)
        if tail is not None:
            figure = fill_from_transcript(tail[0], starts_file=tail[1])
            if figure is not None:
                return Fill(figure, "transcript", problem)
    return Fill(None, "unknown", problem)


def ensure_fill_folder(home: Home) -> None:
    """Create `<home>/fill/` (0700) if absent, never through a symlink; the session-start hook calls it.

    Raises `TrustError` when `fill` is a symlink or not this account's folder,
    `StorageError` when it cannot be created.
    """
    with home.folder(FILL_DIR, create=True):
        pass

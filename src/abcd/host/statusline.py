"""`abcd statusline`: one row for the host's status line, and the session's fill reading.

The host runs its status command on every refresh with a JSON payload on
stdin. This prints one short row (model, context used, repository) and,
when the payload carries a session id and a numeric
`context_window.used_percentage`, appends a `FillRead` to
`<home>/fill/<sha256(session)>.jsonl` when the figure is new for the
session (it differs from the last reading, or a reset came after that).

The invariants: that file is the only thing written (an absent home or
`fill/` folder is skipped silently and nothing is created); a failed write
is one stderr line and the row still prints; `--pass-through` writes
nothing; the session id never appears in what this prints. Imports stay
light (no typer, no rich): this runs every few seconds.
"""

from __future__ import annotations

from abcd import fastjson
from abcd import leanos as os
from abcd.errors import AbcdError
from abcd.session.brackets import bracket_for
from abcd.session.events import FillRead
from abcd.session.files import (
    FILL_DIR,
    SESSIONS_DIR,
    append_events,
    read_events_back_to,
    read_events_since_reset,
)
from abcd.session.fill import Fill, is_reading, reading_after_last_reset
from abcd.shapes import is_session_id
from abcd.trust.guarded import Home
from abcd.value import Value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO, Final, TextIO

    from abcd.session.events import SessionRecord

USAGE: Final = 'usage: abcd statusline [--pass-through "<command>"]'
# The host's payload is about 1.3 KB; past this it is not a status payload.
PAYLOAD_MAX_BYTES: Final = 1024 * 1024
# A status row shares the terminal's last line with the host's own text.
FIELD_MAX_CHARS: Final = 40

# C0, DEL and C1 controls: a folder or model name must not drive the terminal. Nor reorder or
# hide the row's text: the bidirectional marks, embeddings, overrides and isolates, the line and
# paragraph separators, the zero-width characters and the byte-order mark.
_CONTROLS = dict.fromkeys(
    [
        *range(0x20),
        *range(0x7F, 0xA0),
        0x061C,
        *range(0x200B, 0x2010),
        *range(0x2028, 0x202F),
        *range(0x2060, 0x2070),
        0xFEFF,
    ]
)


# --- the payload ------------------------------------------------------------


class StatusPayload(Value):
    """What the row and the reading need; a field that is absent or of the wrong shape is `None`."""

    __slots__ = ("model", "repository", "session_id", "used_percentage")
    __match_args__ = ("session_id", "model", "used_percentage", "repository")
    session_id: str | None
    model: str | None
    used_percentage: float | None
    repository: str | None

    def __init__(
        self,
        *,
        session_id: str | None = None,
        model: str | None = None,
        used_percentage: float | None = None,
        repository: str | None = None,
    ) -> None:
        object.__setattr__(self, "session_id", session_id)
        object.__setattr__(self, "model", model)
        object.__setattr__(self, "used_percentage", used_percentage)
        object.__setattr__(self, "repository", repository)


def _field(obj: object, name: str) -> object:
    return obj.get(name) if isinstance(obj, dict) else None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _model_name(value: object) -> str | None:
    # The status payload has `{"id", "display_name"}`; a hook payload a plain id.
    return _text(value) or _text(_field(value, "display_name")) or _text(_field(value, "id"))


def _used(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):  # `true` is no figure
        return None
    try:
        figure = float(value)
    except OverflowError:  # an integer past a float's range
        return None
    # Finite (neither infinite nor NaN), without loading `math` on every refresh.
    return min(100.0, max(0.0, figure)) if figure - figure == 0.0 else None


def _repository(top: dict[str, object]) -> str | None:
    workspace = top.get("workspace")
    folder = (
        _text(_field(workspace, "project_dir"))
        or _text(_field(workspace, "current_dir"))
        or _text(top.get("cwd"))
    )
    if folder is None:
        return None
    return os.path.basename(folder.rstrip("/")) or None


def parse_payload(data: bytes) -> StatusPayload:
    """The fields the status line uses; never raises (bad input gives `None` fields).

    Fields the host adds later are ignored; a field of an unexpected shape
    costs only that field.
    """
    if len(data) > PAYLOAD_MAX_BYTES:
        return StatusPayload()
    try:
        top = fastjson.loads(data)
    except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested past reason
        return StatusPayload()
    if not isinstance(top, dict):
        return StatusPayload()
    session = _text(top.get("session_id"))
    return StatusPayload(
        session_id=session if session and is_session_id(session) else None,
        model=_model_name(top.get("model")),
        used_percentage=_used(_field(top.get("context_window"), "used_percentage")),
        repository=_repository(top),
    )


# --- the row ----------------------------------------------------------------


def _clean(text: str) -> str:
    # A lone surrogate (a payload's `"\ud800"`) has no UTF-8 form: it shows as `?`.
    text = text.encode("utf-8", "replace").decode("utf-8").translate(_CONTROLS).strip()
    return text if len(text) <= FIELD_MAX_CHARS else text[: FIELD_MAX_CHARS - 1] + "…"


def _figure(used: float) -> str:
    return f"{round(used, 1):g}%"


_BRACKET_COLOURS: Final = {"fresh": "32", "moderate": "33", "depleted": "31"}


def _colour(used: float) -> str:
    """The ANSI colour of the figure's bracket: green fresh, yellow moderate, red depleted."""
    return _BRACKET_COLOURS.get(bracket_for(Fill(used, "statusline")).name, "0")


def render_row(payload: StatusPayload, *, colour: bool = False) -> str:
    """`<model> | <used>% used | <repository>`, short; ANSI colour only when asked."""
    parts: list[str] = []
    if payload.model:
        parts.append(_clean(payload.model))
    if payload.used_percentage is None:
        parts.append("--% used")
    elif colour:
        code = _colour(payload.used_percentage)
        parts.append(f"\x1b[{code}m{_figure(payload.used_percentage)}\x1b[0m used")
    else:
        parts.append(f"{_figure(payload.used_percentage)} used")
    if payload.repository:
        parts.append(_clean(payload.repository))
    row = " | ".join(parts)
    if payload.session_id:
        row = row.replace(payload.session_id, "<session>")
    return row


def _wants_colour(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


# --- the one write ----------------------------------------------------------


def _is_current(
    fill_records: list[SessionRecord], used: float, home: Home, session_id: str
) -> bool:
    last = next((r for r in reversed(fill_records) if isinstance(r.event, FillRead)), None)
    if last is None or not isinstance(last.event, FillRead):
        return False
    if last.event.used_percentage != used:
        return False
    try:
        sessions = read_events_since_reset(home, SESSIONS_DIR, session_id)
    except (AbcdError, OSError):
        return True  # cannot see resets: the plain rule (same figure, no write)
    return reading_after_last_reset([last], sessions) is not None


def record_reading(session_id: str, used: float) -> str | None:
    """Append `FillRead(used)` when it is new for the session; a one-line problem, or `None`.

    An absent home or `fill/` folder is skipped silently: nothing is created.
    """
    try:
        home = Home.open()
        if home is None:
            return None
        with home:
            # The file's end, back to its last reading with a figure (the hook's reader's own
            # judge): a long session's file holds thousands.
            records = read_events_back_to(home, FILL_DIR, session_id, is_reading)
            if _is_current(records, used, home, session_id):
                return None
            append_events(
                home, FILL_DIR, session_id, [FillRead(used_percentage=used)], create_folder=False
            )
    except AbcdError as err:
        return f"abcd statusline: {err}"
    except OSError as err:
        return f"abcd statusline: cannot record the fill reading: {err.strerror or err}"
    return None


# --- pass-through -----------------------------------------------------------


def _write(stream: TextIO, data: bytes) -> None:
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        stream.flush()
        buffer.write(data)
        buffer.flush()
    else:
        stream.write(data.decode("utf-8", "replace"))


def pass_through(command: str, data: bytes, stdout: TextIO, stderr: TextIO) -> int:
    """Run the person's own status command on the same stdin; print what it prints; write nothing."""
    import subprocess

    try:
        proc = subprocess.run(command, shell=True, input=data, capture_output=True, check=False)
    except OSError as err:
        stderr.write(f"abcd statusline: cannot run the pass-through command: {err.strerror}\n")
        return 1
    _write(stdout, proc.stdout)
    _write(stderr, proc.stderr)
    return proc.returncode


# --- the entry point --------------------------------------------------------


def _parse_args(argv: list[str]) -> tuple[str | None, str | None]:
    """`(pass-through command or None, usage error or None)`; an empty command is an error."""
    command: str | None = None
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--pass-through":
            command = args.pop(0) if args else ""
        elif arg.startswith("--pass-through="):
            command = arg.partition("=")[2]
        else:
            return None, f"abcd: unexpected argument {arg!r} ({USAGE})"
        if not command.strip():
            return None, f"abcd: --pass-through needs a command ({USAGE})"
    return command, None


def main(argv: list[str], stdin: BinaryIO, stdout: TextIO, stderr: TextIO) -> int:
    """Print the row (or the pass-through's output); record the reading. Exit 0 unless misused."""
    if argv in (["-h"], ["--help"]):
        stdout.write(USAGE + "\n")
        return 0
    command, error = _parse_args(argv)
    if error:
        stderr.write(error + "\n")
        return 2
    if command is not None:
        return pass_through(command, stdin.read(), stdout, stderr)
    problem = None
    try:
        payload = parse_payload(stdin.read(PAYLOAD_MAX_BYTES + 1))
    except OSError as err:  # stdin unreadable: the row still prints, with nothing known
        payload = StatusPayload()
        problem = f"abcd statusline: cannot read the payload: {err.strerror or err}"
    if payload.session_id and payload.used_percentage is not None:
        try:
            problem = record_reading(payload.session_id, payload.used_percentage)
        except Exception as err:  # the row prints whatever went wrong
            problem = f"abcd statusline: cannot record the fill reading: {type(err).__name__}"
    stdout.write(render_row(payload, colour=_wants_colour(stdout)) + "\n")
    if problem:
        if payload.session_id:
            problem = problem.replace(payload.session_id, "<session>")
        stderr.write(problem + "\n")
    return 0

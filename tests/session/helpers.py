"""Building homes, session files with chosen stamps, and transcript lines for the fill tests."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from abcd.session.events import SessionEvent, encode_session_line
from abcd.session.files import FILL_DIR, file_name
from abcd.session.fill import ensure_fill_folder
from abcd.trust import Home

SESSION = "e2f55c36-1f23-4a5d-ba05-0f8863248897"
# The real host's transcripts, copied verbatim from the shared `host/` captures.
TRANSCRIPTS = Path(__file__).parent / "data"
OPUS = "claude-opus-4-8"


def make_home(abcd_home: Path, *, fill_folder: bool = True) -> Home:
    """The home as the session-start hook leaves it: created, with `fill/` unless told not to."""
    home = Home.open(abcd_home, create=True)
    assert home is not None
    if fill_folder:
        ensure_fill_folder(home)
    return home


def write_stamped(
    abcd_home: Path, folder: str, session_id: str, events: Sequence[tuple[str, SessionEvent]]
) -> Path:
    """Session lines with the stamps the test chooses (the writers take theirs from the clock)."""
    (abcd_home / folder).mkdir(mode=0o700, parents=True, exist_ok=True)
    path = abcd_home / folder / file_name(session_id)
    with path.open("ab") as out:
        for at, event in events:
            out.write(encode_session_line(at, event))
    os.chmod(path, 0o600)
    return path


def fill_file(abcd_home: Path, session_id: str = SESSION) -> Path:
    return abcd_home / FILL_DIR / file_name(session_id)


def at(second: int) -> str:
    """A stamp in the session files' format, `second` seconds into a fixed minute."""
    return f"2026-11-29T20:30:{second:02d}.000000Z"


def assistant(
    input_tokens: int,
    creation: int = 0,
    read: int = 0,
    *,
    model: str = OPUS,
    sidechain: bool = False,
    output_tokens: int = 20,
) -> bytes:
    """One assistant line shaped like the host's."""
    return json.dumps(
        {
            "parentUuid": "p",
            "isSidechain": sidechain,
            "type": "assistant",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [{"type": "text", "text": "ok"}],
                "usage": {
                    "input_tokens": input_tokens,
                    "cache_creation_input_tokens": creation,
                    "cache_read_input_tokens": read,
                    "output_tokens": output_tokens,
                },
            },
            "timestamp": "2026-11-29T20:29:45.154Z",
        }
    ).encode()


def user(text: str) -> bytes:
    return json.dumps(
        {"type": "user", "isSidechain": False, "message": {"role": "user", "content": text}}
    ).encode()


def boundary() -> bytes:
    return json.dumps(
        {"type": "system", "subtype": "compact_boundary", "isSidechain": False, "content": "c"}
    ).encode()


def transcript(tmp_path: Path, *lines: bytes, name: str = "t.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return path

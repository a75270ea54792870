"""Running the status line in-process, the host's real payloads, and snapshots of a folder tree."""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from abcd.host.statusline import main

# Copied verbatim from the real host's captures (the shared `host/payloads/`).
PAYLOADS = Path(__file__).parent / "data"
SESSION = "e2f55c36-1f23-4a5d-ba05-0f8863248897"


def payload(name: str, **changes: object) -> bytes:
    """A captured status payload (`statusline_<name>.json`), with top-level fields changed or removed."""
    data = json.loads((PAYLOADS / f"statusline_{name}.json").read_text())
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return json.dumps(data).encode()


def with_used(used: object, session: str = SESSION) -> bytes:
    data = json.loads(payload("after_turn1"))
    data["session_id"] = session
    data["context_window"]["used_percentage"] = used
    return json.dumps(data).encode()


@dataclass
class Ran:
    code: int
    out: str
    err: str


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def run(stdin: bytes, *argv: str, terminal: bool = False) -> Ran:
    out = _Terminal() if terminal else io.StringIO()
    err = io.StringIO()
    code = main(list(argv), io.BytesIO(stdin), out, err)
    return Ran(code, out.getvalue(), err.getvalue())


Snapshot = dict[str, tuple[str, int, str]]


def snapshot(root: Path) -> Snapshot:
    """Every entry under `root`: its kind, mode and content digest (or link target)."""
    entries: Snapshot = {}
    if not os.path.lexists(root):
        return entries
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            st = path.lstat()
            rel = str(path.relative_to(root))
            if stat.S_ISLNK(st.st_mode):
                entries[rel] = ("link", st.st_mode, os.readlink(path))
            elif stat.S_ISREG(st.st_mode):
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
                entries[rel] = ("file", st.st_mode, digest)
            else:
                entries[rel] = ("other", st.st_mode, "")
    return entries


def changed(before: Snapshot, after: Snapshot) -> set[str]:
    """Paths added, removed or altered between two snapshots."""
    return {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}

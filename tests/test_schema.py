"""`journal_schema/` is generated from the Structs; a stale committed schema fails the suite."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_committed_schemas_match_the_structs() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gen_schema.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


def test_there_is_a_schema_for_the_envelope_every_event_and_the_view() -> None:
    names = sorted(p.name for p in (ROOT / "journal_schema").glob("*.json"))
    assert names == [
        "envelope.schema.json",
        "event.journal.recovered.schema.json",
        "event.note.added.schema.json",
        "event.note.promoted.schema.json",
        "event.note.removed.schema.json",
        "event.note.restored.schema.json",
        "event.note.reviewed.schema.json",
        "event.note.revised.schema.json",
        "memory-view.schema.json",
    ]
    envelope = json.loads((ROOT / "journal_schema" / "envelope.schema.json").read_text())
    assert envelope["$defs"]["Envelope"]["properties"]["type"]["enum"] == [
        "journal.recovered",
        "note.added",
        "note.promoted",
        "note.removed",
        "note.restored",
        "note.reviewed",
        "note.revised",
    ]


def test_a_stale_schema_is_detected(tmp_path: Path) -> None:
    copy = tmp_path / "repo"
    (copy / "tools").mkdir(parents=True)
    (copy / "journal_schema").mkdir()
    (copy / "tools" / "gen_schema.py").write_text((ROOT / "tools" / "gen_schema.py").read_text())
    for path in (ROOT / "journal_schema").glob("*.json"):
        (copy / "journal_schema" / path.name).write_text(path.read_text())
    view = copy / "journal_schema" / "memory-view.schema.json"
    view.write_text(view.read_text().replace('"notes"', '"notez"'))
    result = subprocess.run(
        [sys.executable, str(copy / "tools" / "gen_schema.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1 and "memory-view.schema.json is stale" in result.stderr


def test_the_hook_paths_sha256_is_the_standard_one() -> None:
    import hashlib

    from abcd.digest import sha256_hex

    for data in (b"", b"abc", bytes(range(256)) * 300):
        assert sha256_hex(data) == hashlib.sha256(data).hexdigest()

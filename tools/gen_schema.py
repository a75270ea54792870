#!/usr/bin/env python3
"""Generate `journal_schema/`: the JSON Schema of the envelope, every event and the view.

Run `python tools/gen_schema.py` after changing a Struct; `--check` exits 1
when the committed files are stale (the test suite runs that check).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import msgspec

from abcd.journal.envelope import Envelope
from abcd.journal.events import EVENT_TYPES
from abcd.journal.view import View

OUT = Path(__file__).resolve().parent.parent / "journal_schema"


def schemas() -> dict[str, Any]:
    out: dict[str, Any] = {}
    envelope = msgspec.json.schema(Envelope)
    props = envelope["$defs"]["Envelope"]["properties"]
    props["data"] = {"description": "the event; its schema is named by `type`", "type": "object"}
    props["type"] = {"enum": sorted(EVENT_TYPES)}
    out["envelope.schema.json"] = envelope
    for tag, cls in EVENT_TYPES.items():
        out[f"event.{tag}.schema.json"] = msgspec.json.schema(cls)
    out["memory-view.schema.json"] = msgspec.json.schema(View)
    return out


def render(schema: Any) -> str:
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    wanted = {name: render(schema) for name, schema in schemas().items()}
    present = {p.name for p in OUT.glob("*.json")} if OUT.exists() else set()
    stale = sorted(
        name
        for name, text in wanted.items()
        if not (OUT / name).exists() or (OUT / name).read_text(encoding="utf-8") != text
    ) + sorted(present - wanted.keys())
    if check:
        for name in stale:
            print(
                f"journal_schema/{name} is stale: run python tools/gen_schema.py", file=sys.stderr
            )
        return 1 if stale else 0
    OUT.mkdir(exist_ok=True)
    for name in present - wanted.keys():
        (OUT / name).unlink()
    for name, text in wanted.items():
        (OUT / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(wanted)} schema(s) to journal_schema/")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Transcripts shaped like the host's, to set how full a session is."""

from __future__ import annotations

import json
from pathlib import Path


def transcript(folder: Path, used_tokens: int, model: str = "claude-sonnet-4-5") -> str:
    """A one-reply transcript whose reply used `used_tokens` of input (a 200k-token window)."""
    path = folder / "transcript.jsonl"
    entry = {
        "type": "assistant",
        "isSidechain": False,
        "message": {
            "id": "msg_1",
            "model": model,
            "usage": {
                "input_tokens": used_tokens,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
                "output_tokens": 5,
            },
        },
    }
    path.write_text(json.dumps(entry) + "\n")
    return str(path)


FRESH = 10_000  # 5% used
MODERATE = 100_000  # 50% used
DEPLETED = 160_000  # 80% used

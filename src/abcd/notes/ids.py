"""Note ids: `mem-` + UTC `YYMMDDhhmmss` + 4 random digits, minted without coordination.

Uniqueness is checked by the caller under the journal lock, against every id
the journal has ever held (live and removed), so an id never names two notes.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime

from abcd.errors import AbcdError

_MINT_TRIES = 1000


def mint_id(taken: set[str]) -> str:
    """A new id not in `taken`."""
    for _ in range(_MINT_TRIES):
        stamp = datetime.now(UTC).strftime("%y%m%d%H%M%S")
        candidate = f"mem-{stamp}{secrets.randbelow(10_000):04d}"
        if candidate not in taken:
            return candidate
    raise AbcdError("could not mint a unique note id (10,000 notes in one second?); try again")

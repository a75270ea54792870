"""Note ids: `mem-` + UTC `YYMMDDhhmmss` + 4 random digits, minted without coordination.

Uniqueness is checked by the caller under the journal lock, against every id
the journal has ever held (live and removed), so an id never names two notes.

A second holds `SLOTS` ids. A batch mints from the current second while it
has room, by random draws, and once the draws stop finding a free id, from
the second's free ids in a random order; a full second spills into the next.
So any batch lands, and an id's time is never later than the first second,
from now on, that still had room when the id was minted
(docs/decisions.md, "Note ids").
"""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Callable

SLOTS = 10_000
"""How many ids one second holds: 4 digits."""

# Random draws before the second's free ids are listed: past half full, eight draws all miss one
# time in 256, so a second is listed only once it is filling up.
_DRAWS = 8


def _prefix(second: int) -> str:
    return "mem-" + time.strftime("%y%m%d%H%M%S", time.gmtime(second))


class Minter:
    """Mints the ids of one batch: none in `taken`, each added to it as it is minted.

    `now` is the clock, in seconds (injected by tests); it is read for every
    id, and a batch never goes back to a second it has left.
    """

    def __init__(self, taken: set[str], now: Callable[[], float] = time.time) -> None:
        self._taken = taken
        self._now = now
        self._second = -1  # the second being filled
        self._free: list[str] | None = None  # its free ids, shuffled, once listed

    def mint(self) -> str:
        second = max(int(self._now()), self._second)
        if second != self._second:
            self._second, self._free = second, None
        while True:
            prefix = _prefix(self._second)
            if self._free is None:
                for _ in range(_DRAWS):
                    candidate = f"{prefix}{secrets.randbelow(SLOTS):04d}"
                    if candidate not in self._taken:
                        return self._take(candidate)
                free = [f"{prefix}{n:04d}" for n in range(SLOTS)]
                self._free = [c for c in free if c not in self._taken]
                random.SystemRandom().shuffle(self._free)
            while self._free:
                candidate = self._free.pop()
                if candidate not in self._taken:
                    return self._take(candidate)
            self._second, self._free = self._second + 1, None  # full: the next second

    def _take(self, candidate: str) -> str:
        self._taken.add(candidate)
        return candidate


def mint_id(taken: set[str]) -> str:
    """One new id not in `taken` (added to it)."""
    return Minter(taken).mint()

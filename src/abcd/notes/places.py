"""Where each repository a personal note is tied to was last seen on this machine.

A note is tied to its repository by the root commit, a hash no person
recognises. So that `abcd memory list` can name another repository by its
folder, `abcd memory add` records `<home>/places.json`: root commit -> the
top folder of the checkout the note was written in, the latest one winning.
It is a convenience only: nothing is decided by it, a missing or unreadable
file names nothing, and a failed write never fails the note's write.
"""

from __future__ import annotations

import msgspec

from abcd.errors import AbcdError
from abcd.repo import Repo
from abcd.trust import Home
from abcd.trust.guarded import shown

PLACES = "places.json"
PLACES_MAX_BYTES = 256 * 1024


def _read(home: Home) -> dict[str, str]:
    try:
        data = home.read(PLACES, PLACES_MAX_BYTES)
        value = msgspec.json.decode(data) if data else {}
    except (AbcdError, msgspec.DecodeError):
        return {}
    if not isinstance(value, dict):
        return {}
    return {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, str)}


def places() -> dict[str, str]:
    """Root commit -> the folder last seen for it, in `~/` form; empty when none is known."""
    try:
        home = Home.open()
    except AbcdError:
        return {}
    if home is None:
        return {}
    with home:
        return {root: shown(top) for root, top in _read(home).items()}


def remember(repo: Repo) -> str | None:
    """Record `repo`'s top folder for its root commit; a warning when that could not be done."""
    try:
        root = repo.root_commit
        if root is None:
            return None
        home = Home.open(create=True)
        assert home is not None
        with home:
            known = _read(home)
            if known.get(root) == repo.top:
                return None
            known[root] = repo.top
            home.write_atomic(PLACES, msgspec.json.encode(dict(sorted(known.items()))))
    except (AbcdError, OSError) as err:
        return f"{PLACES} not updated ({err})"
    return None

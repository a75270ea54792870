"""The private-names banlist: loading it from a checkout, and matching names in a note.

The list is `<repo>/.abcd/.work.local/private-names.txt`: one name a line,
lines starting with `#` are comments, blank lines are skipped. In a linked
worktree the caller passes both this checkout and the primary checkout
(`Repo.private_names_checkouts()`). A list is read through the checkout's
guarded layer (`abcd.trust.Checkout`): one that another account owns, or in
a checkout another account owns, cannot be read.

A name matches whole-word and case-insensitively, also where it is glued
into an identifier (`acme_deploy`, `AcmeClient`, `getAcmeClient`, `acme2`);
a name of several words matches across any run of whitespace, one `_`, `-`
or `.`, or nothing (`Acme  Corp` on two lines, `acme_corp`, `AcmeCorp`).
Names and text are both folded (`abcd.gate.fold`) before they are compared.

Invariant: a list that exists but cannot be read refuses (the gate cannot
run without it); an absent list contributes nothing. Neither the names nor
the matched text leave this module in an error.
"""

from __future__ import annotations

from abcd.gate.compiled import GateUnavailable
from abcd.gate.limits import PRIVATE_NAMES_MAX_BYTES

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Sequence
    from os import PathLike

PRIVATE_NAME = "private name"
UNREADABLE = "gate unavailable: private-names list unreadable"


def parse_private_names(text: str) -> list[str]:
    """The names in a banlist's text, in order, without duplicates (ignoring case)."""
    names: list[str] = []
    seen: set[str] = set()
    for line in text.splitlines():
        name = " ".join(line.split())
        if not name or name.startswith("#"):
            continue
        key = name.casefold()
        if key not in seen:
            seen.add(key)
            names.append(name)
    return names


def load_private_names(checkouts: Sequence[str | PathLike[str]]) -> list[str]:
    """Names from the banlist of each checkout (its top folder) that has one, in the order given.

    An absent list contributes nothing. A list that exists but cannot be read
    (permissions, a symlink, not a regular file, too large, not UTF-8, owned
    by another account or in a checkout another account owns) raises
    `Refused("gate unavailable: private-names list unreadable", detail=<file in ~/ form>)`,
    the detail followed by the trust check that failed, in brackets.
    """
    import os

    from abcd.errors import AbcdError, Refused
    from abcd.repo import PRIVATE_NAMES, PRIVATE_NAMES_REL
    from abcd.trust.guarded import Checkout, shown

    names: list[str] = []
    seen: set[str] = set()
    for top in checkouts:
        path = os.path.join(top, PRIVATE_NAMES_REL)
        try:
            with Checkout.open(top) as checkout:
                data = checkout.read(PRIVATE_NAMES, PRIVATE_NAMES_MAX_BYTES)
            if data is None:
                continue
            text = data.decode("utf-8-sig")
        except AbcdError as err:
            if not os.path.lexists(path):
                continue  # a refused checkout with no list: nothing of it would be read
            # The check names a path and a reason, never the list's content.
            raise Refused(UNREADABLE, detail=f"{shown(path)} ({err})") from None
        except (OSError, UnicodeDecodeError, ValueError):
            raise Refused(UNREADABLE, detail=shown(path)) from None
        for name in parse_private_names(text):
            if name.casefold() not in seen:
                seen.add(name.casefold())
                names.append(name)
    return names


# Where a name may start and end: at a word's edge as before, and also where an
# identifier joins words (`acme_deploy`, `deploy-acme`, `AcmeClient`,
# `getAcmeClient`, `acme2`), so a name glued into an identifier is still seen.
# Case is judged by the scoped `(?-i:...)`: `announce` holds no name `Ann`.
_STARTS = r"(?:(?<![^\W_])|(?-i:(?<=[a-z0-9])(?=[A-Z]))|(?<=[0-9])(?=[^\W\d_]))"
_ENDS = r"(?:(?![^\W_])|(?-i:(?<=[a-z])(?=[A-Z0-9]))|(?<=[^\W\d_])(?=[0-9]))"
# Between the words of a name: any whitespace, one `_`, `-` or `.`, or nothing
# (`Acme Corp` in `acme_corp`, `AcmeCorp`, `acmecorp`).
_WORD_GAP = r"(?:\s{1,64}|[_.-]?)"

_MATCHERS: dict[tuple[str, ...], re.Pattern[str] | None] = {}


def names_matcher(names: Sequence[str]) -> re.Pattern[str] | None:
    """One compiled expression matching any of `names` whole-word; `None` for no names."""
    key = tuple(names)
    if key in _MATCHERS:
        return _MATCHERS[key]
    import re

    from abcd.gate.fold import fold

    folded = (" ".join(fold(n).split()) for n in names if n.strip())
    words = sorted({w for w in folded if w}, key=len, reverse=True)
    if not words:
        matcher = None
    else:
        alternatives = "|".join(_WORD_GAP.join(re.escape(w) for w in n.split(" ")) for n in words)
        try:
            matcher = re.compile(rf"{_STARTS}(?:{alternatives}){_ENDS}", re.IGNORECASE)
        except (re.error, RecursionError, OverflowError):
            raise GateUnavailable("private names do not compile") from None
    _MATCHERS.clear()  # one list per process in practice; keep only the latest
    _MATCHERS[key] = matcher
    return matcher

"""The second tier's synonyms (issue 16): stems WordNet puts in one synset, read from a table.

`synonyms.txt` beside this module is built by `tools/build_synonyms.py` from
Princeton WordNet 3.0 (as two registry packages ship it; the tool says
which and how). One line a stem, `stem syn syn ...`, sorted, after two lines
of `#` (the source and WordNet's notice). Only the second tier reads it, to
let a content word an item lacks be made up by a synonym the item holds.

The table is read once a process, when a prompt first has content words,
and never parsed whole: a stem's line is found by searching the text for
`"\\n" + stem + " "` (about 140 KB, a few microseconds a stem).

Imports nothing the hook does not load already.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

_text: str | None = None


def _table() -> str:
    """The table's text, read once a process (an empty table when it cannot be read)."""
    global _text
    if _text is None:
        try:
            with open(__file__.rpartition("/")[0] + "/synonyms.txt", encoding="utf-8") as f:
                _text = "\n" + f.read()
        except OSError:  # a broken install recalls as the seed did, without synonyms
            _text = ""
    return _text


def of(stem: str) -> tuple[str, ...]:
    """The stem's synonyms in the table, sorted; `()` when it has none."""
    text = _table()
    at = text.find("\n" + stem + " ")
    if at < 0:
        return ()
    end = text.find("\n", at + 1)
    return tuple(text[at + 1 : end if end >= 0 else len(text)].split(" ")[1:])


def expansions(words: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Each of `words` (a prompt's content stems) with its synonyms that are not among `words`."""
    given = set(words)
    out = {}
    for w in sorted(given):
        syns = tuple(s for s in of(w) if s not in given)
        if syns:
            out[w] = syns
    return out

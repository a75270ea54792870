"""Text bound for a person's terminal, with every control character shown escaped.

A note's title, body and stamps, a rule file's words or a page's name can
hold characters a terminal acts on rather than shows: escape sequences
(`ESC [ 2 J` clears the screen, OSC 8 writes a link, OSC 52 sets the
clipboard), carriage returns and backspaces that overwrite what came before,
and bidi controls that reorder what a reader sees. Every command output a
person reads (`memory list`, `journal audit`, `rules --prompt`, the notices
on stderr, the hook's stderr line) passes through `escaped`, which writes
each such character as Python writes it in a string literal (`\\x1b`,
`\\u202e`), so the person sees that it is there and the terminal acts on none.

What the hook prints on stdout is not escaped: the host hands it to the model
as a string, never to a terminal, and escaping would change the text the
model reads and the character count the host measures (docs/gate.md).

Lean: no imports, so the hook's path can use it.
"""

from __future__ import annotations

# Bidi embeddings, overrides and isolates, the implicit marks, and the Unicode
# line and paragraph separators, which a terminal may act on or show as nothing.
# And characters that render as nothing and have no part in a note's words: the
# zero-width space, the word joiner and invisible operators, the BOM.
_SHOWN_ESCAPED = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029"
    "\u200b\u2060\u2061\u2062\u2063\u2064\ufeff"
)
# Plane 14: tag characters and the supplementary variation selectors. They render as
# nothing, yet a run of them spells text a model reads (one per ASCII letter, or per
# byte): shown, a hidden sentence is seen; unseen, a person keeps words they never read.
_INVISIBLE_PLANE = range(0xE0000, 0xE1000)


_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(ch: str) -> str:
    code = ord(ch)
    if ch in _NAMED:
        return _NAMED[ch]
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _acts(ch: str) -> bool:
    code = ord(ch)
    return code < 0x20 or 0x7F <= code < 0xA0 or ch in _SHOWN_ESCAPED or code in _INVISIBLE_PLANE


def escaped(text: str, *, keep: str = "\n\t") -> str:
    """`text` with each control character but those in `keep` written as `\\xNN` / `\\uNNNN`.

    `keep` is the whitespace a multi-line output keeps as it is (newline and
    tab by default); pass `keep=""` for a line that must stay one line. A
    backslash is left as it is: an escape shown is a sign for the reader, not
    a round trip.
    """
    if text.isprintable():  # no control, format or separator character at all
        return text
    return "".join(_escape(ch) if _acts(ch) and ch not in keep else ch for ch in text)

"""What a text really says: the form the gate judges, with nothing invisible left in it.

A token can be hidden from a pattern without changing what a reader sees:
split by a character that renders as nothing (a zero-width space, a bidi
isolate, a variation selector, a tag character, a Hangul filler, the blank
Braille pattern), written in full-width or other compatibility forms
(`ｇｈｐ＿...`, mathematical letters), or broken by a terminal escape
sequence. `fold` undoes all of them, in this order:

1. terminal escape sequences (CSI, OSC, and two-character `ESC x`) are removed
   whole, then every other control character but tab, newline and carriage
   return;
2. every default-ignorable code point (Unicode's `Default_Ignorable_Code_Point`),
   every format character (general category `Cf`) and the blanks that render
   as nothing (U+2800) are removed;
3. the text is NFKC-normalised, and step 2 runs again (NFKC maps U+FFA0 to
   the Hangul filler U+1160).

ASCII text without control characters is returned as it is, without
importing `unicodedata`: most notes take that path.

Invariant: `fold` only removes characters or replaces them with their
compatibility equivalents; it never adds a separator, so a token split by
hidden characters comes out whole.
"""

from __future__ import annotations

import itertools

# Unicode 15's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt),
# and U+2800 BRAILLE PATTERN BLANK, which renders as nothing but is a symbol.
_IGNORABLE_RANGES = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x2800, 0x2800),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
# The parts of an escape sequence (ECMA-48): CSI parameter and intermediate
# bytes, and the final byte of a CSI or of a two-character escape.
_CSI_PARAMETERS = frozenset(map(chr, range(0x30, 0x40)))
_INTERMEDIATES = frozenset(map(chr, range(0x20, 0x30)))
_CSI_FINAL = frozenset(map(chr, range(0x40, 0x7F)))
_ESC_FINAL = frozenset(map(chr, range(0x30, 0x7F)))
# An OSC string ends at BEL, ST (U+009C) or `ESC \\`; unterminated, at the end.
_OSC_ENDS = ("\x07", "\x9c", "\x1b\\")
# C0 and C1 controls and DEL, but tab, newline and carriage return.
_CONTROLS = dict.fromkeys([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), *range(0x7F, 0xA0)])
_CONTROL_CHARS = frozenset(map(chr, _CONTROLS))


def _hidden(ch: str) -> bool:
    import unicodedata

    code = ord(ch)
    if unicodedata.category(ch) in ("Cf", "Cc") and ch not in "\t\n\r":
        return True
    return any(low <= code <= high for low, high in _IGNORABLE_RANGES)


def _drop_hidden(text: str) -> str:
    # `str.replace` per hidden character: `str.translate` on non-ASCII text
    # costs about 0.1 ms per 2 KiB, and a text holds few distinct hidden characters.
    for ch in [ch for ch in set(text) if not ch.isascii() and _hidden(ch)]:
        text = text.replace(ch, "")
    return text


def _skip_run(text: str, at: int, allowed: frozenset[str], most: int) -> int:
    end = min(len(text), at + most)
    while at < end and text[at] in allowed:
        at += 1
    return at


def _sequence_end(text: str, at: int) -> int:
    """Where the escape sequence that starts at `text[at]` (ESC or U+009B) ends."""
    if text[at] == "\x9b" or text.startswith("\x1b[", at):
        i = at + (1 if text[at] == "\x9b" else 2)
        i = _skip_run(text, i, _CSI_PARAMETERS, 64)
        i = _skip_run(text, i, _INTERMEDIATES, 16)
        return i + 1 if i < len(text) and text[i] in _CSI_FINAL else i
    if text.startswith("\x1b]", at):
        ends = [(i, len(e)) for e in _OSC_ENDS if (i := text.find(e, at + 2, at + 4098)) != -1]
        if not ends:
            return min(len(text), at + 4098)
        i, size = min(ends)
        return i + size
    i = _skip_run(text, at + 1, _INTERMEDIATES, 4)
    return i + 1 if i < len(text) and text[i] in _ESC_FINAL else i


def strip_escapes(text: str) -> str:
    """`text` without its terminal escape sequences: CSI (`ESC [` or U+009B) with its
    parameters, OSC (`ESC ]` up to BEL, ST or `ESC \\`), and two-character escapes."""
    out: list[str] = []
    at = 0
    while True:
        starts = [i for i in (text.find("\x1b", at), text.find("\x9b", at)) if i != -1]
        if not starts:
            out.append(text[at:])
            return "".join(out)
        start = min(starts)
        out.append(text[at:start])
        at = _sequence_end(text, start)


def has_controls(text: str) -> bool:
    """True when `text` holds a control character other than tab, newline and carriage return."""
    if text.isascii():  # `str.translate` has a fast path for ASCII text only
        return len(text.translate(_CONTROLS)) != len(text)
    return not _CONTROL_CHARS.isdisjoint(text)


def fold(text: str) -> str:
    """`text` as the gate judges it (see the module docstring); ASCII prose comes back unchanged."""
    if "\x1b" in text or "\x9b" in text:
        text = strip_escapes(text)
    if has_controls(text):
        text = text.translate(_CONTROLS)
    if text.isascii():
        return text
    import unicodedata

    text = unicodedata.normalize("NFKC", _drop_hidden(text))
    return _drop_hidden(text)


# A terminal wraps a line at its width; a line narrower than this was ended by its writer.
WRAPPED_LINE_MIN_CHARS = 40


def unwrapped_forms(text: str) -> list[str]:
    """`text` with line breaks that fall inside a word taken out, in up to two forms; none when
    it has no such break.

    A value copied from a terminal that wrapped it at its width, or from a
    tool that wraps its output (`base64` at 76 columns), comes with a line
    break in the middle and nothing else: the break has a character other
    than a space on both sides. A break with a space, a tab or another
    break beside it (indented code, YAML, a blank line) is the text's own
    and stays. `\r\n` counts as one break.

    The first form takes out every such break. That also glues a line's
    last word onto the next line's first (a shell command onto the key it
    printed, the key onto `Done`), which fails a token shape's check that
    no letter or digit touches it; so the second form takes out only the
    breaks a terminal makes (`_wrapped`), and is given when it differs.
    """
    lines = text.split("\n")
    if len(lines) == 1:
        return []
    lines = [line.removesuffix("\r") for line in lines[:-1]] + [lines[-1]]
    inside = [
        bool(before) and bool(after) and not before[-1].isspace() and not after[0].isspace()
        for before, after in itertools.pairwise(lines)
    ]
    if not any(inside):
        return []
    forms = [_joined(lines, inside)]
    wrapped = _wrapped(lines, inside)
    if wrapped != inside and any(wrapped):
        forms.append(_joined(lines, wrapped))
    return forms


def _wrapped(lines: list[str], inside: list[bool]) -> list[bool]:
    """Which of the breaks inside words a terminal made: a run of lines of one width (at least
    `WRAPPED_LINE_MIN_CHARS`, and not narrower than the line after its first), each but the last
    of a wrapped line, then the last, narrower one, whose own break is its writer's."""
    out = [False] * len(inside)
    width = 0  # the run's width; 0 outside a run
    for i, glued in enumerate(inside):
        size = len(lines[i])
        if width:
            out[i] = glued and size == width
            if not out[i]:
                width = 0  # the run's last line: its break ends it, and starts none
            continue
        if glued and size >= WRAPPED_LINE_MIN_CHARS and size >= len(lines[i + 1]):
            out[i], width = True, size
    return out


def _joined(lines: list[str], join: list[bool]) -> str:
    """`lines` put back together, without a break after each line whose `join` is true."""
    pieces = [lines[0]]
    for line, glued in zip(lines[1:], join, strict=True):
        if not glued:
            pieces.append("\n")
        pieces.append(line)
    return "".join(pieces)

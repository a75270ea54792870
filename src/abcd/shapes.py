"""Shape checks the hook's path needs, written without `re` (it costs ~5 ms to import).

Each mirrors a pattern in `abcd.constants`, which stays the documentation of
the shape; a test holds the two to the same answers.
"""

from __future__ import annotations

_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_SESSION_CHARS = _ALNUM | frozenset("_-")
_DIGITS = frozenset("0123456789")
# Every character that ends a line by Unicode's rule (what `str.splitlines` splits on): LF, VT,
# FF, CR, the file/group/record separators, NEL, LINE SEPARATOR and PARAGRAPH SEPARATOR. A title,
# note id or page name holding one could forge a heading or a layer label in the block the hook
# prints, so none that reaches it may.
LINE_BREAKS = frozenset("\n\x0b\x0c\r\x1c\x1d\x1e\x85\u2028\u2029")


def is_session_id(value: str) -> bool:
    """`SESSION_PATTERN`: a letter or digit, then up to 127 letters, digits, `_` or `-`."""
    return 0 < len(value) <= 128 and value[0] in _ALNUM and _SESSION_CHARS.issuperset(value)


def segment_number(name: str) -> int | None:
    """The number of a journal segment file name (`000001.jsonl`), `None` for any other name."""
    if len(name) == 12 and name.endswith(".jsonl") and _DIGITS.issuperset(name[:6]):
        return int(name[:6])
    return None


def count_of(text: str) -> int | None:
    """A count written as 1 to 18 ASCII digits (a seq, a revision), `None` for any other text.
    `str.isdigit` alone passes `²` and other digits `int` refuses, and `int` refuses more than
    4,300 digits: either would fail as a crash rather than as the person's mistake."""
    if 0 < len(text) <= 18 and _DIGITS.issuperset(text):
        return int(text)
    return None


def is_note_id(value: str) -> bool:
    """`NOTE_ID_PATTERN`: `mem-` and 16 digits."""
    return len(value) == 20 and value.startswith("mem-") and _DIGITS.issuperset(value[4:])


def is_one_line(text: str) -> bool:
    """Whether `text` holds no line break (`str.splitlines` would give at most one line)."""
    return LINE_BREAKS.isdisjoint(text)


def project_note_problem(note_id: str, title: str, index: int, seen: dict[str, int]) -> str | None:
    """What is wrong with a checkout's note (`notes[index]`) as `<field> ...`; `None` when nothing.

    Its id and title are printed on the line that says whose note it is, so a
    line break in either would let the file write a heading, or a personal
    note's label, of its own. Its id must not be an earlier note's (`seen`:
    the ids so far, each at its index; this one is added): every reader keys
    the project's notes by id, and two texts under one id would be ranked,
    sent and listed differently by each.
    """
    if not is_note_id(note_id):
        return "id is not a note id (mem- and 16 digits)"
    if not is_one_line(title):
        return "title must be one line"
    first = seen.setdefault(note_id, index)
    if first != index:
        return f"id {note_id} is notes[{first}]'s too: an id is one note"
    return None


def project_version_problem(version: int, readable: int) -> str | None:
    """Why a project file of `schema_version` `version` is not one this abcd reads (it reads up
    to `readable`); `None` when it is. A number past 18 digits is not printed whole: an int
    field holds up to 4,300 of them."""
    if version <= readable:
        return None
    shown = str(version) if version < 10**18 else "past 10**18"
    return f"schema_version {shown} is newer than this abcd reads ({readable})"


def conflict_markers(data: bytes) -> str | None:
    """What to say of a file git left mid-merge (`<<<<<<<` opening a line), else `None`.

    Asked only of bytes that failed to parse, so a file that reads pays nothing. Such a file
    is git's to finish, not a broken one: the line says which, and where the first marker is.
    """
    start = 0
    while (at := data.find(b"<<<<<<<", start)) >= 0:
        if at == 0 or data[at - 1] == 0x0A:
            line = data.count(b"\n", 0, at) + 1
            return f"holds git's conflict markers (<<<<<<< on line {line})"
        start = at + 1
    return None


# How a project file left mid-merge is finished (docs/review.md, "Merging promoted notes").
PROJECT_MERGE_HINT = (
    'finish the merge with abcd memory merge (docs/review.md, "Merging promoted notes")'
)


def project_unparsed(data: bytes, otherwise: str) -> str:
    """Why a project file's bytes did not parse: git's conflict markers, with the way out, or
    `otherwise` (the parser's own words). Every reader of the file says the same."""
    markers = conflict_markers(data)
    return otherwise if markers is None else f"{markers}: {PROJECT_MERGE_HINT}"


# UTF-8's byte order mark: Windows editors save JSON with one, and RFC 8259 lets a parser
# ignore it. Only at the very start; anywhere else it is a character the JSON does not allow.
UTF8_BOM = b"\xef\xbb\xbf"


def without_bom(data: bytes) -> bytes:
    """`data` without one leading UTF-8 byte order mark: what a project file's readers parse."""
    return data[3:] if data.startswith(UTF8_BOM) else data

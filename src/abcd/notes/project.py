"""The project's promoted notes: `<repo>/.abcd/memory.json`, the seed schema without `root`.

People write this file in reviewed commits; this tool reads it through the
checkout's guarded layer (`abcd.trust.Checkout`), and writes it only when a
person promotes a note or git merges it (`abcd.notes.promote`,
`abcd.notes.merge`). A file that fails to read, decode or validate, or a
checkout another account owns, is a `CorruptFile`/`TrustError` naming it; an
absent file is no notes and costs nothing.

A write keeps what it does not change as it was written (`ProjectText`):
every key of every note and of the file, known to this abcd or not (a newer
abcd's, a person's), so an older teammate's promotion or merge strips
nothing, and a key a note does not hold is never written in for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec

from abcd.constants import VIEW_MAX_BYTES, VIEW_SCHEMA_PLAIN
from abcd.errors import CorruptFile
from abcd.journal.lean import MAX_DEPTH, too_deep
from abcd.repo import PROJECT_MEMORY, Repo
from abcd.shapes import (
    project_note_problem,
    project_unparsed,
    project_version_problem,
    without_bom,
)
from abcd.trust import Checkout


class ProjectNote(msgspec.Struct, kw_only=True, frozen=True):
    """A promoted note; the stamps are kept when the person copied them across.

    `written_*` and `session` are the add's; a note revised before it was
    promoted also says who wrote the text it holds (`revision`, `revised_*`:
    written to the file only when set, `REVISION_KEYS`). An abcd that
    predates them reads the file as before and skips them.
    """

    id: str
    title: str
    body: str
    recall: tuple[str, ...]
    origin: str | None = None  # absent in a note written by hand: shown as unknown
    written_by: str | None = None
    written_at: str | None = None
    session: str | None = None
    # Read as they are, never refused for their type: the hook does not show them, so a file
    # it serves is not refused by the CLI for them (`revision_stamp` says whether they make a
    # stamp to show). msgspec still refuses a number out of range in them, and so does the hook
    # (`abcd.journal.lean`, `PROJECT_NOTE_DEFAULTS`).
    revision: Any = 0
    revised_by: Any = None
    revised_at: Any = None

    def revision_stamp(self) -> tuple[int, str, str] | None:
        """`(revision, revised_by, revised_at)` when the note says whose revision its text is, in
        the shapes promotion writes them; else `None` (absent, or not in those shapes)."""
        number, by, at = self.revision, self.revised_by, self.revised_at
        if type(number) is not int or number < 1:
            return None
        if not isinstance(by, str) or not isinstance(at, str):
            return None
        return number, by, at


# The keys a project note holds only when its text is a revision's (see `ProjectNote`).
REVISION_KEYS = ("revision", "revised_by", "revised_at")


class ProjectFile(msgspec.Struct, kw_only=True, frozen=True):
    schema_version: int
    notes: tuple[ProjectNote, ...] = ()


_decoder = msgspec.json.Decoder(ProjectFile)


def read_project_notes(repo: Repo | None) -> tuple[ProjectNote, ...]:
    """The notes in the project's file; empty outside a repository or without the file."""
    if repo is None:
        return ()
    with Checkout.open(repo.top) as checkout:
        data = checkout.read(PROJECT_MEMORY, VIEW_MAX_BYTES)
        name = checkout.shown(PROJECT_MEMORY)
    if data is None:
        return ()
    return decode_project_file(data, name)


def decode_project_file(data: bytes, name: str) -> tuple[ProjectNote, ...]:
    """The notes of a project file's bytes, checked as the hook reads them
    (`abcd.recall.items.parse_project_file`: one verdict, held by a test); `CorruptFile` naming
    `name` (the file as shown) when they are not one this abcd reads."""
    return _checked(data, name).notes


def _checked(data: bytes, name: str) -> ProjectFile:
    """The project file's bytes decoded and checked (`decode_project_file`).

    Before msgspec sees them: JSON nested past `MAX_DEPTH` is refused (msgspec's own limit
    depends on the stack, and fails as a `RecursionError`), and so are bytes that are not
    UTF-8 (no JSON, RFC 8259; msgspec passes over them in a key it skips).
    """
    data = without_bom(data)
    if too_deep(data):
        raise CorruptFile(name, f"nested more than {MAX_DEPTH} deep")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise CorruptFile(name, f"not JSON (not UTF-8: byte {err.start})") from None
    try:
        parsed = _decoder.decode(data)
    except msgspec.DecodeError as err:
        raise CorruptFile(name, project_unparsed(data, f"not a memory file ({err})")) from None
    except msgspec.ValidationError as err:
        raise CorruptFile(name, f"not a memory file ({err})") from None
    problem = project_version_problem(parsed.schema_version, VIEW_SCHEMA_PLAIN)
    if problem is not None:
        raise CorruptFile(name, problem)
    seen: dict[str, int] = {}
    for index, note in enumerate(parsed.notes):  # as the hook reads them (`abcd.recall.items`)
        problem = project_note_problem(note.id, note.title, index, seen)
        if problem is not None:
            raise CorruptFile(name, f"notes[{index}].{problem}")
    return parsed


@dataclass(frozen=True)
class Written:
    """A JSON value as the file holds it: its text as written (`raw`, kept verbatim by a write),
    and the value's canonical text (keys sorted, compact), by which two are the same value."""

    raw: bytes = field(compare=False)
    value: bytes = field(repr=False)

    @classmethod
    def of(cls, raw: bytes) -> Written:
        try:
            value = msgspec.json.encode(msgspec.json.decode(raw), order="sorted")
        except (msgspec.DecodeError, msgspec.ValidationError):
            # A number no reader reads as a value (`1e999`, an int past 4,300 digits), in a key
            # the typed readers pass over: its text is its value (a change of layout alone may
            # then be a change, never a loss).
            value = raw
        return cls(raw, value)


@dataclass(frozen=True)
class ProjectText:
    """The project's file as written: its keys other than `notes` in order (`keys`), where the
    notes stand among them (`notes_at`), and each note's object as written, by id (`notes`,
    in the file's order)."""

    keys: tuple[tuple[str, Written], ...]
    notes_at: int
    notes: tuple[tuple[str, Written], ...]

    @classmethod
    def new(cls) -> ProjectText:
        """A file that is not there yet: the schema version, and no notes."""
        return cls((("schema_version", Written.of(b"%d" % VIEW_SCHEMA_PLAIN)),), 1, ())


def decode_project_text(data: bytes, name: str) -> ProjectText:
    """A project file's bytes as written, checked as `decode_project_file` checks them; a
    byte order mark before them is not kept (the file is written in the one layout)."""
    data = without_bom(data)
    parsed = _checked(data, name)
    top = msgspec.json.decode(data, type=dict[str, msgspec.Raw])  # a key twice: its last
    names = list(top)
    notes_at = names.index("notes") if "notes" in names else len(names)
    keys = tuple((key, Written.of(bytes(top[key]))) for key in names if key != "notes")
    raws = msgspec.json.decode(top["notes"], type=list[msgspec.Raw]) if "notes" in top else []
    notes = tuple(
        (note.id, Written.of(bytes(raw))) for note, raw in zip(parsed.notes, raws, strict=True)
    )
    return ProjectText(keys, notes_at, notes)

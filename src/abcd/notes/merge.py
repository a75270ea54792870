"""Two branches' promoted notes merged by id: git's merge driver for `.abcd/memory.json`.

Each promotion appends a note at the end of the project's file, so two
branches that each promoted one conflict in git's line merge however far
apart their notes are. Merged as a set of notes keyed by id, against the
common ancestor's, they do not: a note changed (or added, or removed) on one
side only takes that side's version, and only a note both sides changed
differently is a conflict. A note is compared whole, as the file holds it
(`Written`), so a change to any of its keys counts, one this abcd does not
know included (a newer abcd's, a person's); the file's own keys beside
`notes` merge the same way, by name. The result is written whole in the
file's own layout (`encode_project_file`), every note and key as a side
wrote it, this side's notes in their order and then the other side's new
ones in theirs.

A conflict keeps this side's version of that note, so the file stays one
the hook reads, and is said on stderr, one line a note, with where to find
the other side's; the merge then reports failure, which is how git learns
that the person must look. Nothing is written when any of the three files
is not a project file this abcd reads. docs/review.md, "Merging promoted notes".
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass

from abcd.constants import VIEW_MAX_BYTES
from abcd.errors import CorruptFile, StorageError
from abcd.notes.project import ProjectText, Written, decode_project_text
from abcd.notes.promote import encode_project_file, write_atomic
from abcd.repo import PROJECT_MEMORY_REL
from abcd.trust.guarded import shown

# Where git keeps the other side's version during a conflicted merge (stage 3).
THEIRS_HINT = f"git show :3:{PROJECT_MEMORY_REL}"


@dataclass(frozen=True)
class Conflict:
    """A note (or a key of the file's own) both sides changed differently: what each did (the
    merge keeps this side's)."""

    note_id: str  # the note's id, or the file's key
    ours: str  # "added", "changed" or "removed"
    theirs: str
    file_key: bool = False

    def line(self) -> str:
        kept = "left out, as this side has it" if self.ours == "removed" else "kept this side's"
        if self.ours == self.theirs:
            what = f"{self.ours} on both sides, differently"
        else:
            what = f"{self.ours} on this side and {self.theirs} on the other"
        subject = f"the file's key {self.note_id!r}" if self.file_key else self.note_id
        return f"{subject}: {what}; {kept} (the other side's: {THEIRS_HINT})"


@dataclass(frozen=True)
class Merged:
    """One keyed merge: the entries in order, the conflicts, what the other side brought."""

    entries: tuple[tuple[str, Written], ...]
    conflicts: tuple[Conflict, ...]
    added: int
    changed: int
    removed: int


@dataclass(frozen=True)
class Merge:
    """The merged file, the conflicts in it, and what the other side brought cleanly: notes
    added, changed or removed, and keys of the file's own (`keys`) taken."""

    text: ProjectText
    conflicts: tuple[Conflict, ...]
    added: int
    changed: int
    removed: int
    keys: int = 0


def merge_keyed(
    base: Sequence[tuple[str, Written]],
    ours: Sequence[tuple[str, Written]],
    theirs: Sequence[tuple[str, Written]],
    *,
    file_key: bool = False,
) -> Merged:
    """The three-way merge by key (each side's keys unique, as every reader of the file holds):
    entries are compared whole, as written values, so a change to any key of a note, known to
    this abcd or not, is a change."""
    was, here, there = dict(base), dict(ours), dict(theirs)
    entries: list[tuple[str, Written]] = []
    conflicts: list[Conflict] = []
    added = changed = removed = 0
    # (An entry in neither side was removed on both: nothing to write.)
    order = [*here, *(key for key in there if key not in here)]
    for key in order:
        old, mine, other = was.get(key), here.get(key), there.get(key)
        if mine == other or other == old:  # the same on both sides, or the other did nothing
            result = mine
        elif mine == old:  # only the other side changed it: its version, or its removal
            result = other
            if old is None:
                added += 1
            elif other is None:
                removed += 1
            else:
                changed += 1
        else:
            result = mine
            conflicts.append(Conflict(key, _what(old, mine), _what(old, other), file_key))
        if result is not None:
            entries.append((key, result))
    return Merged(tuple(entries), tuple(conflicts), added, changed, removed)


def merge_texts(base: ProjectText, ours: ProjectText, theirs: ProjectText) -> Merge:
    """The three files merged: the notes by id, the file's other keys (`schema_version`, a
    newer abcd's or a person's) by name; the notes stand where this side has them."""
    notes = merge_keyed(base.notes, ours.notes, theirs.notes)
    keys = merge_keyed(base.keys, ours.keys, theirs.keys, file_key=True)
    notes_at = min(ours.notes_at, len(keys.entries))
    text = ProjectText(keys.entries, notes_at, notes.entries)
    taken = keys.added + keys.changed + keys.removed
    return Merge(
        text,
        notes.conflicts + keys.conflicts,
        notes.added,
        notes.changed,
        notes.removed,
        taken,
    )


def _what(old: Written | None, new: Written | None) -> str:
    if old is None:
        return "added"
    return "removed" if new is None else "changed"


def read_side(path: str, *, absent_is_empty: bool = False) -> ProjectText:
    """One side's notes from the file at `path` (a file git names, or one a person does: a
    regular file or a pipe, within the project file's bound), checked as the hook reads them.
    `absent_is_empty`: an empty file is no notes (git's common ancestor of two files added on
    both sides)."""
    name = shown(path)
    try:
        st = os.stat(path)
    except OSError as err:
        raise StorageError(f"{name}: cannot read: {err.strerror}") from err
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
        raise CorruptFile(name, "is not a file")
    try:
        with open(path, "rb") as handle:
            data = handle.read(VIEW_MAX_BYTES + 1)
    except OSError as err:
        raise StorageError(f"{name}: cannot read: {err.strerror}") from err
    if len(data) > VIEW_MAX_BYTES:
        raise CorruptFile(name, f"larger than {VIEW_MAX_BYTES} bytes")
    if absent_is_empty and not data.strip():
        return ProjectText((), 0, ())
    return decode_project_text(data, name)  # an id twice is refused there


def merge_files(base: str, ours: str, theirs: str) -> tuple[Merge, bool]:
    """Merge the three files into `ours` (git's `%O %A %B`); the merge and whether `ours` was
    written. Every file is read and checked before anything is written; `ours` is replaced
    whole (a temp file beside it, renamed over it), never through a link."""
    name = shown(ours)
    try:
        st = os.lstat(ours)
    except OSError as err:
        raise StorageError(f"{name}: cannot read: {err.strerror}") from err
    if not stat.S_ISREG(st.st_mode):
        raise CorruptFile(name, "is not a regular file (a link is not followed)")
    mine, other = read_side(ours), read_side(theirs)
    merge = merge_texts(read_side(base, absent_is_empty=True), mine, other)
    if _same(merge.text, mine):
        return merge, False  # nothing came from the other side: this side's file as it is
    folder, target = os.path.split(os.path.abspath(ours))
    try:
        dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as err:
        raise StorageError(f"{shown(folder)}: cannot open: {err.strerror}") from err
    try:
        write_atomic(dfd, encode_project_file(merge.text, name), name, target)
    finally:
        os.close(dfd)
    return merge, True


def _same(one: ProjectText, other: ProjectText) -> bool:
    """Whether two files hold the same keys and notes, as values and in the same order."""
    return (one.keys, one.notes, one.notes_at) == (other.keys, other.notes, other.notes_at)

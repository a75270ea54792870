"""Two branches' promoted notes merged by id: git's merge driver for `.abcd/memory.json`.

Each promotion appends a note at the end of the project's file, so two
branches that each promoted one conflict in git's line merge however far
apart their notes are. Merged as a set of notes keyed by id, against the
common ancestor's, they do not: a note changed (or added, or removed) on one
side only takes that side's version, and only a note both sides changed
differently is a conflict. The result is written whole in the file's own
layout (`encode_project_file`), this side's notes in their order and then the
other side's new ones in theirs.

A conflict keeps this side's version of that note, so the file stays one
the hook reads, and is said on stderr, one line a note, with where to find
the other side's; the merge then reports failure, which is how git learns
that the person must look. Nothing is written when any of the three files
is not a project file this abcd reads. docs/review.md, "Merging promoted notes".
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from abcd.constants import VIEW_MAX_BYTES
from abcd.errors import CorruptFile, StorageError
from abcd.notes.project import ProjectNote, decode_project_file
from abcd.notes.promote import encode_project_file, write_atomic
from abcd.repo import PROJECT_MEMORY_REL
from abcd.trust.guarded import shown

# Where git keeps the other side's version during a conflicted merge (stage 3).
THEIRS_HINT = f"git show :3:{PROJECT_MEMORY_REL}"


@dataclass(frozen=True)
class Conflict:
    """A note both sides changed differently: what each did (the merge keeps this side's)."""

    note_id: str
    ours: str  # "added", "changed" or "removed"
    theirs: str

    def line(self) -> str:
        kept = "left out, as this side has it" if self.ours == "removed" else "kept this side's"
        if self.ours == self.theirs:
            what = f"{self.ours} on both sides, differently"
        else:
            what = f"{self.ours} on this side and {self.theirs} on the other"
        return f"{self.note_id}: {what}; {kept} (the other side's: {THEIRS_HINT})"


@dataclass(frozen=True)
class Merge:
    """The merged notes, the conflicts among them, and what the other side brought cleanly."""

    notes: tuple[ProjectNote, ...]
    conflicts: tuple[Conflict, ...]
    added: int
    changed: int
    removed: int


def merge_notes(
    base: tuple[ProjectNote, ...], ours: tuple[ProjectNote, ...], theirs: tuple[ProjectNote, ...]
) -> Merge:
    """The three-way merge by id (each side's ids unique, as every reader of the file holds)."""
    was, here, there = _by_id(base), _by_id(ours), _by_id(theirs)
    notes: list[ProjectNote] = []
    conflicts: list[Conflict] = []
    added = changed = removed = 0
    # (A note in neither side was removed on both: nothing to write.)
    order = [*here, *(note_id for note_id in there if note_id not in here)]
    for note_id in order:
        old, mine, other = was.get(note_id), here.get(note_id), there.get(note_id)
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
            conflicts.append(Conflict(note_id, _what(old, mine), _what(old, other)))
        if result is not None:
            notes.append(result)
    return Merge(tuple(notes), tuple(conflicts), added, changed, removed)


def _what(old: ProjectNote | None, new: ProjectNote | None) -> str:
    if old is None:
        return "added"
    return "removed" if new is None else "changed"


def _by_id(notes: tuple[ProjectNote, ...]) -> dict[str, ProjectNote]:
    return {note.id: note for note in notes}  # ids are unique: `decode_project_file`


def read_side(path: str, *, absent_is_empty: bool = False) -> tuple[ProjectNote, ...]:
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
        return ()
    return decode_project_file(data, name)  # an id twice is refused there


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
    merge = merge_notes(read_side(base, absent_is_empty=True), mine, other)
    if merge.notes == mine:
        return merge, False  # nothing came from the other side: this side's file as it is
    folder, target = os.path.split(os.path.abspath(ours))
    try:
        dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as err:
        raise StorageError(f"{shown(folder)}: cannot open: {err.strerror}") from err
    try:
        write_atomic(dfd, encode_project_file(merge.notes), name, target)
    finally:
        os.close(dfd)
    return merge, True

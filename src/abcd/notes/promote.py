"""Promotion: a person copies a personal note into the checkout's `.abcd/memory.json`.

The act is the person's (the CLI asks at a terminal, the desk's page asks on
a form carrying its one-time token); this module does what follows the yes.
Under the journal lock, the note must be live and at the revision the person
read; its words are judged against this checkout's private names (the gate,
as for an add: the project's file is committed, and reaches every teammate);
a note tied to another repository, or already in the file, is refused. The
file is then rewritten whole with the note appended, as a working-tree
change the person reviews and commits (this tool never commits), and
`note.promoted` is appended. If the append fails, the file is put back.
The personal note stays; in recall the project's note of the same id
suppresses it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import msgspec

from abcd.constants import VIEW_SCHEMA_PLAIN
from abcd.errors import Refused, StorageError
from abcd.journal.events import Event, NotePromoted
from abcd.journal.view import Note
from abcd.notes.limits import Draft
from abcd.notes.project import ProjectFile, ProjectNote, read_project_notes
from abcd.notes.review import act_on
from abcd.notes.service import judge_text
from abcd.repo import PROJECT_MEMORY_REL, Repo, find_repo
from abcd.trust.guarded import shown

# A committed file others read: readable by all, like the rest of the checkout.
PROJECT_FILE_MODE = 0o644


@dataclass(frozen=True)
class Promoted:
    """A note promoted: the personal note after the act and the file it went into."""

    note: Note
    file: str  # the project file, as shown (`~/...`)


def promotion_target(repo: Repo | None) -> Repo:
    """The checkout a promotion writes into; refused outside a repository."""
    if repo is None:
        raise Refused(
            "not in a git repository",
            message="refused: not in a git repository: a note is promoted into a checkout's "
            ".abcd/memory.json; run this in the checkout",
        )
    return repo


def promote_note(
    note_id: str,
    *,
    promoted_by: str,
    session: str | None,
    seen: int | None = None,
    cwd: Path | None = None,
    warnings: list[str] | None = None,
) -> Promoted:
    """Write the note into the checkout's project file and append `note.promoted`."""
    repo = promotion_target(find_repo(cwd))
    path = os.path.join(repo.top, PROJECT_MEMORY_REL)
    before: list[bytes | None] = []

    def make(note: Note) -> list[Event]:
        check_promotable(note, repo)
        existing = read_project_notes(repo)
        before.append(_read_raw(path))
        _write_project_file(path, (*existing, project_note(note)))
        return [
            NotePromoted(
                id=note.id,
                revision=note.revision,
                root=repo.root_commit,
                promoted_by=promoted_by,
                session=session,
            )
        ]

    try:
        after = act_on(note_id, make, repo=repo, seen=seen, warnings=warnings)
    except BaseException:
        if before:  # the file was written but the journal does not say so: put it back
            _restore(path, before[0])
        raise
    return Promoted(after, shown(path))


def check_promotable(note: Note, repo: Repo) -> None:
    """Refuse a note this checkout cannot take: another repository's, already there, or gated."""
    root = repo.root_commit
    if note.root is not None and note.root != root:
        raise Refused(
            "another repository's note",
            message=f"refused: {note.id} is tied to another repository (root {note.root[:12]}); "
            "promote it from a checkout of that repository",
        )
    if any(p.id == note.id for p in read_project_notes(repo)):
        raise Refused(
            "already promoted",
            message=f"refused: {note.id} is already in {PROJECT_MEMORY_REL}",
        )
    refusal = judge_text(Draft(note.title, note.body, note.recall, note.root is None), repo)
    if refusal is not None:
        raise Refused(
            refusal.kind,
            refusal.field,
            message=f"{refusal} (judged against this checkout's private names: the project's "
            "file is committed); revise the note first",
        )


def project_note(note: Note) -> ProjectNote:
    """The note as the project's file holds it: the seed schema without `root`."""
    return ProjectNote(
        id=note.id,
        title=note.title,
        body=note.body,
        recall=note.recall,
        origin=note.origin,
        written_by=note.written_by,
        written_at=note.written_at,
        session=note.session,
    )


def encode_project_file(notes: tuple[ProjectNote, ...]) -> bytes:
    """The project file's bytes: indented, one key a line, so a reviewer reads the diff."""
    raw = msgspec.json.encode(ProjectFile(schema_version=VIEW_SCHEMA_PLAIN, notes=notes))
    return msgspec.json.format(raw, indent=2) + b"\n"


def _read_raw(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return None
    except OSError as err:
        raise StorageError(f"{shown(path)}: cannot read: {err.strerror}") from err


def _write_project_file(path: str, notes: tuple[ProjectNote, ...]) -> None:
    _write_atomic(path, encode_project_file(notes))


def _restore(path: str, data: bytes | None) -> None:
    try:
        if data is None:
            os.unlink(path)
        else:
            _write_atomic(path, data)
    except OSError:
        pass  # the failure that led here is the one reported


def _write_atomic(path: str, data: bytes) -> None:
    """Replace `path` whole (temp file beside it, fsync, rename), creating `.abcd/` if absent.

    The checkout was opened through its trust checks by `read_project_notes`
    just before; a `.abcd` that is a link is refused here as there.
    """
    folder = os.path.dirname(path)
    try:
        os.mkdir(folder, 0o755)
    except FileExistsError:
        pass
    except OSError as err:
        raise StorageError(f"{shown(folder)}: cannot create: {err.strerror}") from err
    if os.path.islink(folder) or not os.path.isdir(folder):
        raise StorageError(f"{shown(folder)}: not a folder of this checkout")
    tmp = os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, PROJECT_FILE_MODE)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.rename(tmp, path)
    except OSError as err:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise StorageError(f"{shown(path)}: cannot write: {err.strerror}") from err

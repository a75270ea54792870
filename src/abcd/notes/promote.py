"""Promotion: a person copies a personal note into the checkout's `.abcd/memory.json`.

The act is the person's (the CLI asks at a terminal, the desk's page asks on
a form carrying its one-time token); this module does what follows the yes.
Under the journal lock, the note must be live and at the revision the person
read; its words, and the stamps it carries across (`PROJECT_STAMPS`), are
judged against this checkout's private names (the gate, as for an add: the
project's file is committed, and reaches every teammate); a note tied to
another repository, or already in the file, is refused. The file is then
rewritten whole with the note appended and everything else in it as it was
(`ProjectText`: keys this abcd does not know included), as a working-tree
change the person reviews and commits (this tool never commits), and
`note.promoted` is appended. If the append fails, the file is put back.
The personal note stays; in recall the project's note of the same id
suppresses it.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, replace
from pathlib import Path

import msgspec

from abcd.constants import VIEW_MAX_BYTES
from abcd.errors import CorruptFile, Refused, StorageError
from abcd.journal.events import Event, NotePromoted
from abcd.journal.view import Note
from abcd.notes.limits import Draft
from abcd.notes.project import (
    REVISION_KEYS,
    ProjectNote,
    ProjectText,
    Written,
    decode_project_file,
    decode_project_text,
    read_project_notes,
)
from abcd.notes.review import act_on
from abcd.notes.service import check_checkout, judge_text, stamp_refusal
from abcd.repo import PROJECT_MEMORY, PROJECT_MEMORY_REL, Repo, find_repo
from abcd.trust.guarded import CHECKOUT_LAYER, create_synced, open_error, shown

# A committed file others read: readable by all, like the rest of the checkout.
PROJECT_FILE_MODE = 0o644
# The stamps a promotion copies into the file that a person or an agent chose (the times are
# the clock's): the gate judges them as it judges an add's `--by` and `--session`.
PROJECT_STAMPS = ("written_by", "session", "revised_by")
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC


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
    dfd: list[int] = []

    def make(note: Note) -> list[Event]:
        check_promotable(note, repo)
        dfd.append(project_folder(repo))
        before.append(_read_raw(dfd[0], shown(path)))
        text = (
            ProjectText.new() if before[0] is None else decode_project_text(before[0], shown(path))
        )
        added = (note.id, written_note(project_note(note)))
        data = encode_project_file(replace(text, notes=(*text.notes, added)), shown(path))
        write_atomic(dfd[0], data, shown(path))
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
            _restore(dfd[0], before[0], shown(path))
        raise
    finally:
        for fd in dfd:
            os.close(fd)
    return Promoted(after, shown(path))


def check_promotable(note: Note, repo: Repo) -> None:
    """Refuse a note this checkout cannot take: another repository's, already there, or gated."""
    check_checkout(note, repo, "promote")
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
    # The stamps go into the committed file too; a revision cannot change them (`written_by`
    # and `session` stay the add's), so the remedy is a new note holding the text.
    written = project_note(note)
    refusal = stamp_refusal([(key, getattr(written, key)) for key in PROJECT_STAMPS], repo)
    if refusal is not None:
        raise Refused(
            refusal.kind,
            refusal.field,
            message=f"{refusal} (judged against this checkout's private names: the project's "
            "file is committed, stamps included); a stamp is not revised: add the text again "
            "as a new note and promote that one",
        )


def project_note(note: Note) -> ProjectNote:
    """The note as the project's file holds it: the seed schema without `root`, and who wrote the
    text it holds when that was a revision (the team reads the file, not the journal)."""
    return ProjectNote(
        id=note.id,
        title=note.title,
        body=note.body,
        recall=note.recall,
        origin=note.origin,
        written_by=note.written_by,
        written_at=note.written_at,
        session=note.session,
        revision=note.revision,
        revised_by=note.revised_by if note.revision else None,
        revised_at=note.revised_at if note.revision else None,
    )


def written_note(note: ProjectNote) -> Written:
    """A note promotion writes, as the file holds it. Its revision keys are written only when it
    holds a revision's text, so a note promoted as added is what it was before the keys."""
    fields = msgspec.structs.asdict(note)
    if note.revision == 0 and note.revised_by is None and note.revised_at is None:
        for key in REVISION_KEYS:
            del fields[key]
    return Written.of(msgspec.json.encode(fields))


def encode_project_file(text: ProjectText, name: str) -> bytes:
    """The project file's bytes: indented, one key a line, so a reviewer reads the diff. Every
    key and note is written as the file held it (`ProjectText`): a note this write does not
    change comes out as it went in, once in this layout.

    `Refused` (nothing written) when its readers would refuse what it wrote: the layout can
    grow a file many times (a deep array written compact is one line, indented is one a
    value), past the bound every reader keeps, and all the project's notes would stop being
    recalled. `name` is the file as shown."""
    keys = [(key, msgspec.Raw(value.raw)) for key, value in text.keys]
    keys.insert(
        text.notes_at, ("notes", msgspec.Raw(b"[%s]" % b",".join(n.raw for _, n in text.notes)))
    )
    raw = msgspec.json.encode(dict(keys))
    data = msgspec.json.format(raw, indent=2) + b"\n"
    if len(data) > VIEW_MAX_BYTES:
        raise Refused(
            "too large",
            message=f"refused: {name} would be {len(data)} bytes written in its layout, past the "
            f"{VIEW_MAX_BYTES} every reader reads: nothing was written",
        )
    try:
        decode_project_file(data, name)
    except CorruptFile as err:
        raise Refused(
            "unreadable", message=f"refused: {err}, as it would be written: nothing was written"
        ) from None
    return data


def _read_raw(dfd: int, name: str) -> bytes | None:
    """The project file's bytes as they are (to put back if the journal refuses the act);
    `name` is the file as shown."""
    try:
        fd = os.open(PROJECT_MEMORY, _READ | os.O_NONBLOCK, dir_fd=dfd)
    except FileNotFoundError:
        return None
    except OSError as err:
        raise StorageError(f"{name}: cannot read: {err.strerror}") from err
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise StorageError(f"{name}: is not a regular file")
        chunks, size = [], 0
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
            size += len(chunk)
            if size > VIEW_MAX_BYTES:  # the trust-checked read before refused it, or it grew
                raise CorruptFile(name, f"larger than {VIEW_MAX_BYTES} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _restore(dfd: int, data: bytes | None, name: str) -> None:
    try:
        if data is None:
            os.unlink(PROJECT_MEMORY, dir_fd=dfd)
        else:
            write_atomic(dfd, data, name)
    except (OSError, StorageError):
        pass  # the failure that led here is the one reported


def project_folder(repo: Repo) -> int:
    """A descriptor of the checkout's `.abcd/`, made (0755) if absent, never reached through a
    link: every write below goes through it, so no folder swapped in later is written into."""
    folder = shown(os.path.join(repo.top, CHECKOUT_LAYER))
    try:
        top = os.open(repo.top, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as err:
        raise StorageError(f"{shown(repo.top)}: cannot open: {err.strerror}") from err
    try:
        try:
            os.mkdir(CHECKOUT_LAYER, 0o755, dir_fd=top)
        except FileExistsError:
            pass
        except OSError as err:
            raise StorageError(f"{folder}: cannot create: {err.strerror}") from err
        try:
            return os.open(CHECKOUT_LAYER, _READ | os.O_DIRECTORY, dir_fd=top)
        except OSError as err:
            raise open_error(err, folder, CHECKOUT_LAYER, top) from err
    finally:
        os.close(top)


def write_atomic(dfd: int, data: bytes, name: str, target: str = PROJECT_MEMORY) -> None:
    """Replace the file `target` in the folder `dfd` whole: a temp file beside it (never over a
    file or through a link), fsync, rename, fsync the folder; mode 0644, as the rest of a
    checkout. `name` is the file as shown."""
    tmp = f".{target}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    try:
        create_synced(tmp, data, dfd, mode=PROJECT_FILE_MODE)
        os.rename(tmp, target, src_dir_fd=dfd, dst_dir_fd=dfd)
        os.fsync(dfd)
    except OSError as err:
        try:
            os.unlink(tmp, dir_fd=dfd)
        except OSError:
            pass
        raise StorageError(f"{name}: cannot write: {err.strerror}") from err

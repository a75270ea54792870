"""`abcd memory`: add, import, list and remove notes, the bare summary, and the review acts
(show, revise, keep, promote, restore: thin over `abcd.notes.desk`, which the desk's web page
uses too)."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator, Sequence
from typing import Annotated, TextIO

import msgspec
import typer

from abcd.cli import desk_text
from abcd.cli.app import command_group
from abcd.cli.output import WROTE, at_terminal, emit_json, notice
from abcd.constants import (
    BODY_MAX_BYTES,
    BODY_STDIN_MAX_CHARS,
    IMPORT_MAX_BYTES,
    RECALL_FEW_WORDS,
)
from abcd.errors import AbcdError, Refused, UsageError
from abcd.journal import history
from abcd.journal.events import Origin
from abcd.notes import desk, listing, places, service
from abcd.notes.limits import PERSON, Draft, check_draft, check_session, check_written_by
from abcd.repo import Repo, find_repo
from abcd.rules import load_here
from abcd.rules.loader import kill_switch
from abcd.shapes import LINE_BREAKS, without_bom
from abcd.terminal import escaped

app = command_group(
    "Keep notes: add, import, list and remove them; show, revise, keep and promote them in "
    "review; list the removed ones and restore one. Bare: counts per layer."
    "\n\n\b\nExample:\n  abcd memory --json",
    invoke_without_command=True,
)

By = Annotated[
    str,
    typer.Option(
        "--by",
        metavar="WHO",
        help="Who writes: `Vendor:model` (e.g. Claude:claude-opus-4-8), or `person` for yourself.",
    ),
]
# A person's act (remove, recover): `person` unless an agent acts at the person's word.
ByPerson = Annotated[
    str,
    typer.Option(
        "--by", metavar="WHO", help="Who acts: `person` (the default), or `Vendor:model`."
    ),
]
Session = Annotated[
    str | None,
    typer.Option(
        "--session",
        metavar="ID",
        help="The host's session id (default: $CLAUDE_CODE_SESSION_ID).",
    ),
]
Json = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]


@app.callback()
def summary(ctx: typer.Context, json: Json = False) -> None:
    """Counts of personal notes for this repository and everywhere, and of the project's notes.

    \b
    Example:
      abcd memory --json
    """
    if ctx.invoked_subcommand is not None:
        if json:
            raise typer.BadParameter(
                f"goes after the command: abcd memory {ctx.invoked_subcommand} --json",
                param_hint="--json",
            )
        return
    counts = listing.summarize(find_repo())
    if json:
        emit_json(listing.summary_json(counts))
    else:
        for line in listing.summary_lines(counts):
            print(line)
    _said_unreadable(counts.unreadable)


def _said_unreadable(problems: Sequence[str]) -> None:
    """What a listing could not read, each on stderr; exit 1 when anything (the rest was shown)."""
    for problem in problems:
        notice(problem)
    if problems:
        raise typer.Exit(1)


def _stamps(
    by: str, flag: str | None, repo: Repo | None, *, person_allowed: bool = False
) -> tuple[str, str | None]:
    """`--by` and the session, shape-checked, then judged: they go into the journal for ever."""
    written_by = check_written_by(by, person_allowed=person_allowed)
    value, source = service.session_from(flag)
    session = check_session(value, source)
    service.check_stamps([("--by", written_by), (source, session)], repo)
    return written_by, session


def _say_done(line: str, act: str, warnings: list[str]) -> None:
    """One line for an act that landed, then each cache it could not write (the act stands)."""
    print(escaped(line, keep=""))
    for warning in warnings:
        notice(f"warning: {act}, but {warning}")


def _say_written(
    drafts: list[Draft], written_by: str, session: str | None, warnings: list[str]
) -> None:
    """What a reviewer should know about notes just written (said after the write, never before).

    A warning is a cache not written after the notes landed: the write stands (exit 0). An
    agent's note without a session is said to be one; a person's at a terminal has none.
    """
    for warning in warnings:
        notice(f"warning: written, but {warning}")
    if not drafts:
        return
    if session is None and written_by != PERSON:
        notice("session unknown: no --session and no CLAUDE_CODE_SESSION_ID; the note says so")
    if any(d.everywhere for d in drafts):
        notice("--everywhere: only this checkout's private names were checked")


def _remember_place(repo: Repo | None, drafts: list[Draft], warnings: list[str]) -> None:
    """Note where this repository is, so `list` can name it from another one (notes.places)."""
    if repo is not None and any(not d.everywhere for d in drafts):
        missed = places.remember(repo)
        if missed:
            warnings.append(missed)


@app.command()
def add(
    title: Annotated[
        str, typer.Option("--title", metavar="TEXT", help="One line, at most 120 characters.")
    ],
    recall: Annotated[
        list[str],
        typer.Option(
            "--recall",
            metavar="WORD",
            help="A word or short phrase a later prompt would use; 1 to 12, each with its own "
            '--recall, or several in one split by commas ("foo, bar").',
        ),
    ],
    by: By,
    session: Session = None,
    everywhere: Annotated[
        bool, typer.Option("--everywhere", help="Recall in every repository (root null).")
    ] = False,
    moved_from_host: Annotated[
        bool,
        typer.Option(
            "--moved-from-host", help="The text is a lesson moved from the host's memory files."
        ),
    ] = False,
) -> None:
    """Write one note; the body comes on stdin. Prints the new id.

    \b
    Example:
      abcd memory add --title "The tests need the race flag" --recall test --recall race \\
          --recall "data race" --recall flaky --by Claude:claude-opus-4-8 \\
          <<< "Run go test -race ./... first."
    """
    repo = find_repo()
    written_by, stamp = _stamps(by, session, repo, person_allowed=True)
    _typing_hint("the note's body")
    draft = check_draft(
        title, _stdin_body(), recall, everywhere, body_source="the body comes on stdin"
    )
    (verdict,) = service.judge([draft], repo)
    if isinstance(verdict, Refused):
        raise verdict
    origin: Origin = (
        "host-memory-move" if moved_from_host else "person" if written_by == PERSON else "agent"
    )
    warnings: list[str] = []
    twins: list[int] = []
    (note_id,) = service.add_notes(
        [verdict],
        written_by=written_by,
        session=stamp,
        origin=origin,
        warnings=warnings,
        twins=twins,
    )
    print(note_id)
    if twins:
        notice(f"{note_id} already holds this title, body, recall words and reach: nothing written")
        return
    _remember_place(repo, [draft], warnings)
    _say_written([draft], written_by, stamp, warnings)
    if len(draft.recall) < RECALL_FEW_WORDS:
        notice(
            f"{note_id} has {len(draft.recall)} recall word(s): it comes back only when a prompt "
            "holds one; add the words a person would type for the symptom or the question "
            f"(abcd memory revise {note_id} --by <you> --recall ... with every word, old and new)"
        )


class _ImportLine(msgspec.Struct, forbid_unknown_fields=True):
    title: str
    body: str
    recall: list[str]
    everywhere: bool = False


_import_decoder = msgspec.json.Decoder(_ImportLine)


@app.command("import")
def import_(
    file: Annotated[
        str, typer.Argument(metavar="FILE", help="JSON lines of notes, or - for stdin.")
    ],
    by: By,
    session: Session = None,
    json: Json = False,
) -> None:
    """Write many notes from JSON lines (title, body, recall, optional everywhere) in one batch.

    \b
    Example:
      abcd memory import notes.jsonl --by person --json
    """
    repo = find_repo()
    written_by, stamp = _stamps(by, session, repo, person_allowed=True)
    data = _read_import(file)
    drafts: list[tuple[int, Draft]] = []
    refused = _Refusals()
    for number, line in enumerate(split_lines(data), start=1):
        if not line.strip():
            continue
        try:
            item = _import_decoder.decode(line)
            drafts.append(
                (number, check_draft(item.title, item.body, item.recall, item.everywhere))
            )
        except (msgspec.DecodeError, msgspec.ValidationError) as err:
            refused.add(number, _not_a_note(err))
        except Refused as err:
            refused.add(number, str(err))
    del data
    verdicts = service.judge([d for _, d in drafts], repo)
    accepted = []  # (line number, judged draft)
    for (number, _), verdict in zip(drafts, verdicts, strict=True):
        if isinstance(verdict, Refused):
            refused.add(number, str(verdict))
        else:
            accepted.append((number, verdict))
    warnings: list[str] = []
    twins: list[int] = []
    origin: Origin = "person" if written_by == PERSON else "agent"
    ids = (
        service.add_notes(
            [judged for _, judged in accepted],
            written_by=written_by,
            session=stamp,
            origin=origin,
            warnings=warnings,
            twins=twins,
        )
        if accepted
        else []
    )
    held = [(accepted[place][0], ids[place]) for place in twins]
    unwritten = set(twins)
    written = [judged.draft for place, (_, judged) in enumerate(accepted) if place not in unwritten]
    _remember_place(repo, written, warnings)
    _say_written(written, written_by, stamp, warnings)
    named = sorted(refused.named)
    if json:
        emit_json(
            {
                "imported": ids,
                "written": len(written),
                "already_held": [{"line": n, "id": note_id} for n, note_id in held],
                "refused": [{"line": n, "why": why} for n, why in named],
                "refused_lines": refused.count,
            }
        )
    else:
        for note_id in ids:
            print(note_id)
    source = "" if file == "-" else f"{file} "  # the file a line is of, as the person named it
    for number, note_id in held[:IMPORT_REFUSALS_NAMED]:
        notice(
            f"{source}line {number}: {note_id} already holds this text and reach: nothing written"
        )
    if len(held) > IMPORT_REFUSALS_NAMED:
        notice(f"... and {len(held) - IMPORT_REFUSALS_NAMED} more line(s) already held, not named")
    for number, why in named:
        notice(f"{source}line {number}: {why}")
    if refused.count > len(named):
        notice(f"... and {refused.count - len(named)} more refused line(s), not named")
    notice(
        f"imported {len(written)} note(s)"
        + (f"; {len(held)} line(s) already held, nothing written for them" if held else "")
        + f"; refused {refused.count} line(s)"
    )
    if refused.count:
        raise typer.Exit(1)


# How many refused lines an import names. Past them a file is most likely not notes at all
# (a log, the wrong file): the rest are counted, since keeping a reason for each of 30 million
# one-byte lines took 6.7 GB.
IMPORT_REFUSALS_NAMED = 100


class _Refusals:
    """The refused lines of an import: the first `IMPORT_REFUSALS_NAMED` (by line number, in
    the order found: the decode's, then the gate's) with their reasons, and how many in all."""

    def __init__(self) -> None:
        self.named: list[tuple[int, str]] = []
        self.count = 0

    def add(self, number: int, why: str) -> None:
        self.count += 1
        if len(self.named) < IMPORT_REFUSALS_NAMED:
            self.named.append((number, why))


def split_lines(text: str) -> Iterator[str]:
    """`text.splitlines()` one line at a time: the same lines, numbered the same, without a list
    of them all (an import file of 64 MiB can hold 30 million)."""
    start, size = 0, len(text)
    while start < size:
        end = text.find("\n", start)
        end = size if end < 0 else end
        piece = text[start:end]
        yield from piece.splitlines()
        # A `\n` ends one more line when the piece is empty or already ended one itself
        # (`\x1e`, `\u2028`, ...); `\r\n` is one break.
        ended = not piece or (piece[-1] in LINE_BREAKS and piece[-1] != "\r")
        if end < size and ended:
            yield ""
        start = end + 1


def _not_a_note(err: msgspec.DecodeError | msgspec.ValidationError) -> str:
    """Why a line is not a note, without repeating any of the line's own text.

    msgspec names an unknown key in its message, and a key is the line's own
    text (it could be a secret pasted in the wrong place), so an unknown key
    is said, never named. Its other messages name only a type, one of our
    own fields (`$.title`, `$.recall[0]`) or a byte offset.
    """
    message = str(err)
    if "unknown field" in message:
        return "not a note (a key other than title, body, recall and everywhere)"
    return f"not a note ({message})"


def _typing_hint(what: str) -> None:
    """At a terminal, say that stdin is being read: else the command waits without a word."""
    if sys.stdin.isatty():
        notice(f"reading {what} from the terminal: type it, then Ctrl-D on a line of its own")


def _stdin_body() -> str:
    """A note's body from stdin, read to its bound: an endless pipe is refused, never held."""
    body = sys.stdin.read(BODY_STDIN_MAX_CHARS + 1)
    if len(body) > BODY_STDIN_MAX_CHARS:
        raise Refused(
            "too large",
            message=f"refused: body is more than {BODY_STDIN_MAX_CHARS} characters on stdin; "
            f"the limit is {BODY_MAX_BYTES} bytes (2 KiB)",
        )
    return body


def _read_import(file: str) -> str:
    if file == "-":
        _typing_hint("JSON lines of notes")
    shown = "stdin" if file == "-" else file  # "refused: -: ..." named nothing a person typed
    try:
        raw = sys.stdin.buffer.read(IMPORT_MAX_BYTES + 1) if file == "-" else _read_file(file)
    except OSError as err:
        raise Refused("unreadable", message=f"refused: {shown}: {err.strerror}") from None
    if len(raw) > IMPORT_MAX_BYTES:
        raise Refused(
            "too large", message=f"refused: {shown}: larger than {IMPORT_MAX_BYTES} bytes"
        )
    try:
        # A Windows editor's byte order mark opens the file, not its first line's JSON.
        return without_bom(raw).decode("utf-8")
    except UnicodeDecodeError:
        raise Refused("not UTF-8", message=f"refused: {shown}: not UTF-8 text") from None


def _read_file(file: str) -> bytes:
    """The first bytes of `file`, which must be a regular file: a FIFO nobody writes, or a device,
    would be read without end, so the open never waits and anything else is refused
    (docs/decisions.md)."""
    fd = os.open(file, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Refused(
                "not a regular file",
                message=f"refused: {file}: not a regular file (to import from a pipe, pass - and "
                "feed it on stdin)",
            )
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read(IMPORT_MAX_BYTES + 1)
    finally:
        os.close(fd)


@app.command("list")
def list_(
    json: Annotated[bool, typer.Option("--json", help='Print {"notes": [...]}.')] = False,
    search: Annotated[
        str | None,
        typer.Option(
            "--search",
            metavar="TEXT",
            help="Only notes holding TEXT (any case) in the id, title, body or a recall word.",
        ),
    ] = None,
    by: Annotated[
        str | None,
        typer.Option(
            "--by",
            metavar="WHO",
            help="Only notes written or revised by WHO (`Claude` matches every Claude model).",
        ),
    ] = None,
    since: Annotated[
        str | None,
        typer.Option(
            "--since",
            metavar="TIME",
            help="Only notes written or revised at or after TIME (RFC 3339, or a date).",
        ),
    ] = None,
    unreviewed: Annotated[
        bool,
        typer.Option(
            "--unreviewed",
            help="Only personal notes no person has kept or promoted as they stand.",
        ),
    ] = False,
    here: Annotated[
        bool,
        typer.Option(
            "--here",
            help="Only notes recalled in this checkout: its own, those recalled everywhere, "
            "and its project notes.",
        ),
    ] = False,
) -> None:
    """Every note in both layers, with its stamps and where it is recalled.

    \b
    Example:
      abcd memory list --json
      abcd memory list --unreviewed --by Claude --search race
      abcd memory list --here --unreviewed
    """
    history.check_by(by)
    repo = find_repo()
    if here and repo is None:
        raise UsageError("--here lists what a checkout recalls: run it inside one")
    flt = desk.Filter(text=search, by=by, since=since, unreviewed=unreviewed, here=here)
    listed = desk.find(flt, repo)
    if json:
        emit_json({"notes": listed.entries, "unreadable": listed.unreadable})
    else:
        for line in listing.render(listed):
            print(line)
    if here:  # what is listed as recalled here is not, while the switch is on
        silenced_by = load_here().disabled_by
        if silenced_by:
            notice(f"{kill_switch(silenced_by)} in this checkout")
    _said_unreadable(listed.unreadable)


@app.command()
def remove(
    note_id: Annotated[str, typer.Argument(metavar="ID", help="The note's id (mem-...).")],
    by: ByPerson = "person",
    session: Session = None,
) -> None:
    """Remove a personal note (appends NoteRemoved; the journal keeps its history).

    \b
    Example:
      abcd memory remove mem-2611301200000000
    """
    removed_by, stamp = _stamps(by, session, find_repo(), person_allowed=True)
    warnings: list[str] = []
    note = service.remove_note(note_id, removed_by=removed_by, session=stamp, warnings=warnings)
    _say_done(f"removed {note.id}: {note.title}", "removed", warnings)


NoteId = Annotated[str, typer.Argument(metavar="ID", help="The note's id (mem-...).")]


@app.command()
def show(note_id: NoteId, json: Json = False) -> None:
    """A note's whole story: as it is now, every event on it, every session it was sent to.

    \b
    Example:
      abcd memory show mem-2611301200000000 --json
    """
    repo = find_repo()
    story = desk.story(note_id, repo)
    if json:
        emit_json(story.to_json(repo))
    else:
        for line in desk_text.story_lines(story):
            print(line)
    for problem in story.problems:
        notice(problem)


@app.command()
def revise(
    note_id: NoteId,
    by: By,
    title: Annotated[
        str | None,
        typer.Option("--title", metavar="TEXT", help="The new title (kept when not given)."),
    ] = None,
    recall: Annotated[
        list[str] | None,
        typer.Option(
            "--recall",
            metavar="WORD",
            help="The new recall words, all of them (kept when not given); as for add.",
        ),
    ] = None,
    session: Session = None,
) -> None:
    """Revise a personal note; a new body comes on stdin, if given (the note keeps its id).

    At a terminal, with neither --title nor --recall, the new body is read
    from the terminal (end it with Ctrl-D); with either, the body is kept.
    The gate judges the new text as it judges an add; the old text stays in
    the journal, and `memory show` shows every revision.

    \b
    Example:
      abcd memory revise mem-2611301200000000 --by person <<< "Run go test -race ./... first."
    """
    repo = find_repo()
    revised_by, stamp = _stamps(by, session, repo, person_allowed=True)
    body = None
    if not sys.stdin.isatty():
        body = _stdin_body()
    elif title is None and recall is None:  # nothing else to revise: the body, typed
        _typing_hint("the note's new body")
        body = _stdin_body()
    if title is None and recall is None and not body:  # said before the note is looked up
        raise Refused(
            "nothing to revise",
            message="refused: nothing to revise: give --title, --recall or a new body on stdin",
        )
    warnings: list[str] = []
    note = desk.revise(
        note_id,
        by=revised_by,
        title=title,
        body=body or None,
        recall=recall,
        session=stamp,
        warnings=warnings,
    )
    _say_done(f"revised {note.id} (revision {note.revision}): {note.title}", "revised", warnings)


@app.command()
def keep(note_id: NoteId, session: Session = None) -> None:
    """Keep a personal note as it stands: a person reviewed it (appends note.reviewed).

    A person's act: refused unless run at a terminal (an agent's tool call,
    a script or a pipe is refused), so a keep in the journal is a person's.
    It shows the text it would keep and asks; a revision made while it
    asks is refused, not kept unread.

    \b
    Example:
      abcd memory keep mem-2611301200000000
    """
    if not at_terminal():
        raise Refused(
            "not at a terminal",
            message="refused: keeping a note is a person's review: run abcd memory keep at a "
            "terminal, or keep it on the desk's page (abcd review) (stdin and stdout are not "
            "both a terminal)",
        )
    repo = find_repo()
    _, stamp = _stamps(PERSON, session, repo, person_allowed=True)
    shown = desk.check_keep(desk.story(note_id, repo))  # refused before asking
    for line in desk_text.keep_lines(shown):
        print(line)
    _confirmed("Type yes to keep it: ")
    warnings: list[str] = []
    note = desk.keep(note_id, by=PERSON, session=stamp, seen=shown.revision, warnings=warnings)
    _say_done(f"kept {note.id} as of revision {note.revision}: {note.title}", "kept", warnings)


def _confirmed(question: str, to: TextIO | None = None) -> None:
    """Ask `question` at the terminal (on `to` when given, else stdout); `Refused` (nothing
    written) unless the answer is yes."""
    try:
        if to is not None:
            print(question, end="", file=to, flush=True)
        answer = input("" if to is not None else question)
    except EOFError:
        answer = ""
    if answer.strip().lower() != "yes":
        raise Refused("not confirmed", message="refused: not confirmed; nothing was written")


@app.command()
def promote(note_id: NoteId, session: Session = None) -> None:
    """Move a personal note into this checkout's .abcd/memory.json, for you to review and commit.

    A person's act: refused unless run at a terminal and confirmed there.
    The note is judged against this checkout's private names, written into
    the project's file as a working-tree change (never committed), and
    note.promoted is appended; the project's note then suppresses the
    personal one in recall.

    \b
    Example:
      abcd memory promote mem-2611301200000000
    """
    if not at_terminal():
        raise Refused(
            "not at a terminal",
            message="refused: promotion is a person's act: run abcd memory promote at a terminal "
            "and confirm there (stdin and stdout are not both a terminal)",
        )
    repo = find_repo()
    _, stamp = _stamps(PERSON, session, repo, person_allowed=True)
    note = desk.check_promotion(desk.story(note_id, repo), repo)  # refused before asking
    for line in desk_text.promotion_lines(note, repo):
        print(line)
    _confirmed("Type yes to promote it: ")
    warnings: list[str] = []
    promoted = desk.promote(note_id, session=stamp, seen=note.revision, warnings=warnings)
    _say_done(
        f"promoted {note_id} into {promoted.file}: review the change and commit it",
        "promoted",
        warnings,
    )


@app.command()
def restore(note_id: NoteId, session: Session = None) -> None:
    """Bring a removed personal note back, as it stood when it was removed (appends note.restored).

    A person's act: refused unless run at a terminal and confirmed there. It
    shows the text it would bring back; the gate judges that text again, as
    it judges an add, so a note it refuses today stays removed. The note
    keeps its id, reach and stamps; the journal keeps the removal.

    \b
    Example:
      abcd memory restore mem-2611301200000000
    """
    if not at_terminal():
        raise Refused(
            "not at a terminal",
            message="refused: restoring a note is a person's act: run abcd memory restore at a "
            "terminal and confirm there (stdin and stdout are not both a terminal)",
        )
    repo = find_repo()
    _, stamp = _stamps(PERSON, session, repo, person_allowed=True)
    removal = desk.check_restore(note_id, repo)  # refused before asking
    for line in desk_text.restore_lines(removal):
        print(line)
    _confirmed("Type yes to restore it: ")
    warnings: list[str] = []
    back = desk.restore(note_id, session=stamp, seen=removal.seq, warnings=warnings)
    _say_done(
        f"restored {back.id} as of revision {back.revision}: {back.title}", "restored", warnings
    )


@app.command()
def removed(
    json: Json = False,
    by: Annotated[
        str | None,
        typer.Option(
            "--by",
            metavar="WHO",
            help="Only notes removed by WHO (`Claude` matches every Claude model, `person`).",
        ),
    ] = None,
    since: Annotated[
        str | None,
        typer.Option(
            "--since",
            metavar="TIME",
            help="Only notes removed at or after TIME (RFC 3339, or a date).",
        ),
    ] = None,
) -> None:
    """The removed personal notes, each as it stood when it was removed, the newest removal first.

    Who removed it, when and in which session; `abcd memory restore ID`
    brings one back.

    \b
    Example:
      abcd memory removed --by Claude --since 2026-12-01
    """
    history.check_by(by)
    repo = find_repo()
    gone = desk.removed(by=by, since=since)
    if json:
        emit_json({"notes": [desk.removal_entry(r, repo) for r in gone]})
    else:
        for line in desk_text.removed_lines(gone):
            print(line)


@app.command()
def merge(
    base: Annotated[str, typer.Argument(metavar="BASE", help="The common ancestor's file (%O).")],
    ours: Annotated[
        str, typer.Argument(metavar="OURS", help="This side's file, replaced by the merge (%A).")
    ],
    theirs: Annotated[str, typer.Argument(metavar="THEIRS", help="The other side's file (%B).")],
) -> None:
    """Merge two branches' .abcd/memory.json by note id: git's merge driver for the file.

    A note added, changed or removed on one side only takes that side's
    version; one both sides changed differently keeps this side's, is named
    on stderr, and the merge exits 1 so git leaves the file for you. Set it
    up once per clone (and commit the .gitattributes line):

    \b
    Example:
      echo '.abcd/memory.json merge=abcd-memory' >> .gitattributes
      git config merge.abcd-memory.driver 'abcd memory merge %O %A %B'
    """
    from abcd.notes.merge import merge_files

    done, written = merge_files(base, ours, theirs)
    for conflict in done.conflicts:
        notice(conflict.line())
    if done.conflicts:
        what = "note(s)" if all(not c.file_key for c in done.conflicts) else "note(s) or key(s)"
        raise AbcdError(
            f"{len(done.conflicts)} {what} changed on both sides: the merged file "
            + ("was written with" if written else "keeps")
            + " this side's version of each; edit it if need be, then git add it"
        )
    if written:
        # Git reads an exit of 1 as a conflict: a clean merge whose output fails after it wrote
        # exits 0 (one with conflicts exits 1 whatever its stderr does, above).
        WROTE.append(escaped(ours, keep=""))
        keys = f"; and {done.keys} of the file's own key(s)" if done.keys else ""
        print(
            f"merged the other side's notes: {done.added} added, {done.changed} changed, "
            f"{done.removed} removed{keys}"
        )
    else:
        print("nothing to take from the other side: this side's file is unchanged")


__all__ = ["AbcdError", "app"]

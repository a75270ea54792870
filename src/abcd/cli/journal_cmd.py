"""`abcd journal`: verify the chain, audit every event, replay the view as of a time, rebuild it."""

from __future__ import annotations

import sys
from typing import Annotated, Any, TextIO

import typer

from abcd.cli.app import command_group
from abcd.cli.memory_cmd import ByPerson
from abcd.cli.output import WROTE, emit_json, notice
from abcd.errors import AbcdError, JournalBroken, hint_for
from abcd.journal import history
from abcd.journal.chain import Break
from abcd.journal.recover import Tail
from abcd.journal.recover import recover as recover_journal
from abcd.journal.segments import Segments
from abcd.journal.store import VIEW_FILE
from abcd.journal.store import rebuild as rebuild_view
from abcd.journal.verify import verify as verify_chain
from abcd.journal.view import View
from abcd.notes.limits import check_note_id
from abcd.progress import Progress
from abcd.recall.index import rebuild_index
from abcd.recall.keptcheck import kept_differences
from abcd.repo import find_repo
from abcd.terminal import escaped
from abcd.trust import Home

app = command_group(
    "Verify, audit, replay and rebuild the note journal.\n\n\b\nExample:\n  abcd journal audit --json",
    no_args_is_help=True,
)

Json = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]


def _progress(home: Home, label: str) -> Progress:
    with Segments(home) as segs:
        return Progress(label, segs.total_bytes())


def _broken(brk: Break | JournalBroken) -> dict[str, Any]:
    return {"seq": brk.seq, "what": brk.what, "where": brk.where}


@app.command()
def verify(json: Json = False) -> None:
    """Walk the whole chain and re-fold it; exit 1 naming the first seq where it breaks, or
    every note the view or the recall index holds other than the journal does, or every file
    whose copy the prompt hook keeps (this checkout's, the machine pages') holds other text.

    \b
    Example:
      abcd journal verify --json
    """
    home = Home.open()
    if home is None:
        if json:
            emit_json(
                {
                    "intact": True,
                    "events": 0,
                    "segments": 0,
                    "head": None,
                    "breaks": [],
                    "differs": [],
                    "recall_cache_differs": [],
                }
            )
        else:
            print("no journal yet: nothing to verify")
        return
    repo = find_repo()
    with home:
        bar = _progress(home, "verify")
        report = verify_chain(home, on_bytes=bar.advance)
        bar.close()
        # The prompt hook's parsed copies of this checkout's files and of the machine's pages.
        kept = kept_differences(home, repo.top if repo is not None else None)
    for line in report.notes:
        notice(line)
    for line in report.differs + kept:
        notice(line)
    if json:
        emit_json(
            {
                "intact": not (report.breaks or report.differs or kept),
                "events": report.events,
                "segments": report.segments,
                "head": report.head or None,
                "breaks": [_broken(b) for b in report.breaks],
                "differs": report.differs,
                "recall_cache_differs": kept,
            }
        )
        if report.breaks or report.differs or kept:
            raise typer.Exit(1)
        return
    if report.breaks:
        first = report.breaks[0]
        raise AbcdError(f"{first.message()}; {hint_for(first.what)}")
    if report.differs:
        raise AbcdError(
            f"the journal is intact ({report.events} event(s)) but a cache holds what it does "
            "not: `abcd journal rebuild` re-projects both from the journal"
        )
    if kept:
        raise AbcdError(
            f"the journal is intact ({report.events} event(s)) but the prompt hook's parsed copy "
            "of a file holds what the file does not: remove the copy named above, and the next "
            "prompt parses the file again"
        )
    print(
        f"journal intact: {report.events} event(s) in {report.segments} segment(s); "
        f"head {report.head[:16] or '-'}"
    )


@app.command()
def audit(
    note: Annotated[
        str | None, typer.Option("--note", metavar="ID", help="Only this note's events.")
    ] = None,
    by: Annotated[
        str | None,
        typer.Option(
            "--by", metavar="WHO", help="Only this writer (`Claude`, `Claude:model` or `person`)."
        ),
    ] = None,
    session: Annotated[
        str | None, typer.Option("--session", metavar="ID", help="Only this session's events.")
    ] = None,
    since: Annotated[
        str | None,
        typer.Option(
            "--since",
            metavar="TIME",
            help="Only events at or after this time (RFC 3339, or a date).",
        ),
    ] = None,
    json: Json = False,
) -> None:
    """Every event, oldest first: seq, time, type, note id, who, session, origin.

    \b
    Example:
      abcd journal audit --by Claude --since 2026-11-01
    """
    if since is not None:
        history.parse_time(since)  # a usage error, journal or none
    if note is not None:
        check_note_id(note)  # refused as `memory show` refuses it, journal or none
    history.check_by(by)
    home = Home.open()
    rows: list[history.AuditRow] = []
    broken: JournalBroken | None = None
    if home is not None:
        with home:
            bar = _progress(home, "audit")
            try:
                history.audit(
                    home,
                    note=note,
                    by=by,
                    session=session,
                    since=since,
                    on_bytes=bar.advance,
                    rows=rows,
                )
            except JournalBroken as err:
                broken = err  # the intact prefix is shown, then the break
            finally:
                bar.close()
    if note is not None and not rows and broken is None:
        from abcd.notes import desk

        # An id no layer and no event knows is refused, as `show` refuses it.
        desk.story(note, find_repo())
    if json:
        out: dict[str, Any] = {"events": rows}
        if broken is not None:
            out["broken"] = _broken(broken)
        emit_json(out)
        if broken is not None:
            raise typer.Exit(1)
        return
    for row in rows:
        session_text = row.session or "session unknown"
        origin = f" origin {row.origin}" if row.origin else ""
        title = f"  {row.said}" if row.said else ""
        line = f"{row.seq:>6}  {row.at}  {row.type:<12}  {row.note or ''}  {row.by}  {session_text}{origin}{title}"
        print(escaped(line, keep=""))  # a title's control characters, shown escaped
    if broken is not None:
        print(f"{broken.seq:>6}  ---- the chain breaks here: {broken.what} ({broken.where})")
        raise AbcdError(str(broken))
    if not rows:
        print("no events")


@app.command()
def replay(
    as_of: Annotated[
        str,
        typer.Option("--as-of", metavar="SEQ|TIME", help="A seq number or a time (RFC 3339)."),
    ],
    json: Json = False,
) -> None:
    """Print the view as it was after that seq or at that time.

    \b
    Example:
      abcd journal replay --as-of 2026-11-30T12:00:00Z
    """
    asked, _ = history.as_of_point(as_of)  # a usage error, journal or none
    home = Home.open()
    view = View()
    if home is not None:
        with home:
            bar = _progress(home, "replay")
            view = history.replay(home, as_of, on_bytes=bar.advance)
            bar.close()
    if asked is not None and asked > view.journal.seq:
        notice(f"seq {asked} is past the journal's end: this is the view as of its last event")
    if json:
        emit_json(view)
        return
    print(f"as of seq {view.journal.seq}: {len(view.notes)} note(s)")
    for note in view.notes:
        line = f"{note.id}  {note.written_at}  {note.written_by}  {note.title}"
        print(escaped(line, keep=""))  # a title's control characters, shown escaped


@app.command()
def rebuild(json: Json = False) -> None:
    """Re-project memory.json from the journal, from zero; say what changed.

    \b
    Example:
      abcd journal rebuild --json
    """
    found = Home.open()
    if found is None:  # a home that does not exist (a mistyped ABCD_HOME?) is not made here
        if json:
            emit_json(
                {"view": "no journal", "notes": 0, "seq": 0, "was_seq": None, "added": [],
                 "dropped": [], "changed": []}
            )  # fmt: skip
        else:
            print("no journal yet: nothing to rebuild")
        return
    with found as home:
        bar = _progress(home, "rebuild")
        old, new = rebuild_view(home.path, on_bytes=bar.advance, projections=(rebuild_index,))
        bar.close()
    before = {n.id: n for n in old.notes} if old is not None else {}
    after = {n.id: n for n in new.notes}
    added = sorted(after.keys() - before.keys())
    dropped = sorted(before.keys() - after.keys())
    changed = sorted(k for k in after.keys() & before.keys() if after[k] != before[k])
    up_to_date = (
        old is not None and not (added or dropped or changed) and old.journal == new.journal
    )
    if not up_to_date:
        WROTE.append(home.shown(VIEW_FILE))
    if json:
        emit_json(
            {
                "view": "up to date" if up_to_date else "written" if old is None else "rebuilt",
                "notes": len(new.notes),
                "seq": new.journal.seq,
                "was_seq": old.journal.seq if old is not None else None,
                "added": added,
                "dropped": dropped,
                "changed": changed,
            }
        )
        return
    if old is None:
        print(f"view written: {len(new.notes)} note(s) at seq {new.journal.seq}")
        return
    if up_to_date:  # digests aside
        print(f"view was up to date: {len(new.notes)} note(s) at seq {new.journal.seq}")
        return
    print(
        f"view rebuilt: {len(new.notes)} note(s) at seq {new.journal.seq} (was seq {old.journal.seq})"
    )
    for label, ids in (("added", added), ("dropped", dropped), ("changed", changed)):
        if ids:
            print(f"  {label}: {', '.join(ids)}")


# How many of the lines a recovery would set aside it names before it asks; the rest are counted.
RECOVER_LINES_NAMED = 20


def _ask(tail: Tail, home: Home, to: TextIO) -> None:
    """Name the break and what a recovery would set aside, before the person is asked."""
    brk = tail.brk
    lines = [f"journal broken at seq {brk.seq}: {brk.what} ({brk.where})"]
    if tail.events:
        lines.append(
            f"Set aside the {len(tail.events)} line(s) from seq {brk.seq} to the journal's end? "
            f"They are kept, byte for byte, under {home.shown('recovered')}/, and leave the view:"
        )
        lines += [f"  {event}" for event in tail.events[:RECOVER_LINES_NAMED]]
        if len(tail.events) > RECOVER_LINES_NAMED:
            lines.append(f"  ... and {len(tail.events) - RECOVER_LINES_NAMED} more")
    else:
        lines.append(
            "No line is at fault: the journal lost lines the view holds. Set the view aside "
            f"(kept under {home.shown('recovered')}/) and fold it again from the journal?"
        )
    for line in lines:
        print(escaped(line, keep=""), file=to)


@app.command()
def recover(
    by: ByPerson = "person",
    json: Json = False,
) -> None:
    """Set the journal's broken tail aside (kept, never deleted) and go on from its intact prefix.

    A person's act: refused unless run at a terminal, where it names the
    break and every line it would set aside, and asks. With --json it asks
    on stderr, so stdout may go to a program. Everything from the
    first seq `verify` names is moved into `<home>/recovered/<time>-seq-<N>/`;
    a `journal.recovered` event says what was set aside, and the view and
    index are re-projected. If the break moves while it asks, nothing is
    set aside.

    \b
    Example:
      abcd journal verify || abcd journal recover
    """
    from abcd.cli.memory_cmd import _confirmed, _stamps
    from abcd.cli.output import at_terminal
    from abcd.errors import Refused
    from abcd.journal.recover import preview

    if not at_terminal(asks_on_stderr=json):
        raise Refused(
            "not at a terminal",
            message="refused: setting the journal's tail aside is a person's act: run abcd "
            "journal recover at a terminal and confirm there (stdin and "
            f"{'stderr' if json else 'stdout'} are not both a terminal)",
        )
    recovered_by, stamp = _stamps(by, None, find_repo(), person_allowed=True)
    home = Home.open()
    done = None
    if home is not None:
        with home:
            tail = preview(home)
            if tail is not None:
                _ask(tail, home, to=sys.stderr if json else sys.stdout)
                _confirmed("Type yes to set it aside: ", to=sys.stderr if json else None)
                done = recover_journal(
                    home,
                    by=recovered_by,
                    session=stamp,
                    projections=(rebuild_index,),
                    seen=tail,
                )
    if done is None:
        if json:
            emit_json({"recovered": False})
        else:
            print("journal intact: nothing to recover")
        return
    shown = f"{home.shown(done.set_aside) if home is not None else done.set_aside}"
    if json:
        emit_json(
            {
                "recovered": True,
                "broken": _broken(done.brk),
                "set_aside": shown,
                "lines": done.lines,
                "bytes": done.bytes,
                "event_seq": done.seq,
                "notes": len(done.view.notes),
            }
        )
        return
    print(f"journal broken at seq {done.brk.seq}: {done.brk.what}")
    print(f"set aside {done.lines} line(s), {done.bytes} byte(s) into {shown} (kept, not deleted)")
    print(
        f"appended journal.recovered at seq {done.seq}; view rebuilt: "
        f"{len(done.view.notes)} note(s)"
    )

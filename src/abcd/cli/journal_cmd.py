"""`abcd journal`: verify the chain, audit every event, replay the view as of a time, rebuild it."""

from __future__ import annotations

from typing import Annotated

import typer

from abcd.cli.output import emit_json, notice
from abcd.errors import AbcdError
from abcd.journal import history
from abcd.journal.segments import Segments
from abcd.journal.store import rebuild as rebuild_view
from abcd.journal.verify import verify as verify_chain
from abcd.journal.view import View
from abcd.progress import Progress
from abcd.recall.index import rebuild_index
from abcd.trust import Home

app = typer.Typer(help="Verify, audit, replay and rebuild the note journal.", no_args_is_help=True)

Json = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]


def _home() -> Home:
    home = Home.open()
    if home is None:
        home = Home.open(create=True)
        assert home is not None
    return home


def _progress(home: Home, label: str) -> Progress:
    with Segments(home) as segs:
        return Progress(label, segs.total_bytes())


@app.command()
def verify() -> None:
    """Walk the whole chain; exit 1 naming the first seq where it breaks."""
    home = Home.open()
    if home is None:
        print("no journal yet: nothing to verify")
        return
    with home:
        bar = _progress(home, "verify")
        report = verify_chain(home, on_bytes=bar.advance)
        bar.close()
    for line in report.notes:
        notice(line)
    if report.breaks:
        first = report.breaks[0]
        raise AbcdError(f"journal broken at seq {first.seq}: {first.what} ({first.where})")
    print(f"journal intact: {report.events} event(s) in {report.segments} segment(s)")


@app.command()
def audit(
    note: Annotated[str | None, typer.Option("--note", help="Only this note's events.")] = None,
    by: Annotated[
        str | None, typer.Option("--by", help="Only this writer (`Claude` or `Claude:model`).")
    ] = None,
    session: Annotated[
        str | None, typer.Option("--session", help="Only this session's events.")
    ] = None,
    since: Annotated[
        str | None,
        typer.Option("--since", help="Only events at or after this time (RFC 3339, or a date)."),
    ] = None,
    json: Json = False,
) -> None:
    """Every event, oldest first: seq, time, type, note id, who, session, origin."""
    home = Home.open()
    rows: list[history.AuditRow] = []
    if home is not None:
        with home:
            bar = _progress(home, "audit")
            rows = history.audit(
                home, note=note, by=by, session=session, since=since, on_bytes=bar.advance
            )
            bar.close()
    if json:
        emit_json({"events": rows})
        return
    for row in rows:
        session_text = row.session or "session unknown"
        origin = f" origin {row.origin}" if row.origin else ""
        title = f"  {row.title}" if row.title else ""
        print(
            f"{row.seq:>6}  {row.at}  {row.type:<12}  {row.note}  {row.by}  {session_text}{origin}{title}"
        )
    if not rows:
        print("no events")


@app.command()
def replay(
    as_of: Annotated[str, typer.Option("--as-of", help="A seq number or a time (RFC 3339).")],
    json: Json = False,
) -> None:
    """Print the view as it was after that seq or at that time."""
    home = Home.open()
    view = View()
    if home is not None:
        with home:
            bar = _progress(home, "replay")
            view = history.replay(home, as_of, on_bytes=bar.advance)
            bar.close()
    if json:
        emit_json(view)
        return
    print(f"as of seq {view.journal.seq}: {len(view.notes)} note(s)")
    for note in view.notes:
        print(f"{note.id}  {note.written_at}  {note.written_by}  {note.title}")


@app.command()
def rebuild() -> None:
    """Re-project memory.json from the journal, from zero; say what changed."""
    with _home() as home:
        bar = _progress(home, "rebuild")
        old, new = rebuild_view(home.path, on_bytes=bar.advance, projections=(rebuild_index,))
        bar.close()
    if old is None:
        print(f"view written: {len(new.notes)} note(s) at seq {new.journal.seq}")
        return
    before = {n.id: n for n in old.notes}
    after = {n.id: n for n in new.notes}
    added = sorted(after.keys() - before.keys())
    dropped = sorted(before.keys() - after.keys())
    changed = sorted(k for k in after.keys() & before.keys() if after[k] != before[k])
    if not (added or dropped or changed) and old.journal == new.journal:
        print(f"view was up to date: {len(new.notes)} note(s) at seq {new.journal.seq}")
        return
    print(
        f"view rebuilt: {len(new.notes)} note(s) at seq {new.journal.seq} (was seq {old.journal.seq})"
    )
    for label, ids in (("added", added), ("dropped", dropped), ("changed", changed)):
        if ids:
            print(f"  {label}: {', '.join(ids)}")

"""Provenance of every send: the session ledgers joined to the journal's notes.

The prompt hook records each item it sends in the session's ledger,
`<home>/sessions/<sha256(session)>.jsonl` (`item.recalled`: key, form), and,
since issue 14, how full the window was for that prompt just before
(`fill.used`). This module reads them back for the review desk: for a note,
every session it was sent to; for a session, every item. A send written
before `fill.used` existed takes the fill from the status line's readings in
`<home>/fill/` (the last one at or before it), else it is "not recorded".

How far back: as far as the ledgers live. The session start sweeps session
and fill files untouched for seven days (`SESSION_STALE_SECONDS`), so a
send is shown while its session was active in the last seven days
(docs/decisions.md, "The reviewer's desk"). A ledger names its session only
by the SHA-256 of its id; the id is shown when the journal knows it (a
note written, revised or removed in that session), else the ledger's name.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from abcd.errors import AbcdError
from abcd.session.events import (
    DomainInjected,
    FillRead,
    FillUsed,
    ItemRecalled,
    SessionRecord,
    SessionReset,
    decode_session_lines,
)
from abcd.session.files import FILL_DIR, SESSION_FILE_REVIEW_MAX_BYTES, SESSIONS_DIR, file_name
from abcd.trust import Home

# A ledger is shown by this many hex digits of its file's name when its session id is unknown.
LEDGER_SHOWN = 16
NOT_RECORDED = "not recorded"


@dataclass(frozen=True)
class Send:
    """One item the hook sent: to which session, when, in which form, how full the window was."""

    key: str  # a note id, `page:<file>`, or `domain:<name>` for a rule domain
    session: str | None  # the session id, when the journal names it
    ledger: str  # the ledger's name (the SHA-256 of the session id), shortened
    at: str
    form: str  # "full" or "line" ("short" for a rule domain)
    percent: float | None  # how full the window was, when known
    fill: str  # where that figure came from: statusline, transcript, unknown, or not recorded
    signature: str = ""  # the ledger's digest of the text sent (`Item.signature`)
    text: str | None = None  # which text that was, when the note's story knows it (`desk.story`)

    @property
    def shown_session(self) -> str:
        return self.session if self.session is not None else f"ledger {self.ledger}"


@dataclass
class Ledgers:
    """Every send in the ledgers on disk, and a line for each ledger that could not be read."""

    sends: list[Send]
    problems: list[str]

    def of(self, key: str) -> list[Send]:
        return [s for s in self.sends if s.key == key]

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for send in self.sends:
            out[send.key] = out.get(send.key, 0) + 1
        return out


def _names(home: Home, folder: str) -> list[str]:
    with home.folder(folder) as dfd:
        if dfd is None:
            return []
        return sorted(n for n in os.listdir(dfd) if n.endswith(".jsonl"))


def _read(home: Home, folder: str, name: str, problems: list[str]) -> list[SessionRecord]:
    rel = f"{folder}/{name}"
    try:
        data = home.read(rel, SESSION_FILE_REVIEW_MAX_BYTES)
    except AbcdError as err:
        problems.append(f"ledger unreadable: {err}")
        return []
    if not data:
        return []
    records, unreadable = decode_session_lines(data)
    if unreadable:
        problems.append(f"{home.shown(rel)}: {unreadable} unreadable line(s) skipped")
    return records


def _sends(
    name: str,
    records: list[SessionRecord],
    readings: list[SessionRecord],
    session: str | None,
) -> list[Send]:
    """The sends of one ledger, each with the fill of its prompt."""
    out: list[Send] = []
    ledger = name.removesuffix(".jsonl")[:LEDGER_SHOWN]
    used: FillUsed | None = None
    for record in records:
        event = record.event
        if isinstance(event, SessionReset):
            used = None
        elif isinstance(event, FillUsed):
            used = event
        elif isinstance(event, ItemRecalled | DomainInjected):
            percent, source = (
                (used.percent, used.source) if used is not None else _read_fill(readings, record.at)
            )
            key = event.key if isinstance(event, ItemRecalled) else f"domain:{event.name}"
            out.append(
                Send(key, session, ledger, record.at, event.form, percent, source, event.signature)
            )
        # A prompt's fill.used stands for that prompt's sends only.
        if not isinstance(event, FillUsed | ItemRecalled | DomainInjected):
            used = None
    return out


def _read_fill(readings: list[SessionRecord], at: str) -> tuple[float | None, str]:
    """The status line's last reading at or before `at` (a send from before `fill.used`)."""
    found: float | None = None
    for record in readings:
        if record.at > at:
            break
        if isinstance(record.event, FillRead):
            found = record.event.used_percentage
    return (found, "statusline") if found is not None else (None, NOT_RECORDED)


def read_ledgers(home: Home | None, sessions: Iterable[str | None] = ()) -> Ledgers:
    """Every send in every ledger, oldest first; `sessions` are the ids the journal knows."""
    ledgers = Ledgers([], [])
    if home is None:
        return ledgers
    known = {file_name(s): s for s in sessions if s}
    fills = set(_names(home, FILL_DIR))
    for name in _names(home, SESSIONS_DIR):
        ledgers.sends += _ledger(home, name, known.get(name), name in fills, ledgers.problems)
    ledgers.sends.sort(key=lambda s: s.at)
    return ledgers


def _ledger(
    home: Home, name: str, session: str | None, has_fill: bool, problems: list[str]
) -> list[Send]:
    records = _read(home, SESSIONS_DIR, name, problems)
    readings = _read(home, FILL_DIR, name, problems) if has_fill else []
    return _sends(name, records, readings, session)


def session_sends(home: Home | None, session_id: str) -> Ledgers:
    """Every item sent to one session, oldest first (empty when its ledger is gone or never was)."""
    ledgers = Ledgers([], [])
    if home is None:
        return ledgers
    name = file_name(session_id)
    has_fill = name in set(_names(home, FILL_DIR))
    ledgers.sends = _ledger(home, name, session_id, has_fill, ledgers.problems)
    return ledgers

"""The Claude Code hooks: `abcd hook session-start | prompt-router | pre-compact`.

Each reads the host's JSON payload on stdin (fields as in `shared/host/`).
`prompt-router` prints the context the prompt brings back on stdout (the
host hands plain stdout to the model) and one stderr line naming what came
back, and what the host's limit kept out; `--json` prints the envelope
`{"text", "injected", "recalled", "fill"}` instead. What it prints stays
within the host's limit on a hook's output (`abcd.recall.budget`:
`ABCD_HOST_CONTEXT_CHARS`, else 10,000 characters, measured on Claude Code
2.1.197). `session-start` and `pre-compact` reset the session's ledger.

A hook never blocks a prompt: any failure is one stderr line and exit 0, and
whatever could still be recalled is recalled. This module is the hot path:
it must not import the CLI framework (no typer, click or rich).
"""

from __future__ import annotations

from abcd import fastjson
from abcd import leanos as os
from abcd.errors import AbcdError
from abcd.host.payload import read_object
from abcd.host.payload import say as _say
from abcd.recall.constants import BACKSTOP_EVERY_PROMPTS, PROMPT_SCAN_BYTES
from abcd.repo import find_repo, working_folder
from abcd.session.events import (
    DomainForgotten,
    DomainInjected,
    FillUnknownSaid,
    FillUsed,
    ItemRecalled,
    PromptSeen,
    RepoSeen,
    SessionReset,
)
from abcd.session.files import SESSIONS_DIR, append_events, read_events_since_reset, sweep_stale
from abcd.session.ledger import Ledger, fold
from abcd.shapes import is_session_id
from abcd.trust.guarded import Home, foreign_repository

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO

    from abcd.recall.engine import Outcome
    from abcd.session.events import SessionEvent, SessionRecord

# Modules this path never loads (the lean-imports test holds it to that; tools/bench_terms.py
# reports any that recall's core pulls in): the CLI framework, and modules that each cost a
# prompt milliseconds (`array` brings `collections`, `json` its pure-Python modules and `re`).
NEVER_LOADED = (
    "msgspec",
    "typing",
    "dataclasses",
    "pathlib",
    "typer",
    "click",
    "rich",
    "secrets",
    "subprocess",
    "contextlib",
    "datetime",
    "inspect",
    "array",
    "collections",
    "json",
    "hashlib",
    "enum",
    # A shared library (~0.22 ms a process): `abcd.recall.bm25f.ln` serves the ranking instead.
    "math",
    # The reviewer's desk (`abcd review`, abcd.web): its templates and its server.
    "jinja2",
    "markupsafe",
    "http",
    "socketserver",
    "webbrowser",
)
# The payload carries the prompt; a prompt past the scan bound is cut, so the payload is bounded
# with room for the host's other fields.
PAYLOAD_MAX_BYTES = 16 * 1024 * 1024
# The stderr line names at most this many notes and pages that did not fit (and counts the rest):
# a broad prompt's thousands of candidates are neither read nor listed to say so.
DID_NOT_FIT_NAMED = 5
# SessionStart sources after which the context still holds what earlier prompts recalled.
RESUMED_SOURCES = frozenset({"resume"})


class Payload:
    """The fields of a hook payload this tool reads; anything else is ignored."""

    __slots__ = ("cwd", "problems", "prompt", "session_id", "source", "transcript_path")

    def __init__(self, raw: dict[str, Any]) -> None:
        # What the payload gave that the hook cannot use, said in one line (`main`): the host
        # never sends it, so a line means a host (or a tester) that does not send what abcd reads.
        self.problems: list[str] = []

        def text(name: str) -> str | None:
            value = raw.get(name)
            if isinstance(value, str):
                return value
            if value is not None:
                self.problems.append(f"{name} is not text ({type(value).__name__})")
            return None

        sid = text("session_id")
        self.session_id = sid if sid and is_session_id(sid) else None
        if sid and self.session_id is None:
            self.problems.append(
                f"session_id {sid[:40]!r} is not a session id, so nothing is once per session"
            )
        cwd = text("cwd")
        self.cwd = _usable_path(cwd) or working_folder()
        if cwd and self.cwd != cwd:
            self.problems.append("cwd is not a path the system takes; the working folder serves")
        self.prompt = (text("prompt") or "")[: PROMPT_SCAN_BYTES * 4]
        self.transcript_path = text("transcript_path")
        # Written into the ledger as the reset's reason: a short word, as the host sends
        # (`startup`, `resume`, `clear`, `compact`); anything else is named only as `other`, so a
        # payload can neither grow the ledger past its bound nor fail its encoding.
        source = text("source")
        self.source = "unknown" if not source else source if is_session_id(source) else "other"


def _usable_path(path: str | None) -> str | None:
    """`path` when the system can be asked about it (no NUL, no lone surrogate), else `None`."""
    if not path or "\0" in path:
        return None
    try:
        os.fsencode(path)
    except UnicodeError:
        return None
    return path


def read_payload(stdin: Any) -> Payload:
    return Payload(read_object(stdin, PAYLOAD_MAX_BYTES))


def _record(
    home: Home | None, session_id: str | None, events: list[SessionEvent], stderr: TextIO
) -> None:
    if not events or session_id is None:
        return
    try:
        home = home or Home.open(create=True)
        if home is not None:
            append_events(home, SESSIONS_DIR, session_id, events)
    except (AbcdError, OSError) as err:
        _say(stderr, f"session ledger not written: {err}")


# --- session-start and pre-compact ---------------------------------------------


def reset(event: str, payload: Payload, stderr: TextIO) -> None:
    """Start the session's ledger over; at session start also prepare the fill folder and sweep."""
    if payload.session_id is None:
        return
    home = Home.open(create=True)
    assert home is not None
    with home:
        events: list[SessionEvent] = []
        if event == "session-start":
            # A resumed session still carries every earlier turn, recalled items included, so its
            # ledger stands; a new, cleared or compacted session starts over (docs/decisions.md).
            if payload.source not in RESUMED_SOURCES:
                events.append(SessionReset(reason=f"session-start:{payload.source}"))
            repo = find_repo(payload.cwd)
            # Git is not asked in a repository another account owns (the prompt hook refuses
            # such a checkout too): a `safe.directory = *` of the person's would let it answer.
            if repo is not None and foreign_repository(repo.top) is None:
                try:
                    events.append(RepoSeen(top=str(repo.top), root=repo.root_commit))
                except AbcdError as err:
                    _say(stderr, str(err))
            from abcd.session.fill import ensure_fill_folder

            ensure_fill_folder(home)
            try:  # a folder the sweep refuses (another account's) does not stop the reset
                sweep_stale(home)
            except (AbcdError, OSError) as err:
                _say(stderr, f"stale files not swept: {err}")
            _refresh_index(home, stderr)
        else:
            events.append(SessionReset(reason="pre-compact"))
        if events and isinstance(events[0], SessionReset):
            before, _ = _ledger(home, payload.session_id)
            known = {e.top for e in events if isinstance(e, RepoSeen)}
            events += [
                e for e in _outliving(before) if not (isinstance(e, RepoSeen) and e.top in known)
            ]
        _record(home, payload.session_id, events, stderr)


def _refresh_index(home: Home, stderr: TextIO) -> None:
    """Rebuild the recall index if it cannot be used (an upgrade changed the term rule, it is
    missing, or it is not the one the view names): once per session start, so prompts never fall
    back to folding every note. Whole, never patched: an index changed by hand is not kept."""
    from abcd.recall.index import rebuild_index, usable_index_seq

    folded_to = usable_index_seq(home)
    if folded_to is not None:
        _compact_if_trailing(home, folded_to, stderr)
        return
    from abcd.journal import store

    try:  # never waits: a writer holding the lock (a long import, a stopped process) is said
        store.refresh(home.path, projections=(rebuild_index,), wait=False)
    except AbcdError as err:
        _say(stderr, f"recall index not rebuilt: {err}; prompts fold the view meanwhile")


def _compact_if_trailing(home: Home, folded_to: int, stderr: TextIO) -> None:
    """Ask for a compaction, off this path, when the index trails the journal's end by
    `COMPACT_AFTER` events or more. A writer asks only as its append carries the trail across a
    multiple of it, so a compaction that died (killed, a full disk) after a large import left
    every prompt folding the lines past the index until writers crossed the next multiple
    (seventeenth round of performance.md: 10,000 events past it, ~390 ms a prompt)."""
    from abcd.journal.head import COMPACT_AFTER, read_head

    head = read_head(home)
    if head is None:  # a new home, or one a writer of the whole view keeps: nothing trails
        return
    if head.checkpoint[2] - folded_to < COMPACT_AFTER:  # `folded_to`: the index's seq
        return
    from abcd.journal.compact import start_compaction

    warnings: list[str] = []
    start_compaction(home, warnings)
    for warning in warnings:
        _say(stderr, warning)


# --- prompt-router ---------------------------------------------------------------


def _outliving(ledger: Ledger) -> list[SessionEvent]:
    """What a reset must not forget: the roots the session saw, and that the unknown fill was said."""
    events: list[SessionEvent] = [
        RepoSeen(top=top, root=root) for top, root in ledger.roots.items()
    ]
    if ledger.unknown_said:
        events.append(FillUnknownSaid())
    return events


def _ledger(
    home: Home | None, session_id: str | None, problems: list[str] | None = None
) -> tuple[Ledger, list[SessionRecord]]:
    if home is None or session_id is None:
        return Ledger(), []
    records = read_events_since_reset(home, SESSIONS_DIR, session_id, problems)
    return fold(records), records


def route(payload: Payload, stderr: TextIO) -> Outcome:
    """Recall for one prompt and record what was sent; raises only what the caller reports."""
    try:
        home = Home.open()
    except (
        AbcdError
    ) as err:  # a refused home: the repository's rules, notes and pages still come back
        _say(stderr, f"machine home refused, recalling from the repository only: {err}")
        return _route(payload, None, stderr)
    try:
        return _route(payload, home, stderr)
    finally:
        if home is not None:
            home.close()


def _route(payload: Payload, home: Home | None, stderr: TextIO) -> Outcome:
    from abcd.bundle import settle
    from abcd.recall.budget import context_limit
    from abcd.recall.engine import recall
    from abcd.recall.stemcache import CacheDamaged, StemCache
    from abcd.session.brackets import bracket_for
    from abcd.session.fill import current_fill
    from abcd.terminal import escaped  # noqa: F401 - every prompt's stderr line (`_say`) needs it

    settle()  # every prompt loads these: the next ones have them run ahead (`abcd.bundle`)

    skipped: list[str] = []
    try:
        ledger, records = _ledger(home, payload.session_id, skipped)
        for problem in skipped:
            _say(stderr, f"session ledger: {problem}")
    except AbcdError as err:
        _say(stderr, f"session ledger unreadable, recalling as if fresh: {err}")
        ledger, records = Ledger(), []
    events: list[SessionEvent] = [PromptSeen()]
    if ledger.prompts + 1 >= BACKSTOP_EVERY_PROMPTS:
        events.append(SessionReset(reason="backstop"))
        events += _outliving(ledger)
        roots, said = ledger.roots, ledger.unknown_said
        ledger = Ledger()
        ledger.roots.update(roots)
        ledger.unknown_said = said
    fill = current_fill(home, payload.session_id, payload.transcript_path, session_records=records)
    if fill.problem:
        _say(stderr, fill.problem)
    limit = context_limit(os.environ)
    if limit.problem:
        _say(stderr, limit.problem)
    repo = find_repo(payload.cwd)
    # One set of caches for each checkout, and one for the prompts outside any (machine pages).
    stems = StemCache(home, repo.top if repo is not None else "") if home is not None else None

    def recalled() -> Outcome:
        return recall(
            payload.prompt,
            home=home,
            repo=repo,
            bracket=bracket_for(fill),
            ledger=ledger,
            stems=stems,
            limit=limit.chars,
        )

    try:
        try:
            outcome = recalled()
        except CacheDamaged as err:  # a kept body did not read back: every file parsed again
            _say(stderr, f"recall cache: {err}; the files it kept are read again")
            assert stems is not None  # only the cache raises it
            stems.forget_files()
            outcome = recalled()
        if stems is not None:
            stems.save()
    finally:
        if stems is not None:
            stems.close()
    rules = outcome.rules
    active = {d.name for d in rules.domains if d.state == "active"} if rules is not None else set()
    active |= {c.match.domain.name for c in outcome.domains}
    events += [DomainForgotten(name=name) for name in ledger.domains if name not in active]
    if outcome.injected or outcome.recalled:  # how full the window was for these sends (issue 14)
        events.append(FillUsed(percent=fill.used_percentage, source=fill.source))
    events += [
        DomainInjected(
            name=c.match.domain.name,
            signature=c.match.domain.signature(),
            form="short" if c.form == "short" else "full",
        )
        for c in outcome.injected
    ]
    events += [
        ItemRecalled(
            key=c.item.key,
            signature=c.item.signature(),
            form="line" if c.form == "line" else "full",
        )
        for c in outcome.recalled
    ]
    if fill.source == "unknown" and not ledger.unknown_said and payload.session_id is not None:
        _say(
            stderr,
            "fill unknown (no status line reading, no transcript): notes and pages come back as one line each",
        )
        events.append(FillUnknownSaid())
    _record(home, payload.session_id, events, stderr)
    return outcome


def summary_line(outcome: Outcome) -> str | None:
    """`recalled 2 note(s) [mem-... (project), mem-... (personal)]`, pages and rules likewise, and
    what the host's limit kept out (not recorded as sent, so it comes back on a later prompt);
    under the kill switch, the switch and the file(s) that set it."""
    from abcd.recall.items import LAYER_WORDS
    from abcd.rules.loader import kill_switch

    # Said: a silence with no word looks like a prompt that matched nothing.
    if outcome.rules is not None and outcome.rules.disabled:
        return kill_switch(outcome.rules.disabled_by)
    parts = []
    notes = [c for c in outcome.recalled if c.item.kind == "note"]
    pages = [c for c in outcome.recalled if c.item.kind == "page"]
    if notes:
        parts.append(
            f"recalled {len(notes)} note(s) [{', '.join(f'{c.item.key} ({LAYER_WORDS[c.item.layer]})' for c in notes)}]"
        )
    if pages:
        parts.append(
            f"recalled {len(pages)} page(s) [{', '.join(f'{c.item.key} ({LAYER_WORDS[c.item.layer]})' for c in pages)}]"
        )
    if outcome.injected:
        parts.append(f"rules [{', '.join(c.match.domain.name for c in outcome.injected)}]")
    too_large = [c.item.key for c in outcome.too_large]
    if too_large:
        parts.append(f"set aside as too large [{', '.join(too_large)}]")
    left_out = [c.match.domain.name for c in outcome.left_out]
    if left_out:
        parts.append(f"rules left out [{', '.join(left_out)}]")
    missed, below = outcome.did_not_fit(DID_NOT_FIT_NAMED)
    if missed:
        named = ", ".join(f"{c.item.key} ({LAYER_WORDS[c.item.layer]})" for c in missed)
        more = f" and {below} more candidate(s) below them" if below else ""
        parts.append(f"did not fit, not sent [{named}]{more}")
    if left_out or missed:
        parts.append(f"within the host's {outcome.limit} characters")
    return "; ".join(parts) if parts else None


def envelope(outcome: Outcome) -> dict[str, Any]:
    fill = outcome.bracket.fill
    return {
        "text": outcome.text,
        "injected": [c.match.domain.name for c in outcome.injected],
        "recalled": [
            {"key": c.item.key, "layer": c.item.layer, "form": c.form} for c in outcome.recalled
        ],
        "fill": {"used_percentage": fill.used_percentage, "source": fill.source},
        "bracket": outcome.bracket.name,
    }


def main(argv: list[str], stdin: Any, stdout: TextIO, stderr: TextIO) -> int:
    """`abcd hook EVENT [--json]`; always exit 0 so the prompt is never blocked."""
    event = argv[0] if argv else ""
    as_json = "--json" in argv[1:]
    if event not in ("prompt-router", "session-start", "pre-compact"):
        _say(  # (`pre-tool-use` is `abcd.host.pretool`'s, dispatched before this: `abcd.entry`)
            stderr,
            f"unknown hook {event!r} "
            "(expected prompt-router, session-start, pre-compact or pre-tool-use)",
        )
        return 0
    try:
        payload = read_payload(stdin)
        if payload.problems:
            _say(stderr, "hook payload: " + "; ".join(payload.problems))
        if event != "prompt-router":
            reset(event, payload, stderr)
            return 0
        with route(payload, stderr) as outcome:
            for problem in outcome.problems:
                _say(stderr, problem.message)
            line = summary_line(outcome)
            if line:
                _say(stderr, line)
            if as_json:
                stdout.write(fastjson.dumps(envelope(outcome), ensure_ascii=False) + "\n")
            elif outcome.text:
                stdout.write(outcome.text + "\n")
    except AbcdError as err:  # a bad payload, a refused home: the message names it
        _say(stderr, str(err))
    except Exception as err:  # the hook never blocks a prompt: one line, exit 0
        _say(stderr, f"hook {event} failed: {type(err).__name__}: {err}")
    return 0

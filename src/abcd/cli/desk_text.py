"""The review desk's text for a terminal: a note's story (`memory show`), the text a keep
keeps (`memory keep`), what a promotion will write (`memory promote`) and what a restore
brings back (`memory restore`). Every line passes
through `abcd.terminal.escaped`.
"""

from __future__ import annotations

import os

from abcd.journal.view import Note
from abcd.notes import listing
from abcd.notes.desk import HistoryEntry, Removal, Story
from abcd.notes.provenance import Send
from abcd.repo import PROJECT_MEMORY_REL, Repo
from abcd.terminal import escaped
from abcd.trust.guarded import shown


def _text(title: str, body: str, recall: tuple[str, ...], indent: str) -> list[str]:
    lines = [f"{indent}title: {title}", f"{indent}recall: {', '.join(recall)}"]
    lines += [f"{indent}| {line}" for line in body.splitlines()]
    return lines


def _session(session: str | None) -> str:
    return f"session {session}" if session else "session unknown"


def _history(entry: HistoryEntry) -> list[str]:
    head = f"  {entry.seq:>6}  {entry.at}  {entry.type}  by {entry.by}, {_session(entry.session)}"
    if entry.title is not None and entry.body is not None and entry.recall is not None:
        return [
            f"{head}, revision {entry.revision}",
            *_text(entry.title, entry.body, entry.recall, "          "),
        ]
    return [f"{head}: {entry.detail}" if entry.detail else head]


def _send(send: Send) -> str:
    fill = f"{send.percent:.0f}% full ({send.fill})" if send.percent is not None else send.fill
    if send.percent is None and send.fill == "unknown":
        fill = "fill unknown"
    text = f"  {send.text}" if send.text is not None else ""
    return f"  {send.at}  {send.shown_session}  {send.form}  window {fill}{text}"


def story_lines(story: Story) -> list[str]:
    lines: list[str] = []
    note = story.note
    if note is not None:
        lines.append(f"{note.id}  {note.title}")
        where = story.reach if story.reach == listing.EVERYWHERE else f"in {story.reach}"
        lines.append(f"  personal note, recalled {where}")
        lines.append(
            f"  written by {note.written_by} at {note.written_at}, {_session(note.session)}, "
            f"origin {note.origin}"
        )
        lines += _revised(note)
        if note.reviewed:
            lines.append(f"  kept by {note.reviewed_by} at {note.reviewed_at}")
        elif note.awaits_review:
            lines.append("  not reviewed as it stands")
        if note.promoted_at:  # a promotion as of the text now reviews it (out of the queue)
            lines.append(
                f"  promoted by {note.promoted_by} at {note.promoted_at}"
                + ("" if note.reviewed or note.awaits_review else ": reviewed as it stands")
            )
        lines += _text(note.title, note.body, note.recall, "  ")
    elif story.removal is not None:
        lines += _as_removed(story.removal)
    elif story.removed:
        lines.append(f"{story.id}  removed (its history follows)")
    if story.project is not None:
        p = story.project
        lines.append(f"{p.id}  {p.title}")
        lines.append(f"  project note, in {PROJECT_MEMORY_REL}: recalled in this repository")
        lines.append(
            f"  written by {p.written_by or 'writer unknown'} at {p.written_at or 'time unknown'}"
            f", {_session(p.session)}, origin {p.origin or 'unknown'} (as the file says)"
        )
        stamp = p.revision_stamp()
        if stamp is not None:
            lines.append(f"  its text is revision {stamp[0]}, by {stamp[1]} at {stamp[2]}")
        changed = story.promoted_then_changed()
        if changed is not None:
            lines.append(
                f"  its text is not the one promoted from this home (revision {changed}): "
                f"git log -p -- {PROJECT_MEMORY_REL} says who changed it"
            )
        if note is not None:
            lines.append("  (it suppresses the personal note of the same id in recall)")
        lines += _text(p.title, p.body, p.recall, "  ")
    lines.append("")
    lines.append(f"history ({len(story.history)} event(s), oldest first):")
    for entry in story.history:
        lines += _history(entry)
    lines.append("")
    lines.append(f"sent ({len(story.sent)} time(s), ledgers of the last 7 days):")
    lines += [_send(s) for s in story.sent] or [
        "  none in the ledgers on disk (each is swept 7 days after its session's last prompt: "
        "an older send is not shown)"
    ]
    # A note's text reaches a terminal here: its control characters are shown escaped.
    return [escaped(line, keep="\t") for line in lines]


def keep_lines(note: Note) -> list[str]:
    """What `memory keep` shows before it asks: the text that will be kept, and whose it is."""
    lines = [
        f"Keep {note.id} as it stands (revision {note.revision})?",
        "It leaves the review queue; a later revision puts it back.",
        f"  written by {note.written_by} at {note.written_at}, {_session(note.session)}",
    ]
    lines += _revised(note)
    lines += _text(note.title, note.body, note.recall, "  ")
    return [escaped(line, keep="\t") for line in lines]


def restore_lines(removal: Removal) -> list[str]:
    """What `memory restore` shows before it asks: the note as it stood when it was removed."""
    note = removal.note
    lines = [
        f"Restore {note.id} as it stood when it was removed at seq {removal.seq} "
        f"(revision {note.revision})?",
        "It is recalled again, with the stamps it had; the journal keeps the removal.",
        f"  written by {note.written_by} at {note.written_at}, {_session(note.session)}",
        *_revised(note),
        *([f"  kept by {note.reviewed_by} at {note.reviewed_at}"] if note.reviewed else []),
        *(["  not reviewed as it stood"] if note.awaits_review else []),
        *_promoted(note),
        *_text(note.title, note.body, note.recall, "  "),
    ]
    return [escaped(line, keep="\t") for line in lines]


def removed_lines(removals: list[Removal]) -> list[str]:
    """What `memory removed` prints: each removed note as it stood, who removed it, and how to
    bring it back (or the live note that holds its text now)."""
    lines: list[str] = [] if removals else ["no removed notes"]
    for removal in removals:
        lines += [*_as_removed(removal), ""]
    return [escaped(line, keep="\t") for line in lines]


def _as_removed(removal: Removal) -> list[str]:
    """A removed note as it stood, who removed it, and how to bring it back (or the live note
    that holds its text now)."""
    note = removal.note
    return [
        f"{note.id}  {note.title}",
        f"  removed by {removal.by} at {removal.at} (seq {removal.seq}), "
        f"{_session(removal.session)}",
        f"  written by {note.written_by} at {note.written_at}, {_session(note.session)}, "
        f"origin {note.origin}",
        *_revised(note),
        *([f"  kept by {note.reviewed_by} at {note.reviewed_at}"] if note.reviewed else []),
        *_promoted(note),
        *_text(note.title, note.body, note.recall, "  ")[1:],
        f"  bring it back: abcd memory restore {note.id}"
        if removal.twin is None
        else f"  its text is live again as {removal.twin}: nothing to bring back",
    ]


def _promoted(note: Note) -> list[str]:
    """The promotion line of a removed note as it stood: a promotion as of its text reviewed it,
    so a restore that said only "not reviewed" would hide that it was promoted."""
    if not note.promoted_at:
        return []
    reviewed = "" if note.reviewed or note.awaits_review else ": reviewed as it stood"
    return [f"  promoted by {note.promoted_by} at {note.promoted_at}{reviewed}"]


def _revised(note: Note) -> list[str]:
    """The line saying which revision the note's text is, and whose; none for a note as added."""
    if not note.revision:
        return []
    return [f"  revision {note.revision}, by {note.revised_by} at {note.revised_at}"]


def promotion_lines(note: Note, repo: Repo | None) -> list[str]:
    target = shown(os.path.join(repo.top, PROJECT_MEMORY_REL)) if repo else PROJECT_MEMORY_REL
    lines = [
        f"Promote {note.id} into {target}?",
        "Every teammate's agents will be sent it once you commit the change.",
        f"  written by {note.written_by} at {note.written_at}, {_session(note.session)}",
        *_text(note.title, note.body, note.recall, "  "),
    ]
    return [escaped(line, keep="\t") for line in lines]

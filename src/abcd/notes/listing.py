"""What a reviewer sees: every note in both layers with its stamps and its reach, and the counts.

A layer that cannot be read is named with the reason, and the other layer
is still shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from abcd.errors import AbcdError
from abcd.journal.store import load
from abcd.journal.view import Note
from abcd.notes.places import places
from abcd.notes.project import ProjectNote, read_project_notes
from abcd.repo import Repo
from abcd.terminal import escaped
from abcd.trust import Home
from abcd.trust.guarded import locate_home, shown

THIS_REPOSITORY = "this repository"
EVERYWHERE = "everywhere"
ANOTHER_REPOSITORY = "another repository"
PROJECT = "project file"


@dataclass
class Listed:
    entries: list[dict[str, Any]] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)
    # Root commit -> the folder it was last seen in (`abcd.notes.places`), for the text only.
    places: dict[str, str] = field(default_factory=dict)
    # The ids of the personal notes this checkout's project note of the same id replaces, each
    # with whether the two texts differ; kept whatever a filter leaves of `entries`.
    shadowed: dict[str, bool] = field(default_factory=dict)
    # The home's path, shown, when it does not exist (nothing was ever written there), for the text.
    no_home: str | None = None
    # The layers that could not be read (their notes are missing from `entries`, not none).
    unread_layers: set[str] = field(default_factory=set)
    # The personal notes tied to this repository, promoted, that its project file no longer holds
    # (a teammate removed the copy): for the text only.
    promoted_gone: set[str] = field(default_factory=set)


def _machine_notes(listed: Listed) -> tuple[Note, ...]:
    try:
        home = Home.open()
        if home is None:
            listed.no_home = shown(locate_home())
            return ()
        with home:
            return load(home).view.notes
    except AbcdError as err:
        listed.unreadable.append(f"personal notes unreadable: {err}")
        listed.unread_layers.add("machine")
        return ()


def _project_notes(repo: Repo | None, listed: Listed) -> tuple[ProjectNote, ...]:
    try:
        return read_project_notes(repo)
    except AbcdError as err:
        listed.unreadable.append(f"project notes unreadable: {err}")
        listed.unread_layers.add("project")
        return ()


def _root_or_none(repo: Repo) -> str | None:
    try:
        return repo.root_commit
    except AbcdError:
        return None  # git cannot be run: no note can be shown as this repository's


def reach(note: Note, repo: Repo | None) -> str:
    if note.root is None:
        return EVERYWHERE
    if repo is not None and _root_or_none(repo) == note.root:
        return THIS_REPOSITORY
    return ANOTHER_REPOSITORY


def machine_entry(note: Note, repo: Repo | None) -> dict[str, Any]:
    """A personal note as `memory list --json` gives it: every field, stamps null until set."""
    return note_entry(note, reach(note, repo))


def note_entry(note: Note, where: str) -> dict[str, Any]:
    """A personal note recalled `where`, as `memory list --json` and `memory show --json` give
    it: every field, stamps null until set."""
    return {
        "id": note.id,
        "title": note.title,
        "body": note.body,
        "recall": list(note.recall),
        "root": note.root,
        "origin": note.origin,
        "written_by": note.written_by,
        "written_at": note.written_at,
        "session": note.session,
        "layer": "machine",
        "reach": where,
        # The review stamps (issue 14): null until a person revised, kept or promoted it.
        "revision": note.revision,
        "revised_by": note.revised_by,
        "revised_at": note.revised_at,
        "reviewed_by": note.reviewed_by,
        "reviewed_at": note.reviewed_at,
        "promoted_by": note.promoted_by,
        "promoted_at": note.promoted_at,
        # Out of the review queue: a person kept it, or promoted it, as its text stands.
        "reviewed": not note.awaits_review,
    }


def list_notes(repo: Repo | None) -> Listed:
    listed = Listed(places=places())
    try:
        if repo is not None:
            repo.root_commit  # noqa: B018  (asked once here, so its failure is said, not guessed)
    except AbcdError as err:
        listed.unreadable.append(
            f"this repository's root commit is unknown, so its notes are shown as another's: {err}"
        )
    listed.entries = [machine_entry(note, repo) for note in _machine_notes(listed)]
    listed.entries += [project_entry(pnote) for pnote in _project_notes(repo, listed)]
    project = {e["id"]: e for e in listed.entries if e["layer"] == "project"}
    for entry in listed.entries:
        if entry["layer"] == "machine":
            # Recall sends the checkout's project note in its place here (narrower scope wins).
            twin = project.get(entry["id"])
            here = entry["reach"] in (THIS_REPOSITORY, EVERYWHERE)
            entry["shadowed_by_project"] = twin is not None and here
            if twin is not None and here:
                keys = ("title", "body", "recall")
                listed.shadowed[entry["id"]] = any(twin[k] != entry[k] for k in keys)
            elif (
                twin is None
                and entry["promoted_at"]
                and entry["reach"] == THIS_REPOSITORY
                and "project" not in listed.unread_layers
            ):
                listed.promoted_gone.add(entry["id"])
    return listed


def project_entry(pnote: ProjectNote) -> dict[str, Any]:
    """A project note as `memory list --json` and `memory show --json` give it."""
    return {
        "id": pnote.id,
        "title": pnote.title,
        "body": pnote.body,
        "recall": list(pnote.recall),
        "origin": pnote.origin,
        "written_by": pnote.written_by,
        "written_at": pnote.written_at,
        "session": pnote.session,
        "layer": "project",
        "reach": PROJECT,
        **_revision_fields(pnote),
    }


def _revision_fields(pnote: ProjectNote) -> dict[str, Any]:
    """A project note's revision stamp as the listing shows it (zero and nulls without one)."""
    stamp = pnote.revision_stamp()
    number, by, at = stamp if stamp is not None else (0, None, None)
    return {"revision": number, "revised_by": by, "revised_at": at}


def _stamps_line(entry: dict[str, Any]) -> str | None:
    """A note's review stamps in one line (`memory show` has them with its history), or `None`
    for a note never revised, kept or promoted. A project note has its revision's only."""
    parts = []
    if entry["revision"]:
        parts.append(
            f"revision {entry['revision']} by {entry['revised_by']} at {entry['revised_at']}"
        )
    if entry["layer"] == "machine":
        if entry["reviewed_at"]:
            parts.append(f"kept by {entry['reviewed_by']} at {entry['reviewed_at']}")
        elif entry["revision"] or entry["promoted_at"]:
            parts.append("not kept as it stands")
        if entry["promoted_at"]:
            parts.append(f"promoted by {entry['promoted_by']} at {entry['promoted_at']}")
    return "  " + "; ".join(parts) if parts else None


def _shadowed(entry: dict[str, Any], shadowed: dict[str, bool]) -> str:
    """What the listing adds to a personal note the checkout's project note of the same id
    suppresses here (recall sends the project's copy), else nothing."""
    if entry["id"] not in shadowed:
        return ""
    return "; in this checkout the project note of the same id is recalled in its place" + (
        " (its text differs: .abcd/memory.json holds what is sent here)"
        if shadowed[entry["id"]]
        else ""
    )


def render(listed: Listed) -> list[str]:
    lines: list[str] = []
    if not listed.entries:
        # A mistyped or unset ABCD_HOME reads as an empty memory: say which folder was read.
        lines.append(
            f"no notes (no home at {listed.no_home}: nothing was ever written there; "
            "ABCD_HOME names the home when it is set)"
            if listed.no_home is not None
            else "no notes"
        )
    for entry in listed.entries:
        session = f"session {entry['session']}" if entry["session"] else "session unknown"
        by = entry["written_by"] or "writer unknown"
        at = entry["written_at"] or "time unknown"
        where = entry["reach"]
        if entry["layer"] == "machine" and where == ANOTHER_REPOSITORY:
            folder = listed.places.get(entry["root"])
            where += (
                f" ({folder}, root {entry['root'][:12]})"
                if folder
                else (f" (root {entry['root'][:12]}; no note was written from it on this machine)")
            )
        lines.append(f"{entry['id']}  {entry['title']}")
        if entry["layer"] == "project":
            lines.append("  project note, in .abcd/memory.json: recalled in this repository")
        else:
            lines.append(
                f"  personal note, recalled {where if where == EVERYWHERE else 'in ' + where}"
                + _shadowed(entry, listed.shadowed)
            )
        lines.append(f"  recall: {', '.join(entry['recall'])}")
        origin = entry["origin"] or "unknown"  # a project note written by hand may have none
        lines.append(f"  written by {by} at {at}, {session}, origin {origin}")
        stamps = _stamps_line(entry)
        if stamps is not None:
            if entry["id"] in listed.promoted_gone:
                stamps += (
                    "; .abcd/memory.json here no longer holds it (git log says who removed it)"
                )
            lines.append(stamps)
        lines.extend(f"  | {body_line}" for body_line in entry["body"].splitlines())
        lines.append("")
    # A note's text reaches a terminal here: its control characters are shown escaped.
    return [escaped(line, keep="\t") for line in lines]


@dataclass(frozen=True)
class Counts:
    this_repository: int
    everywhere: int
    other_repositories: int
    project: int
    in_repository: bool
    unreadable: tuple[str, ...]
    unread_layers: frozenset[str] = frozenset()


def summarize(repo: Repo | None) -> Counts:
    listed = list_notes(repo)
    by_reach = {THIS_REPOSITORY: 0, EVERYWHERE: 0, ANOTHER_REPOSITORY: 0, PROJECT: 0}
    for entry in listed.entries:
        by_reach[entry["reach"]] += 1
    return Counts(
        this_repository=by_reach[THIS_REPOSITORY],
        everywhere=by_reach[EVERYWHERE],
        other_repositories=by_reach[ANOTHER_REPOSITORY],
        project=by_reach[PROJECT],
        in_repository=repo is not None,
        unreadable=tuple(listed.unreadable),
        unread_layers=frozenset(listed.unread_layers),
    )


def summary_json(counts: Counts) -> dict[str, object]:
    """The counts for `abcd memory --json`; `null` where there is no repository to count for."""
    return {
        "personal_notes": {
            "this_repository": counts.this_repository if counts.in_repository else None,
            "everywhere": counts.everywhere,
            "other_repositories": counts.other_repositories,
        },
        "project_notes": counts.project if counts.in_repository else None,
        "unreadable": list(counts.unreadable),
    }


def summary_lines(counts: Counts) -> list[str]:
    """The counts as text; a layer that could not be read is said so, never counted as none (a
    file left mid-merge read "project notes: 0" above the line saying why)."""

    def count(layer: str, number: int) -> str:
        return "unreadable" if layer in counts.unread_layers else str(number)

    lines = []
    if counts.in_repository:
        lines.append(
            f"personal notes for this repository: {count('machine', counts.this_repository)}"
        )
    lines.append(f"personal notes everywhere: {count('machine', counts.everywhere)}")
    lines.append(
        f"personal notes for other repositories: {count('machine', counts.other_repositories)}"
    )
    if counts.in_repository:
        lines.append(f"project notes (.abcd/memory.json): {count('project', counts.project)}")
    else:
        lines.append("project notes: none (not in a git repository)")
    return lines

"""The desk's pages and actions: each reads or acts through the core, and renders a template.

Pages: the queue (`/`), every note with a search (`/notes`), a note
(`/notes/ID`), a confirmation before a promote, a remove or a restore
(`/notes/ID/promote`, `/notes/ID/remove`, `/notes/ID/restore`), and the
journal's timeline with its replay (`/journal`). Actions are POSTs to
`/notes/ID/{keep,revise,remove,promote,restore}`, answered by a redirect to the page
that shows the result (`?done=...` names one of the fixed messages in
`DONE`, never text from the request). A refusal from the core (the gate, an
unknown id, a broken journal) is shown on the page it came from, with what the
person typed kept in the form.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup, escape

from abcd.errors import AbcdError, UsageError
from abcd.repo import Repo
from abcd.terminal import escaped
from abcd.web import reading
from abcd.web.guard import TOKEN_FIELD
from abcd.web.server import Request, Response, redirect

# What a redirect after an action may say; `?done=` picks one by its key.
DONE = {
    "kept": "Kept: the note is marked reviewed as of its current text.",
    "revised": "Revised: the note keeps its id; its earlier text stays in its history.",
    "promoted": "Promoted: the note is written into this checkout's .abcd/memory.json "
    "as a working-tree change. Review it with git diff and commit it yourself.",
    "removed": "Removed: the note is out of the view; its history stays in the journal.",
    "restored": "Restored: the note is back as it stood when it was removed, and is recalled "
    "again; the removal stays in its history.",
}
_NOTE_PATH = re.compile(r"^/notes/(?P<id>[A-Za-z0-9_-]{1,80})(?:/(?P<act>[a-z]+))?$")
NOT_FOUND = "no such page"
# The journal page's query: the replay's point (a seq, or a time) and the two filters.
JOURNAL_QUERY = ("seq", "at", "by", "session")
# The notes page's search: `abcd memory list`'s filters.
NOTES_QUERY = ("search", "by", "since", "unreviewed")


@dataclass
class Desk:
    """What every page needs: the checkout the desk was started in, the run's token and folder
    (`root`, which every path a page names starts with), templates."""

    repo: Repo | None
    token: str
    root: str
    env: Environment

    def render(self, name: str, status: int = HTTPStatus.OK, **context: Any) -> Response:
        context.setdefault("done", None)
        context.setdefault("problem", None)
        page = self.env.get_template(name).render(
            token=self.token,
            token_field=TOKEN_FIELD,
            root=self.root,
            checkout=self.repo.top if self.repo is not None else None,
            **context,
        )
        return Response(status, page.encode())

    def route(self, request: Request) -> Response:
        try:
            return self._route(request)
        except AbcdError as err:
            # A broken journal or an unreadable home: named on a page of its own.
            return self.render("problem.html", HTTPStatus.CONFLICT, problem=str(err))

    def _route(self, request: Request) -> Response:
        if request.method == "GET":
            if request.path == "/":
                return self.queue(request)
            if request.path == "/journal":
                return self.journal(request)
            if request.path == "/notes":
                return self.notes(request)
        match = _NOTE_PATH.match(request.path)
        if match is not None:
            note_id, act = match["id"], match["act"]
            if request.method == "GET":
                if act is None:
                    return self.note(note_id, request)
                if act in CONFIRMED:
                    return self.confirm(note_id, act)
            elif act in ACTIONS:
                return ACTIONS[act](self, note_id, request)
        return self.render("problem.html", HTTPStatus.NOT_FOUND, problem=NOT_FOUND)

    # Pages.

    def queue(self, request: Request) -> Response:
        return self.render(
            "queue.html",
            queue=reading.queue(self.repo),
            done=DONE.get(request.query.get("done", "")),
        )

    def notes(self, request: Request) -> Response:
        asked = {key: request.query.get(key, "").strip() for key in NOTES_QUERY}
        try:
            found = reading.find(self.repo, asked)
        except UsageError as err:  # a time that is not one: said, and every note shown
            found = reading.find(self.repo, {**asked, "since": ""})
            return self.render("notes.html", HTTPStatus.BAD_REQUEST, found=found, problem=str(err))
        return self.render("notes.html", found=found)

    def note(
        self,
        note_id: str,
        request: Request,
        *,
        problem: str | None = None,
        draft: dict[str, str] | None = None,
        status: int = HTTPStatus.OK,
    ) -> Response:
        story = reading.story(note_id, self.repo)
        if story is None:
            return self.render("problem.html", HTTPStatus.NOT_FOUND, problem=f"no note {note_id}")
        return self.render(
            "note.html",
            status,
            story=story,
            draft=draft or reading.draft_of(story),
            problem=problem,
            done=DONE.get(request.query.get("done", "")),
        )

    def confirm(self, note_id: str, act: str, problem: str | None = None) -> Response:
        story = reading.story(note_id, self.repo)
        if story is None:
            return self.render("problem.html", HTTPStatus.NOT_FOUND, problem=f"no note {note_id}")
        checks = {"restore": reading.check_restore, "promote": reading.check_promote}
        if act in checks and problem is None:
            try:  # the gate's refusal, or why there is nothing to do, before any tick
                checks[act](note_id, self.repo)
            except AbcdError as err:
                problem = str(err)
        status = HTTPStatus.OK if problem is None else HTTPStatus.CONFLICT
        return self.render("confirm.html", status, story=story, act=act, problem=problem)

    def journal(self, request: Request) -> Response:
        asked = {key: request.query.get(key, "").strip() or None for key in JOURNAL_QUERY}
        try:
            timeline = reading.timeline(**asked)
        except UsageError as err:  # a time or seq that is not one: said, and the journal now
            asked["at"] = asked["seq"] = None
            timeline = reading.timeline(**asked)
            return self.render(
                "journal.html", HTTPStatus.BAD_REQUEST, timeline=timeline, problem=str(err)
            )
        return self.render("journal.html", timeline=timeline)

    # Actions: each a person's act, through the core.

    def keep(self, note_id: str, request: Request) -> Response:
        try:
            reading.keep(note_id, self.repo, request.form.get("seen", ""))
        except AbcdError as err:
            return self.note(note_id, request, problem=str(err), status=HTTPStatus.CONFLICT)
        return redirect(f"/notes/{note_id}?done=kept")

    def revise(self, note_id: str, request: Request) -> Response:
        draft = {key: request.form.get(key, "") for key in ("title", "body", "recall")}
        try:
            reading.revise(note_id, self.repo, draft, request.form.get("seen", ""))
        except AbcdError as err:
            return self.note(
                note_id, request, problem=str(err), draft=draft, status=HTTPStatus.CONFLICT
            )
        return redirect(f"/notes/{note_id}?done=revised")

    def promote(self, note_id: str, request: Request) -> Response:
        if request.form.get("confirm") != "yes":
            return self.confirm(note_id, "promote", "tick the box to confirm the promotion")
        try:
            reading.promote(note_id, self.repo, request.form.get("seen", ""))
        except AbcdError as err:
            return self.confirm(note_id, "promote", str(err))
        return redirect(f"/notes/{note_id}?done=promoted")

    def remove(self, note_id: str, request: Request) -> Response:
        if request.form.get("confirm") != "yes":
            return self.confirm(note_id, "remove", "tick the box to confirm the removal")
        try:
            reading.remove(note_id, self.repo, request.form.get("seen", ""))
        except AbcdError as err:
            return self.confirm(note_id, "remove", str(err))
        return redirect("/?done=removed")

    def restore(self, note_id: str, request: Request) -> Response:
        if request.form.get("confirm") != "yes":
            return self.confirm(note_id, "restore", "tick the box to confirm the restore")
        try:
            reading.restore(note_id, self.repo, request.form.get("seen", ""))
        except AbcdError as err:
            return self.confirm(note_id, "restore", str(err))
        return redirect(f"/notes/{note_id}?done=restored")


ACTIONS: dict[str, Callable[[Desk, str, Request], Response]] = {
    "keep": Desk.keep,
    "revise": Desk.revise,
    "promote": Desk.promote,
    "remove": Desk.remove,
    "restore": Desk.restore,
}
# The acts asked for on a page of their own, with a box to tick, before their POST.
CONFIRMED = ("promote", "remove", "restore")


_STAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z")


def when(value: str) -> Markup:
    """A journal time to the second (`2026-12-01 04:03:17`); the whole stamp on hover. Anything
    else (a project file's `written_at` is as a hand left it) is shown as every value is: markup
    skips the page's `shown`, so it is applied here."""
    if not _STAMP.fullmatch(value):
        return escape(escaped(value))
    return Markup('<time datetime="{0}" title="{0}">{1}</time>').format(
        value, value[:19].replace("T", " ")
    )


def shown(value: object) -> object:
    """Every text a page shows, with its control characters written as the commands write them
    (`\\x1b`, `\\u202e`; `abcd.terminal`), newlines and tabs kept: a title's bidi override
    reordered what the reviewer read, an escape byte was there and not seen. Then escaped for
    HTML, as every value is. What a form sends back is `verbatim`, so saving changes nothing."""
    return escaped(value) if type(value) is str else value


def verbatim(value: str) -> Markup:
    """A form field's value as the note holds it (HTML-escaped only): what is saved is what
    was there, control characters and all."""
    return escape(value)


def make_desk(repo: Repo | None, token: str, root: str) -> Desk:
    """The desk for `repo`, with templates that escape everything a note says."""
    env = Environment(
        loader=PackageLoader("abcd.web", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=shown,
    )
    env.globals["when"] = when
    env.filters["verbatim"] = verbatim
    return Desk(repo, token, root, env)

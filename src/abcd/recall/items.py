"""What recall can bring back: notes from both layers and pages from both scopes, as `Item`s.

- Project notes: `<repo>/.abcd/memory.json` (seed schema, no `root`), refused whole when the
  commands would refuse it (`parse_project_file`).
- Machine notes: the journal's view (`abcd.recall.machine`).
- Workspace pages: `<repo>/.abcd/memory/<type>_<domain>_<slug>.md`.
- Machine pages: `<home>/memory/<type>_<domain>_<slug>.md`, read through the trust layer.

A page opens with YAML frontmatter holding `recall:` (a list) and, usually,
`summary:`; its title is the summary, else its first `#` heading, else its
file name; its body is the rest; its recency (for ties) is its `updated:`
date, else its `date:`, else none: what the page says, the same in every
clone, never its file's modification time. Only these four places are ever
opened (SPEC P5); the repository's two through the checkout's guarded
layer (`abcd.trust.Checkout`), which refuses a checkout another account
owns. A layer or page that cannot be read is returned as a problem (a
value), never raised, so the other layers still come back.

On the hook's path: imports `os`, `stat`, `abcd.fastjson`, `abcd.digest`,
`abcd.journal.lean` (already the machine notes') and the lean trust layer only.
"""

from __future__ import annotations

import time

from abcd import fastjson
from abcd import leanos as os
from abcd.constants import VIEW_MAX_BYTES, VIEW_SCHEMA_PLAIN
from abcd.digest import sha256_hex
from abcd.errors import AbcdError, CorruptFile, TrustError
from abcd.journal.lean import (
    MAX_DEPTH,
    project_file_problem,
    project_file_too_deep,
    readable,
)
from abcd.leanos import S_ISREG
from abcd.recall.bm25f import Doc
from abcd.repo import PROJECT_MEMORY, PROJECT_MEMORY_REL, PROJECT_PAGES, PROJECT_PAGES_REL
from abcd.shapes import (
    is_one_line,
    project_note_problem,
    project_unparsed,
    project_version_problem,
    without_bom,
)
from abcd.trust.guarded import (
    CHECKOUT_WRITABLE,
    HOME_WRITABLE,
    Checkout,
    Home,
    check_owner_and_mode,
    open_at,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, Protocol, TypeGuard

    class ParsedFiles(Protocol):
        """Items parsed from a file at an earlier prompt, keyed by the file's stat (the stem cache)."""

        def parsed(self, rel: str, st: os.stat_result) -> Any | None: ...

        def keep(self, rel: str, st: os.stat_result, read_ns: int, parsed: Any) -> bool: ...

        def apart(self, text: str) -> int: ...

        def text(self, number: int) -> str: ...


# A page is a document a person keeps; bounded so that one stray file cannot fill the budget of a read.
PAGE_MAX_BYTES = 256 * 1024
MACHINE_PAGES_REL = "memory"
NARROW, WIDE = 0, 1  # scope ranks: the repository's items are narrower than the machine's

LABELS = {
    ("note", "project"): "(project note, in this repository)",
    ("note", "machine"): "(personal note, agent-written)",
    ("page", "workspace"): "(project page, in this repository)",
    ("page", "machine"): "(personal page, on this machine)",
}
# A personal note a person wrote (`--by person`) or moved from the host's memory files says so:
# "agent-written" would tell the model and the reviewer the wrong author.
ORIGIN_LABELS = {
    "person": "(personal note, written by a person)",
    "host-memory-move": "(personal note, moved from the host's memory)",
}
# The words every output uses for an item's layer (issue 15): the home's are personal, the
# repository's are the project's. `WHAT` names the item whole.
LAYER_WORDS = {"machine": "personal", "project": "project", "workspace": "project"}


def what(kind: str, layer: str) -> str:
    """`personal note`, `project note`, `personal page` or `project page`."""
    return f"{LAYER_WORDS.get(layer, layer)} {kind}"


class Item:
    """One note or page. `key` is the note id or `page:<file name>`."""

    __slots__ = (
        "_body",
        "_signature",
        "_texts",
        "key",
        "kind",
        "layer",
        "name",
        "origin",
        "recall",
        "recency",
        "root",
        "scope_rank",
        "stem_key",
        "title",
    )

    def __init__(
        self,
        *,
        kind: str,
        layer: str,
        name: str,
        title: str,
        body: str,
        recall: tuple[str, ...],
        root: str | None = None,
        recency: str = "",
        stem_key: str | None = None,
        origin: str = "agent",
        signature: str | None = None,
    ) -> None:
        self.kind = kind
        self.origin = origin
        self.layer = layer
        self.name = name
        self.key = name if kind == "note" else f"page:{name}"
        self.title = title
        # Or, kept in the stem cache, its number there until first asked for (`kept`).
        self._body: str | int = body
        self._texts: Callable[[int], str] | None = None
        self.recall = recall
        self.root = root
        self.recency = recency
        self.scope_rank = WIDE if layer == "machine" else NARROW
        # Set when the item came from a file the cache matched by stat, or was parsed from one the
        # cache keeps: it keys the item's stems there as well as its signature would, without
        # hashing its text, and the same at the prompt that parsed the file as at the ones after.
        self.stem_key = stem_key
        self._signature = signature  # kept with a parsed file's items, else worked out when asked

    @classmethod
    def kept(
        cls,
        kind: str,
        layer: str,
        name: str,
        key: str,
        title: str,
        number: int,
        recall: tuple[str, ...],
        recency: str,
        stem_key: str,
        signature: str,
        texts: Callable[[int], str],
    ) -> Item:
        """An item of a kept parse (`abcd.recall.stemcache`), its body the `number` `texts` reads
        when first asked for. Every slot set here, without `__init__`'s keywords: a prompt makes
        one for every kept note (10,000 of them at a third of the cost)."""
        item = cls.__new__(cls)
        item.kind, item.origin, item.layer, item.name, item.key = kind, "agent", layer, name, key
        item.title, item._body, item._texts, item.recall = title, number, texts, recall
        item.root, item.recency, item.stem_key, item._signature = None, recency, stem_key, signature
        item.scope_rank = WIDE if layer == "machine" else NARROW
        return item

    @property
    def body(self) -> str:
        """The text; an item kept in the stem cache reads it when first asked for (`CacheDamaged`
        when that does not check: `abcd.recall.stemcache`)."""
        body = self._body
        if isinstance(body, int):
            assert self._texts is not None  # set with the number (`kept`)
            body = self._body = self._texts(body)
        return body

    @property
    def label(self) -> str:
        if self.layer == "machine" and self.kind == "note" and self.origin in ORIGIN_LABELS:
            return ORIGIN_LABELS[self.origin]
        return LABELS[(self.kind, self.layer)]

    def doc(self) -> Doc:
        """The item as ranking reads it, through the term rule."""
        return Doc.of(
            self.key,
            recall=self.recall,
            title=self.title,
            body=self.body,
            scope_rank=self.scope_rank,
            recency=self.recency,
        )

    def signature(self) -> str:
        """A digest of the content and layer (not of the rendered form): the ledger's key.

        Worked out once: the take, the stem cache and the hook's record all ask for it.
        """
        if self._signature is None:
            self._signature = content_signature(
                self.kind, self.layer, self.title, self.body, self.recall
            )
        return self._signature

    def __repr__(self) -> str:
        return f"Item({self.key!r}, {self.layer!r})"


def content_signature(kind: str, layer: str, title: str, body: str, recall: Sequence[str]) -> str:
    """The digest of an item's content and layer that the ledger keys a send by: `Item.signature`,
    and what the desk matches a send against to say which of a note's texts it carried."""
    text = "\x1f".join((kind, layer, title, body, "\x1e".join(recall)))
    return sha256_hex(text.encode("utf-8"))[:32]


class Problem:
    """A layer or page that could not be read, and why (shown on stderr and in the diagnostic)."""

    __slots__ = ("kind", "message")

    def __init__(self, kind: str, message: str) -> None:
        self.kind = kind  # "note" or "page"
        self.message = message

    def __repr__(self) -> str:
        return f"Problem({self.kind!r}, {self.message!r})"


# --- project notes -------------------------------------------------------------


def _note_fields(item: Item, cache: ParsedFiles) -> tuple[Any, ...]:
    """A project note as kept: its body set apart (read when asked for), its signature kept."""
    body = cache.apart(item.body)
    return item.name, item.title, body, item.recall, item.recency, item.signature()


def _page_fields(item: Item, cache: ParsedFiles) -> tuple[Any, ...]:
    """A page as kept: its body set apart (read when asked for), its signature kept."""
    return item.title, cache.apart(item.body), item.recall, item.recency, item.signature()


def _as_kept(value: object, size: int, recall_at: int) -> TypeGuard[tuple[Any, ...]]:
    """Whether a parsed-cache entry has the shape it was kept in: `size` strings, but the one at
    `recall_at` a tuple of strings and the body just before it the number it was set apart under
    (never below zero: those number the bodies this prompt sets apart itself). A damaged cache
    reads as nothing kept, never as an error. (`str.join` checks the strings in C: every prompt
    asks this of every kept page.)"""
    if (
        type(value) is not tuple
        or len(value) != size
        or type(value[recall_at]) is not tuple
        or type(value[recall_at - 1]) is not int
        or value[recall_at - 1] < 0
    ):
        return False
    try:
        "".join(value[: recall_at - 1] + value[recall_at + 1 :])
        "".join(value[recall_at])
    except TypeError:
        return False
    return True


def _as_kept_all(values: list[Any], size: int, recall_at: int) -> bool:
    """`_as_kept` of every one of `values`, column by column: a few C calls for the whole list
    (every prompt asks it of every kept note: 10,000 one by one cost ~9 ms)."""
    if not values:
        return True
    if set(map(type, values)) != _TUPLE or set(map(len, values)) != {size}:  # then by column
        return False
    columns = list(zip(*values, strict=True))
    bodies, recalls = columns[recall_at - 1], columns[recall_at]
    if set(map(type, bodies)) != _INT or min(bodies) < 0 or set(map(type, recalls)) != _TUPLE:
        return False
    try:  # `str.join` checks the strings in C, a column at a time
        for at, column in enumerate(columns):
            if at != recall_at - 1:
                "".join(column if at != recall_at else map("".join, column))
    except TypeError:
        return False
    return True


_TUPLE, _INT = {tuple}, {int}


def usable_kept(parsed: object, rel: str) -> TypeGuard[list[Any] | tuple[Any, ...]]:
    """Whether a prompt would take `parsed`, kept for the file `rel` (the project's notes or a
    page), as it is: the notes' list of entries, or a page's entry (`_as_kept`)."""
    if rel == PROJECT_MEMORY_REL:  # its ids unique, as its parse holds them (a kept parse of an
        # abcd before that check is parsed again, and refused, rather than served)
        return (
            type(parsed) is list
            and _as_kept_all(parsed, 6, 3)
            and len({fields[0] for fields in parsed}) == len(parsed)
        )
    return _as_kept(parsed, 5, 2)


def _stem_key(rel: str, st: os.stat_result) -> str:
    return f"{rel}:{st.st_ino}:{st.st_ctime_ns}:{st.st_size}"


def _lstat(
    name: str, dir_fd: int, max_bytes: int, writable: int = CHECKOUT_WRITABLE, uid: int = -1
) -> os.stat_result | None:
    """The entry itself (a link is not followed) when a read would pass it: a regular file within
    `max_bytes`, this account's (`uid`, when the caller asked `os.geteuid` once for many), without
    the `writable` bits; else `None`, and the read names why."""
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return None
    if (
        not S_ISREG(st.st_mode)
        or st.st_size > max_bytes
        or st.st_uid != (uid if uid >= 0 else os.geteuid())
        or st.st_mode & writable
    ):
        return None
    return st


def read_project_notes(checkout: Checkout, cache: ParsedFiles | None = None) -> list[Item]:
    """The notes in `<top>/.abcd/memory.json`; `CorruptFile`/`TrustError` when it cannot be used.

    With `cache`, a file whose stat matches the one its notes were parsed
    under is not read again (see `abcd.recall.stemcache`).
    """
    st, read_ns = None, 0
    if cache is not None and checkout.fd >= 0 and checkout.refused is None:
        read_ns = time.time_ns()
        st = _lstat(PROJECT_MEMORY, checkout.fd, VIEW_MAX_BYTES)
        if st is not None:
            parsed = cache.parsed(PROJECT_MEMORY_REL, st)
            if usable_kept(parsed, PROJECT_MEMORY_REL):
                at, kept, texts = _stem_key(PROJECT_MEMORY_REL, st), Item.kept, cache.text
                return [
                    kept(
                        "note",
                        "project",
                        name,
                        name,
                        title,
                        body,
                        recall,
                        recency,
                        f"{at}:{n}",
                        signature,
                        texts,
                    )
                    for n, (name, title, body, recall, recency, signature) in enumerate(parsed)
                ]
    items = _parse_project_notes(checkout)
    if cache is not None and st is not None:
        fields = [_note_fields(i, cache) for i in items]
        if cache.keep(PROJECT_MEMORY_REL, st, read_ns, fields):
            at = _stem_key(PROJECT_MEMORY_REL, st)
            for n, item in enumerate(items):
                item.stem_key = f"{at}:{n}"  # what the next prompt's kept notes are keyed by
    return items


def _parse_project_notes(checkout: Checkout) -> list[Item]:
    data = checkout.read(PROJECT_MEMORY, VIEW_MAX_BYTES)
    if data is None:
        return []
    return parse_project_file(data, checkout.shown(PROJECT_MEMORY))


def parse_project_file(data: bytes, name: str) -> list[Item]:
    """The notes of a project file's bytes; `CorruptFile` naming `name` (the file as shown)
    when `abcd.notes.project.decode_project_file` would refuse them: one verdict, whichever
    reader (`abcd.journal.lean` holds the two to the same fields, a test to the same answer)."""
    data = without_bom(data)
    try:
        doc: Any = fastjson.loads_strict(data)
    except ValueError as err:
        raise CorruptFile(name, project_unparsed(data, f"not JSON ({err})")) from None
    problem = project_file_problem(doc) or project_version_problem(
        doc["schema_version"], VIEW_SCHEMA_PLAIN
    )
    if problem is not None:
        raise CorruptFile(name, problem)
    if project_file_too_deep(doc):  # as the commands' `too_deep` counts it, without its walk
        raise CorruptFile(name, f"nested more than {MAX_DEPTH} deep")
    # Its text would fail where it is hashed or printed. Asked after the depth: it walks it all.
    if not readable(data, doc):
        raise CorruptFile(name, "holds an escaped lone surrogate (\\ud800 to \\udfff alone)")
    items = []
    seen: dict[str, int] = {}
    for index, note in enumerate(doc.get("notes", ())):
        problem = project_note_problem(note["id"], note["title"], index, seen)
        if problem is not None:
            raise CorruptFile(name, f"notes[{index}].{problem}")
        items.append(
            Item(
                kind="note",
                layer="project",
                name=note["id"],
                title=note["title"],
                body=note["body"],
                recall=tuple(note["recall"]),
                recency=note.get("written_at") or "",
            )
        )
    return items


# --- pages ----------------------------------------------------------------------


def is_page_name(name: str) -> bool:
    """`<type>_<domain>_<slug>.md`: three non-empty parts joined by `_`, at the scope's top."""
    if not name.endswith(".md") or name.startswith("."):
        return False
    if not name.isprintable() and not is_one_line(name):  # every line break is unprintable
        return False  # a name is printed where the page comes back: one line, as a title is
    parts = name[:-3].split("_", 2)
    return len(parts) == 3 and bool(parts[0] and parts[1] and parts[2])


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def parse_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """The frontmatter's `recall` (list) and `summary` (text), and the text after it.

    A small reader of the YAML this needs: `key: value`, inline lists
    `[a, b]`, and block lists of `- item` lines. Anything else is ignored.
    """
    text = text.removeprefix("\ufeff")  # a byte order mark, as a Windows editor saves one
    if not (text.startswith("---\n") or text.startswith("---\r\n")):
        return {}, text
    end = text.find("\n---", 3)
    if end < 0:
        return {}, text
    header = text[text.index("\n") + 1 : end]
    rest = text[end + 4 :]
    rest = rest[rest.find("\n") + 1 :] if "\n" in rest else ""
    meta: dict[str, Any] = {}
    current: str | None = None
    for raw in header.splitlines():
        line = raw.rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        stripped = line.strip()
        if (
            stripped.startswith("- ")
            and current is not None
            and isinstance(meta.get(current), list)
        ):
            meta[current].append(_unquote(stripped[2:]))
            continue
        key, sep, value = line.partition(":")
        if not sep or line[0].isspace():
            continue
        current = key.strip()
        value = value.strip()
        if value.startswith("[") and value.endswith("]"):
            meta[current] = [_unquote(v) for v in value[1:-1].split(",") if v.strip()]
        elif value == "":
            meta[current] = []
        else:
            meta[current] = _unquote(value)
    return meta, rest


# The frontmatter fields a page's recency is read from, first found first; an ISO date, or a UTC
# time `YYYY-MM-DDTHH:MM[:SS[.ffffff]]Z`, so that recencies compare as text.
RECENCY_FIELDS = ("updated", "date")


def _is_digits(text: str) -> bool:
    return text.isascii() and text.isdigit()


def is_recency(value: str) -> bool:
    """An ISO date (`2026-10-12`), or one with a UTC time (`2026-10-12T09:30Z`, seconds optional)."""
    date, sep, clock = value.partition("T")
    parts = date.split("-")
    if len(parts) != 3 or [len(p) for p in parts] != [4, 2, 2] or not all(map(_is_digits, parts)):
        return False
    if not sep:
        return True
    if not clock.endswith("Z"):
        return False
    hms, _, fraction = clock[:-1].partition(".")
    fields = hms.split(":")
    return (
        len(fields) in (2, 3)
        and all(len(f) == 2 and _is_digits(f) for f in fields)
        and (not fraction or _is_digits(fraction))
        and ("." not in clock or len(fields) == 3)
    )


def page_recency(meta: dict[str, Any]) -> str:
    """The page's own date, from its frontmatter (`updated:`, else `date:`), else `""` (oldest).

    Never the file's modification time: a clone stamps each file with the
    time it was checked out, so two machines would break the same tie two ways.
    """
    for field in RECENCY_FIELDS:
        value = meta.get(field)
        if isinstance(value, str) and is_recency(value):
            return value
    return ""


def page_item(name: str, text: str, layer: str) -> Item:
    """A page as an item; without a `recall:` list its recall is empty and it is never a candidate
    (it still suppresses a machine page of the same name, and the diagnostic names it)."""
    meta, rest = parse_frontmatter(text)
    recall = meta.get("recall")
    if isinstance(recall, str):
        recall = [recall]
    if not isinstance(recall, list):
        recall = []
    summary = meta.get("summary")
    title, body = "", rest.strip()
    if isinstance(summary, str) and summary.strip():
        title = summary.strip()
    else:
        lines = rest.splitlines()
        for index, line in enumerate(lines):
            if line.startswith("# "):
                title = line[2:].strip()
                body = "\n".join(lines[:index] + lines[index + 1 :]).strip()
                break
    return Item(
        kind="page",
        layer=layer,
        name=name,
        title=title or name,
        body=body,
        recall=tuple(w.strip() for w in recall if w.strip()),
        recency=page_recency(meta),
    )


def _read_page(dfd: int, name: str, shown_name: str, writable: int) -> str:
    try:
        fd = open_at(name, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dfd)
    except OSError as err:
        raise TrustError(
            shown_name, "is a symlink or cannot be opened" if err.errno else str(err)
        ) from err
    try:
        st = os.fstat(fd)
        if not S_ISREG(st.st_mode):
            raise TrustError(shown_name, "is not a regular file")
        if st.st_uid != os.geteuid() or st.st_mode & writable:
            check_owner_and_mode(st, shown_name, writable)
        if st.st_size > PAGE_MAX_BYTES:
            raise TrustError(shown_name, f"larger than its bound of {PAGE_MAX_BYTES} bytes")
        data = os.read(fd, PAGE_MAX_BYTES + 1)
    finally:
        os.close(fd)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise CorruptFile(shown_name, "not UTF-8 text") from None


def _scan_pages(
    dfd: int,
    folder_shown: str,
    layer: str,
    writable: int,
    cache: ParsedFiles | None = None,
    prefix: str = "",
) -> tuple[list[Item], list[Problem]]:
    """The pages of one folder, each this account's and without the `writable` mode bits. With
    `cache`, a page whose stat matches the one it was parsed under (and passes the checks a read
    would make) is not read again; `prefix` names the folder there."""
    items: list[Item] = []
    problems: list[Problem] = []
    # One moment before every page's stat: a page is kept only when it changed well before it
    # (`ParsedFiles.keep`), so an earlier moment is only the stricter. One uid for all.
    read_ns, uid = (time.time_ns(), os.geteuid()) if cache is not None else (0, -1)
    for name in sorted(os.listdir(dfd)):
        if not is_page_name(name):
            continue
        st, rel = None, prefix + name
        if cache is not None:
            # else the read names what is wrong
            st = _lstat(name, dfd, PAGE_MAX_BYTES, writable, uid)
            parsed = cache.parsed(rel, st) if st is not None else None
            if st is not None and usable_kept(parsed, rel):
                title, body, recall, recency, signature = parsed
                items.append(
                    Item.kept(
                        "page",
                        layer,
                        name,
                        f"page:{name}",
                        title,
                        body,
                        recall,
                        recency,
                        _stem_key(rel, st),
                        signature,
                        cache.text,
                    )
                )
                continue
        shown_name = f"{folder_shown}/{name}"
        try:
            text = _read_page(dfd, name, shown_name, writable)
        except AbcdError as err:
            problems.append(Problem("page", str(err)))
            continue
        item = page_item(name, text, layer)
        if (
            cache is not None
            and st is not None
            and cache.keep(rel, st, read_ns, _page_fields(item, cache))
        ):
            item.stem_key = _stem_key(rel, st)  # as the next prompt's kept page
        items.append(item)
    return items, problems


def read_workspace_pages(
    checkout: Checkout, cache: ParsedFiles | None = None
) -> tuple[list[Item], list[Problem]]:
    """Pages at the top of `<top>/.abcd/memory/`, through the checkout's checks (no link followed)."""
    try:
        dfd = checkout.open_dir(PROJECT_PAGES)
    except AbcdError as err:
        return [], [Problem("page", str(err))]
    if dfd is None:
        return [], []
    try:
        return _scan_pages(
            dfd,
            checkout.shown(PROJECT_PAGES),
            "workspace",
            CHECKOUT_WRITABLE,
            cache,
            f"{PROJECT_PAGES_REL}/",
        )
    finally:
        os.close(dfd)


def read_machine_pages(
    home: Home | None, cache: ParsedFiles | None = None
) -> tuple[list[Item], list[Problem]]:
    """Pages at the top of `<home>/memory/`, each one a regular file this account owns."""
    if home is None:
        return [], []
    try:
        dfd = home.open_dir(MACHINE_PAGES_REL)
    except AbcdError as err:
        return [], [Problem("page", str(err))]
    if dfd is None:
        return [], []
    try:
        return _scan_pages(
            dfd, home.shown(MACHINE_PAGES_REL), "machine", HOME_WRITABLE, cache, "~machine/"
        )
    finally:
        os.close(dfd)

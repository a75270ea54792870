"""The rules loader: read the machine layer, then the repository's, and merge them.

read (guarded, bounded) -> parse and validate (`schema`) -> merge field by
field -> drop what cannot render -> a `RuleSet`, with every note and problem
as a value (SPEC sections 6 and 7).

- The machine layer is `<home>/rules.json`, read through `Home.read`; the
  repository's is `<repo top>/.abcd/rules.json`, read through the checkout's
  `Checkout.read` (a checkout another account owns is refused, naming what
  it owns). Later layers override earlier ones.
- A layer that names a domain an earlier layer named overrides it field by
  field (a field it leaves out stays the earlier layer's), and the domain's
  heading says whose words these are: `(repo override)` when the project's
  file overrides the person's, `(user override)` when the machine layer
  overrides one below it (none does today: the original's generated domains
  are out of scope, SPEC section 12).
- `"disabled": true` in any layer read is the kill switch; the set names the
  file(s) that set it.

Invariant: loading never writes or creates anything, an absent file costs
one failed open, and a layer that cannot be read, parsed or validated is a
problem naming its file while the other layer still loads.
"""

from __future__ import annotations

from abcd import fastjson
from abcd import leanos as os
from abcd.constants import RULES_MAX_BYTES
from abcd.digest import sha256_hex
from abcd.errors import AbcdError, StorageError
from abcd.recall.terms import term_of
from abcd.repo import PROJECT_RULES, find_repo
from abcd.rules.schema import Layer, parse_layer
from abcd.trust.guarded import Checkout, Home, locate_home, shown
from abcd.value import Value

# The prompt hook loads the rules on every prompt: slotted `Value`s and
# plain strings for paths (no msgspec, typing or pathlib to import).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Final, Literal

    from abcd.recall.terms import Term
    from abcd.rules.schema import LayerKind, State, Word

MACHINE_RULES_REL: Final = "rules.json"
# The heading's words for a domain a layer overrides: whose words these are.
_OVERRIDE_WHO: Final = {"machine": "user", "repo": "repo"}
_set = object.__setattr__  # a `Value` is read-only once built; its constructor sets each field


class Domain(Value):
    """A merged rule domain that can render: it holds at least one rule."""

    __slots__ = ("aliases", "files", "name", "override", "recall", "rules", "source", "state")
    __match_args__ = ("name", "state", "recall", "aliases", "rules", "source", "override", "files")

    name: str
    state: State
    recall: tuple[Word, ...]
    aliases: tuple[Word, ...]
    rules: tuple[str, ...]
    source: LayerKind
    override: LayerKind | None
    files: tuple[str, ...]

    def __init__(
        self,
        name: str,
        state: State,
        recall: tuple[Word, ...],
        aliases: tuple[Word, ...],
        rules: tuple[str, ...],
        source: LayerKind,
        override: LayerKind | None = None,
        files: tuple[str, ...] = (),
    ) -> None:
        _set(self, "name", name)
        _set(self, "state", state)
        _set(self, "recall", recall)
        _set(self, "aliases", aliases)
        _set(self, "rules", rules)
        _set(self, "source", source)
        _set(self, "override", override)
        _set(self, "files", files)

    @property
    def words(self) -> tuple[Word, ...]:
        """The recall words, then the aliases: everything that can make the domain hit."""
        return self.recall + self.aliases

    @property
    def label(self) -> str:
        """`(repo override)` or `(user override)` for an overridden domain, else empty."""
        return f"({_OVERRIDE_WHO[self.override]} override)" if self.override else ""

    @property
    def origin(self) -> str:
        """Where the domain comes from, for the listing: `machine`, `repo` or `repo override`."""
        return f"{self.override} override" if self.override else self.source

    def signature(self) -> str:
        """A digest of the domain's content and layer, never of its rendered form (for ledgers)."""
        content = [
            self.name,
            self.state,
            [w.text for w in self.recall],
            [w.text for w in self.aliases],
            list(self.rules),
            self.label,
        ]
        # Compact JSON, UTF-8 unescaped: the same bytes msgspec's encoder gave, so
        # a ledger written before this reader still matches.
        encoded = fastjson.dumps(content, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        return sha256_hex(encoded)


class LayerStatus(Value):
    """Which file a layer is and what became of it."""

    __slots__ = ("kind", "shown", "status")
    __match_args__ = ("kind", "shown", "status")

    kind: LayerKind
    shown: str
    status: Literal["absent", "read", "refused"]

    def __init__(
        self, kind: LayerKind, shown: str, status: Literal["absent", "read", "refused"]
    ) -> None:
        _set(self, "kind", kind)
        _set(self, "shown", shown)
        _set(self, "status", status)


def kill_switch(files: Sequence[str]) -> str:
    """The kill switch, named with the file(s) that set it: the diagnostic's line, and the
    hook's on every prompt it silences."""
    return (
        f'kill switch: "disabled": true in {", ".join(files)}; rules, notes and pages are silenced'
    )


class RuleSet(Value):
    """The merged rules, the kill switch, and everything said about them, as values."""

    __slots__ = ("disabled_by", "domains", "layers", "notes", "problems")
    __match_args__ = ("domains", "disabled_by", "notes", "problems", "layers")

    domains: tuple[Domain, ...]
    disabled_by: tuple[str, ...]
    notes: tuple[str, ...]
    problems: tuple[AbcdError, ...]
    layers: tuple[LayerStatus, ...]

    def __init__(
        self,
        domains: tuple[Domain, ...] = (),
        disabled_by: tuple[str, ...] = (),
        notes: tuple[str, ...] = (),
        problems: tuple[AbcdError, ...] = (),
        layers: tuple[LayerStatus, ...] = (),
    ) -> None:
        _set(self, "domains", domains)
        _set(self, "disabled_by", disabled_by)
        _set(self, "notes", notes)
        _set(self, "problems", problems)
        _set(self, "layers", layers)

    @property
    def disabled(self) -> bool:
        """The kill switch: rules, notes and pages are all silenced."""
        return bool(self.disabled_by)

    def get(self, name: str) -> Domain | None:
        return next((d for d in self.domains if d.name == name), None)


class _Merging:
    """One domain while the layers merge into it (mutable, private to `merge`)."""

    __slots__ = ("aliases", "files", "override", "recall", "rules", "source", "state")

    def __init__(self, source: LayerKind) -> None:
        self.source = source
        self.override: LayerKind | None = None
        self.files: list[str] = []
        self.state: State = "active"
        self.recall: tuple[Word, ...] = ()
        self.aliases: tuple[Word, ...] = ()
        self.rules: tuple[str, ...] = ()


def merge(layers: Sequence[Layer]) -> tuple[tuple[Domain, ...], tuple[str, ...]]:
    """Merge layers, earliest first, field by field; domains in the order first named.

    Returns the domains that hold rules and the notes: a domain without rules
    is dropped and said, an active domain nothing can hit is said.
    """
    merging: dict[str, _Merging] = {}
    for layer in layers:
        for named in layer.domains:
            entry = merging.get(named.name)
            if entry is None:
                entry = merging[named.name] = _Merging(layer.kind)
            else:
                entry.override = layer.kind
            entry.files.append(layer.shown)
            if named.state is not None:
                entry.state = named.state
            if named.recall is not None:
                entry.recall = named.recall
            if named.aliases is not None:
                entry.aliases = named.aliases
            if named.rules is not None:
                entry.rules = named.rules
    domains: list[Domain] = []
    notes: list[str] = []
    for name, entry in merging.items():
        where = ", ".join(entry.files)
        if not entry.rules:
            notes.append(f"{where}: domain {name} has no rules; dropped")
            continue
        if entry.state == "active" and not (entry.recall or entry.aliases):
            notes.append(
                f"{where}: domain {name} has no recall words or aliases; "
                f"it comes back only on *{name}"
            )
        domains.append(
            Domain(
                name,
                entry.state,
                entry.recall,
                entry.aliases,
                entry.rules,
                entry.source,
                entry.override,
                tuple(entry.files),
            )
        )
    return tuple(domains), tuple(notes)


class _Read:
    """One layer's read: the layer (if any), its status, and the problem that refused it."""

    __slots__ = ("layer", "problem", "status")

    def __init__(
        self, layer: Layer | None, status: LayerStatus, problem: AbcdError | None = None
    ) -> None:
        self.layer = layer
        self.status = status
        self.problem = problem


def _read_machine(home: Home | None, home_path: str, term: Callable[[str], Term | None]) -> _Read:
    name = shown(os.path.join(home_path, MACHINE_RULES_REL))
    if home is None:
        return _Read(None, LayerStatus("machine", name, "absent"))
    try:
        data = home.read(MACHINE_RULES_REL, RULES_MAX_BYTES)
        layer = None if data is None else parse_layer(data, "machine", name, term)
    except AbcdError as err:
        return _Read(None, LayerStatus("machine", name, "refused"), err)
    return _Read(layer, LayerStatus("machine", name, "absent" if layer is None else "read"))


def _read_repo(checkout: Checkout, term: Callable[[str], Term | None] = term_of) -> _Read:
    name = checkout.shown(PROJECT_RULES)
    try:
        try:
            data = checkout.read(PROJECT_RULES, RULES_MAX_BYTES)
        except OSError as err:
            raise StorageError(f"{name}: {err.strerror or err}") from err
        layer = None if data is None else parse_layer(data, "repo", name, term)
    except AbcdError as err:
        return _Read(None, LayerStatus("repo", name, "refused"), err)
    return _Read(layer, LayerStatus("repo", name, "absent" if layer is None else "read"))


def _assemble(reads: Sequence[_Read]) -> RuleSet:
    layers = [r.layer for r in reads if r.layer is not None]
    domains, merge_notes = merge(layers)
    return RuleSet(
        domains=domains,
        disabled_by=tuple(layer.shown for layer in layers if layer.disabled),
        notes=tuple(note for layer in layers for note in layer.notes) + merge_notes,
        problems=tuple(r.problem for r in reads if r.problem is not None),
        layers=tuple(r.status for r in reads),
    )


def load(
    home: Home | None,
    checkout: Checkout | None,
    home_path: str | os.PathLike[str] | None = None,
    term: Callable[[str], Term | None] = term_of,
) -> RuleSet:
    """Both layers through an open home (`None`: absent) and a checkout (`None`: outside one).

    `home_path` names the machine file when the home is absent (default: where it would be);
    `term` gives a word's term (`abcd.rules.schema.parse_layer`).
    """
    machine = home.path if home is not None else None
    if machine is None:
        machine = os.fspath(home_path) if home_path else locate_home()
    reads = [_read_machine(home, machine, term)]
    if checkout is not None:
        reads.append(_read_repo(checkout, term))
    return _assemble(reads)


def load_here(start: str | os.PathLike[str] | None = None) -> RuleSet:
    """Open the home, find the repository holding `start` (default: here), load both layers."""
    repo = find_repo(start)
    checkout = Checkout.open(repo.top) if repo is not None else None
    home_path = locate_home()
    try:
        try:
            home = Home.open(home_path)
        except AbcdError as err:
            status = LayerStatus(
                "machine", shown(os.path.join(home_path, MACHINE_RULES_REL)), "refused"
            )
            reads = [_Read(None, status, err)]
            if checkout is not None:
                reads.append(_read_repo(checkout))
            return _assemble(reads)
        try:
            return load(home, checkout, home_path)
        finally:
            if home is not None:
                home.close()
    finally:
        if checkout is not None:
            checkout.close()

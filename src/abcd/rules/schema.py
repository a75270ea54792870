"""One `rules.json` layer: its typed shape, decoded from bytes and validated.

The shape is the one the original tool's users already have (SPEC section 7):

    {"schema_version": 1, "disabled": false,
     "domains": {"TESTING": {"state": "active", "recall": ["test", "pytest"],
                             "aliases": ["race detector"], "rules": ["..."]}}}

Every field may be left out: a layer names only what it sets, and the merge
(`abcd.rules.loader`) overrides field by field. Unknown fields are ignored,
so a file written for the original tool or by a newer abcd of the same
schema version still loads, and each one ignored is named in the layer's
notes, so a misspelt field is never silent. A `schema_version` newer than
this reader's is refused by name.

Invariant: a `Layer` holds only names, states, recall words, aliases and
rules that passed validation; anything else is a `CorruptFile` naming the
file and the field, and nothing of that file is used.
"""

from __future__ import annotations

import re
from typing import Any, Final, Literal

import msgspec
from msgspec import UNSET, UnsetType

from abcd.errors import CorruptFile
from abcd.recall.terms import Term, term_of

# The version this reader knows. A newer file may mean things this reader
# would get wrong, so it is refused by name rather than half-read.
RULES_SCHEMA_VERSION: Final = 1
# Upper-case so `*NAME` in a prompt reads as a name, and safe in a heading.
DOMAIN_NAME = re.compile(r"[A-Z][A-Z0-9_]*")

State = Literal["active", "dormant"]
LayerKind = Literal["machine", "repo"]

_TOP_FIELDS = frozenset({"schema_version", "disabled", "domains"})
_DOMAIN_FIELDS = frozenset({"state", "recall", "aliases", "rules"})


class _DomainSpec(msgspec.Struct, frozen=True):
    state: State | UnsetType = UNSET
    recall: list[str] | UnsetType = UNSET
    aliases: list[str] | UnsetType = UNSET
    rules: list[str] | UnsetType = UNSET


class _RulesFile(msgspec.Struct, frozen=True):
    schema_version: int = RULES_SCHEMA_VERSION
    disabled: bool = False
    domains: dict[str, Any] = {}


class Word(msgspec.Struct, frozen=True):
    """A recall word or alias as its author wrote it, and the term it stands for."""

    text: str
    term: Term


class DomainLayer(msgspec.Struct, frozen=True):
    """What one layer says about one domain; `None` is a field the layer leaves to the one below."""

    name: str
    state: State | None = None
    recall: tuple[Word, ...] | None = None
    aliases: tuple[Word, ...] | None = None
    rules: tuple[str, ...] | None = None


class Layer(msgspec.Struct, frozen=True):
    """One `rules.json`, validated: which layer, the file in `~/` form, and what it says."""

    kind: LayerKind
    shown: str
    disabled: bool = False
    domains: tuple[DomainLayer, ...] = ()
    notes: tuple[str, ...] = ()


def _refusal(shown: str, err: msgspec.ValidationError, prefix: str = "") -> CorruptFile:
    """msgspec's "Expected `str`, got `int` - at `$.rules[0]`" as "rules[0]: expected ..."."""
    message, _, where = str(err).partition(" - at `$")
    path = prefix + where.rstrip("`").lstrip(".")
    reason = message[:1].lower() + message[1:]
    return CorruptFile(shown, f"{path}: {reason}" if path else reason)


def parse_layer(data: bytes, kind: LayerKind, shown: str) -> Layer:
    """Decode and validate one layer's bytes; a `CorruptFile` naming `shown` and the field."""
    try:
        raw = msgspec.json.decode(data)
    except msgspec.DecodeError as err:
        raise CorruptFile(shown, f"not valid JSON: {err}") from err
    if not isinstance(raw, dict):
        raise CorruptFile(shown, "the top level must be a JSON object")
    version = raw.get("schema_version", RULES_SCHEMA_VERSION)
    if (
        isinstance(version, int)
        and not isinstance(version, bool)
        and version > RULES_SCHEMA_VERSION
    ):
        raise CorruptFile(
            shown,
            f"schema_version {version} is newer than this abcd reads "
            f"({RULES_SCHEMA_VERSION}); upgrade abcd to read it",
        )
    try:
        top = msgspec.convert(raw, _RulesFile)
    except msgspec.ValidationError as err:
        raise _refusal(shown, err) from err
    if top.schema_version < 1:
        raise CorruptFile(
            shown, f"schema_version: {top.schema_version} is not a version abcd knows"
        )
    notes = [
        f"{shown}: unknown field `{field}` ignored" for field in raw if field not in _TOP_FIELDS
    ]
    domains: list[DomainLayer] = []
    for name, body in top.domains.items():
        domains.append(_parse_domain(name, body, shown, notes))
    return Layer(kind, shown, top.disabled, tuple(domains), tuple(notes))


def _parse_domain(name: str, body: Any, shown: str, notes: list[str]) -> DomainLayer:
    where = f"domains.{name}"
    if not DOMAIN_NAME.fullmatch(name):
        raise CorruptFile(
            shown,
            f"domains: `{name}` is not a domain name "
            "(capital letters, digits and `_`, starting with a letter)",
        )
    if not isinstance(body, dict):
        raise CorruptFile(shown, f"{where}: expected `object`, got `{_json_type(body)}`")
    try:
        spec = msgspec.convert(body, _DomainSpec)
    except msgspec.ValidationError as err:
        raise _refusal(shown, err, prefix=f"{where}.") from err
    notes.extend(
        f"{shown}: unknown field `{field}` in domain {name} ignored"
        for field in body
        if field not in _DOMAIN_FIELDS
    )
    recall = aliases = None
    if not isinstance(spec.recall, UnsetType):
        recall = _words(spec.recall, f"{where}.recall", shown, phrase=False)
    if not isinstance(spec.aliases, UnsetType):
        aliases = _words(spec.aliases, f"{where}.aliases", shown, phrase=True)
    rules = None
    if not isinstance(spec.rules, UnsetType):
        for at, rule in enumerate(spec.rules):
            if not rule.strip():
                raise CorruptFile(shown, f"{where}.rules[{at}]: a rule is empty")
        rules = tuple(spec.rules)
    state = None if isinstance(spec.state, UnsetType) else spec.state
    return DomainLayer(name, state, recall, aliases, rules)


def _json_type(value: Any) -> str:
    """The JSON name of a decoded value's type, as msgspec's own messages say it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    return {str: "str", int: "int", float: "float", list: "array"}.get(type(value), "value")


def _words(values: list[str], where: str, shown: str, *, phrase: bool) -> tuple[Word, ...]:
    """Recall words must be one word each and aliases two or more, by the term rule."""
    words: list[Word] = []
    for at, text in enumerate(values):
        term = term_of(text)
        if term is None:
            raise CorruptFile(shown, f"{where}[{at}]: `{text}` holds no letter or digit")
        if phrase and len(term) < 2:
            raise CorruptFile(
                shown,
                f"{where}[{at}]: `{text}` is one word; aliases are phrases (put it in recall)",
            )
        if not phrase and len(term) > 1:
            raise CorruptFile(
                shown,
                f"{where}[{at}]: `{text}` is {len(term)} words by the term rule; "
                "recall holds single words (put phrases in aliases)",
            )
        words.append(Word(text, term))
    return tuple(words)

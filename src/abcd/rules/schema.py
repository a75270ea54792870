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

from abcd import fastjson
from abcd.errors import CorruptFile
from abcd.recall.terms import term_of
from abcd.shapes import conflict_markers, without_bom
from abcd.value import Value

# The prompt hook loads this module on every prompt: the file is decoded by
# the stdlib `json` the hook loads anyway and checked by hand below (no
# msgspec, no typing), with the messages msgspec's validation gave.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Final, Literal, TypeAlias

    from abcd.recall.terms import Term

    State: TypeAlias = Literal["active", "dormant"]
    LayerKind: TypeAlias = Literal["machine", "repo"]
else:
    State = LayerKind = str

# The version this reader knows. A newer file may mean things this reader
# would get wrong, so it is refused by name rather than half-read.
RULES_SCHEMA_VERSION: Final = 1

_STATES = ("active", "dormant")
_WORD_FIELDS = ("recall", "aliases", "rules")
# A value's type as a JSON document names it, for "expected `str`, got `int`".
_JSON_TYPES = {
    str: "str",
    int: "int",
    float: "float",
    bool: "bool",
    list: "array",
    dict: "object",
    type(None): "null",
}
_set = object.__setattr__  # a `Value` is read-only once built; its constructor sets each field


def is_domain_name(name: str) -> bool:
    """`[A-Z][A-Z0-9_]*`: upper case, so `*NAME` in a prompt reads as a name, and safe in a heading."""
    return (
        name.isascii()
        and name[:1].isalpha()
        and name.replace("_", "").isalnum()
        and name == name.upper()
    )


class Word(Value):
    """A recall word or alias as its author wrote it, and the term it stands for."""

    __slots__ = ("term", "text")
    __match_args__ = ("text", "term")

    text: str
    term: Term

    def __init__(self, text: str, term: Term) -> None:
        _set(self, "text", text)
        _set(self, "term", term)


class DomainLayer(Value):
    """What one layer says about one domain; `None` is a field the layer leaves to the one below."""

    __slots__ = ("aliases", "name", "recall", "rules", "state")
    __match_args__ = ("name", "state", "recall", "aliases", "rules")

    name: str
    state: State | None
    recall: tuple[Word, ...] | None
    aliases: tuple[Word, ...] | None
    rules: tuple[str, ...] | None

    def __init__(
        self,
        name: str,
        state: State | None = None,
        recall: tuple[Word, ...] | None = None,
        aliases: tuple[Word, ...] | None = None,
        rules: tuple[str, ...] | None = None,
    ) -> None:
        _set(self, "name", name)
        _set(self, "state", state)
        _set(self, "recall", recall)
        _set(self, "aliases", aliases)
        _set(self, "rules", rules)


class Layer(Value):
    """One `rules.json`, validated: which layer, the file in `~/` form, and what it says."""

    __slots__ = ("disabled", "domains", "kind", "notes", "shown")
    __match_args__ = ("kind", "shown", "disabled", "domains", "notes")

    kind: LayerKind
    shown: str
    disabled: bool
    domains: tuple[DomainLayer, ...]
    notes: tuple[str, ...]

    def __init__(
        self,
        kind: LayerKind,
        shown: str,
        disabled: bool = False,
        domains: tuple[DomainLayer, ...] = (),
        notes: tuple[str, ...] = (),
    ) -> None:
        _set(self, "kind", kind)
        _set(self, "shown", shown)
        _set(self, "disabled", disabled)
        _set(self, "domains", domains)
        _set(self, "notes", notes)


def _not_finite(text: str) -> float:
    raise ValueError(f"{text} is not a JSON number")


def _finite(text: str) -> float:
    number = float(text)
    if number - number != 0.0:  # inf - inf is nan; a finite number minus itself is 0
        raise ValueError(f"number out of range: {text}")
    return number


def _decode(data: bytes, shown: str) -> object:
    """The JSON value of `data`: strict UTF-8 (a leading byte order mark passed over, as RFC
    8259 allows), no NaN or infinities, no lone surrogate."""
    try:
        text = without_bom(data).decode("utf-8")
        raw = fastjson.loads(text, parse_constant=_not_finite, parse_float=_finite)
        if "\\u" in text:
            # An escaped lone surrogate decodes, but no UTF-8 can hold it: refuse it here
            # rather than fail where a rule is rendered.
            fastjson.dumps(raw, ensure_ascii=False).encode("utf-8")
    except RecursionError:
        raise CorruptFile(shown, "not valid JSON: nested too deeply") from None
    except ValueError as err:  # JSONDecodeError, UnicodeDecodeError/EncodeError, digit limit
        markers = conflict_markers(data)
        if markers is not None:
            raise CorruptFile(shown, f"{markers}: resolve them, then git add it") from None
        raise CorruptFile(shown, f"not valid JSON: {err}") from err
    return raw


def _expected(shown: str, where: str, kind: str, value: object) -> CorruptFile:
    return CorruptFile(
        shown, f"{where}: expected `{kind}`, got `{_JSON_TYPES.get(type(value), 'value')}`"
    )


def parse_layer(
    data: bytes, kind: LayerKind, shown: str, term: Callable[[str], Term | None] = term_of
) -> Layer:
    """Decode and validate one layer's bytes; a `CorruptFile` naming `shown` and the field.

    `term` gives a recall word's or alias's term: `term_of`, or the prompt hook's kept terms
    (`abcd.recall.stemcache.StemCache.term`, the same answers without stemming again)."""
    raw = _decode(data, shown)
    if type(raw) is not dict:
        raise CorruptFile(shown, "the top level must be a JSON object")
    version = raw.get("schema_version", RULES_SCHEMA_VERSION)
    if type(version) is int and version > RULES_SCHEMA_VERSION:
        raise CorruptFile(
            shown,
            f"schema_version {version} is newer than this abcd reads "
            f"({RULES_SCHEMA_VERSION}); upgrade abcd to read it",
        )
    disabled = False
    domains: dict[str, object] = {}
    notes: list[str] = []
    # Field by field in the file's order, so the first bad field is the one named.
    for field, value in raw.items():
        if field == "schema_version":
            if type(value) is not int:
                raise _expected(shown, field, "int", value)
        elif field == "disabled":
            if type(value) is not bool:
                raise _expected(shown, field, "bool", value)
            disabled = value
        elif field == "domains":
            if type(value) is not dict:
                raise _expected(shown, field, "object", value)
            domains = value
        else:
            notes.append(f"{shown}: unknown field `{field}` ignored")
    if version < 1:
        raise CorruptFile(shown, f"schema_version: {version} is not a version abcd knows")
    parsed = tuple(
        [_parse_domain(name, body, shown, notes, term) for name, body in domains.items()]
    )
    return Layer(kind, shown, disabled, parsed, tuple(notes))


def _parse_domain(
    name: str, body: object, shown: str, notes: list[str], term: Callable[[str], Term | None]
) -> DomainLayer:
    where = f"domains.{name}"
    if not is_domain_name(name):
        raise CorruptFile(
            shown,
            f"domains: `{name}` is not a domain name "
            "(capital letters, digits and `_`, starting with a letter)",
        )
    if type(body) is not dict:
        raise _expected(shown, where, "object", body)
    state: State | None = None
    lists: dict[str, list[str]] = {}
    unknown: list[str] = []
    for field, value in body.items():
        if field == "state":
            if type(value) is not str:
                raise _expected(shown, f"{where}.state", "str", value)
            if value not in _STATES:
                raise CorruptFile(shown, f"{where}.state: invalid enum value {value!r}")
            state = "active" if value == "active" else "dormant"
        elif field in _WORD_FIELDS:
            if type(value) is not list:
                raise _expected(shown, f"{where}.{field}", "array", value)
            for at, item in enumerate(value):
                if type(item) is not str:
                    raise _expected(shown, f"{where}.{field}[{at}]", "str", item)
            lists[field] = value
        else:
            unknown.append(f"{shown}: unknown field `{field}` in domain {name} ignored")
    notes.extend(unknown)
    recall = aliases = None
    if "recall" in lists:
        recall = _words(lists["recall"], f"{where}.recall", shown, term, phrase=False)
    if "aliases" in lists:
        aliases = _words(lists["aliases"], f"{where}.aliases", shown, term, phrase=True)
    rules = None
    if "rules" in lists:
        for at, rule in enumerate(lists["rules"]):
            if not rule.strip():
                raise CorruptFile(shown, f"{where}.rules[{at}]: a rule is empty")
        rules = tuple(lists["rules"])
    return DomainLayer(name, state, recall, aliases, rules)


def _words(
    values: list[str],
    where: str,
    shown: str,
    term_for: Callable[[str], Term | None],
    *,
    phrase: bool,
) -> tuple[Word, ...]:
    """Recall words must be one word each and aliases two or more, by the term rule."""
    words: list[Word] = []
    for at, text in enumerate(values):
        term = term_for(text)
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

"""The gate's one result type, `Finding`, and the kinds that are not rule-specific.

Invariant: a `Finding` holds a kind and a field, never any of the text that
was judged, so printing or logging it can leak nothing.

`Finding` is written by hand rather than as a `dataclasses.dataclass`:
importing `dataclasses` alone costs more than the gate's whole import budget
(SPEC: at most 5 ms). It behaves as a frozen dataclass would: equality and
hash by value, immutable, a readable repr.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

INPUT_TOO_LONG = "input too long for the gate"
GATE_UNAVAILABLE = "gate unavailable"


class Finding:
    """Why a note may not be written: the `kind` of what was found and the `field` it was in.

    `field` is `"title"`, `"body"` or `"recall[i]"` (0-based).
    """

    __slots__ = ("field", "kind")
    kind: str
    field: str

    def __init__(self, kind: str, field: str) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "field", field)

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"Finding is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"Finding is immutable: cannot delete {name!r}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Finding):
            return NotImplemented
        return (self.kind, self.field) == (other.kind, other.field)

    def __hash__(self) -> int:
        return hash((Finding, self.kind, self.field))

    def __repr__(self) -> str:
        return f"Finding(kind={self.kind!r}, field={self.field!r})"

"""The gate's one result type, `Finding`, and the kinds that are not rule-specific.

Invariant: a `Finding` holds a kind and a field, never any of the text that
was judged, so printing or logging it can leak nothing.

`Finding` is a `abcd.value.Value`, not a `dataclasses.dataclass`:
importing `dataclasses` alone costs more than the gate's whole import budget
(SPEC: at most 5 ms). It behaves as a frozen dataclass would: equality and
hash by value, immutable, a readable repr.
"""

from __future__ import annotations

from abcd.value import Value

TYPE_CHECKING = False
if TYPE_CHECKING:
    pass

INPUT_TOO_LONG = "input too long for the gate"
GATE_UNAVAILABLE = "gate unavailable"


class Finding(Value):
    """Why a note may not be written: the `kind` of what was found and the `field` it was in.

    `field` is `"title"`, `"body"` or `"recall[i]"` (0-based).
    """

    __slots__ = ("field", "kind")
    __match_args__ = ("kind", "field")
    kind: str
    field: str

    def __init__(self, kind: str, field: str) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "field", field)

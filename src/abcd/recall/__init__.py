"""Recall: bring back the rules, notes and pages a prompt is about, ranked, within a budget.

The flow is the layout: `terms` (the one term rule: words, stems, phrases,
the prompt index) -> candidates (an item whose recall word hits) -> `bm25f`
(the ranking, its ties) -> budget and render. `constants` names every figure
once with its reason.

This package file imports nothing, so a caller that needs only the
constants does not pay for the stemmer; import the modules themselves. It
holds one class, `Record`, the read-only value base that recall's and the
rules' values share: the prompt hook loads them on every prompt, and
`dataclasses`, `typing` or `msgspec` would cost it more than the work itself.
"""

from __future__ import annotations


class Record:
    """A read-only value with slots: equal, hashed and shown by its fields in `__match_args__`.

    A subclass lists its fields in `__slots__` and, in constructor order, in
    `__match_args__`; its `__init__` sets each one once with
    `object.__setattr__`. Afterwards any assignment raises, so a record can
    be hashed and shared. Equality needs the same class and equal fields, as
    the msgspec frozen structs these replace had it.
    """

    __slots__ = ()
    __match_args__: tuple[str, ...] = ()

    def _values(self) -> tuple[object, ...]:
        return tuple([getattr(self, name) for name in self.__match_args__])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Record) or type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__match_args__)
        return f"{type(self).__name__}({fields})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only; cannot set {name}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only; cannot delete {name}")

    def __reduce__(self) -> tuple[type[Record], tuple[object, ...]]:
        # copy and pickle rebuild through the constructor; the slots are never set from outside.
        return type(self), self._values()

"""`Value`: the one read-only value base the hook's path uses instead of dataclasses.

The prompt hook runs on every prompt, and `dataclasses`, `typing` or
`msgspec` would cost it more to import than its whole work (docs/hook.md).
So recall's values, the rules', the gate's finding, the fill's and the
session events share this small base: fields in `__slots__`, set once in
`__init__` with `object.__setattr__`, then read-only, equal and hashed by
value, shown by field.
"""

from __future__ import annotations


class Value:
    """A read-only value with slots: equal, hashed and shown by its fields in `__match_args__`.

    A subclass lists its fields in `__slots__` and, in constructor order, in
    `__match_args__`; its `__init__` sets each one once with
    `object.__setattr__`. Afterwards any assignment raises, so a record can
    be hashed and shared. Equality needs the same class and equal fields, as
    frozen dataclasses have it.
    """

    __slots__ = ()
    __match_args__: tuple[str, ...] = ()

    def _values(self) -> tuple[object, ...]:
        return tuple([getattr(self, name) for name in self.__match_args__])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Value) or type(other) is not type(self):
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

    def __reduce__(self) -> tuple[object, tuple[type[Value], tuple[object, ...]]]:
        # copy and pickle set the fields again, whatever the constructor's signature.
        return _rebuild, (type(self), self._values())


def _rebuild(cls: type[Value], values: tuple[object, ...]) -> Value:
    value = object.__new__(cls)
    for name, field in zip(cls.__match_args__, values, strict=True):
        object.__setattr__(value, name, field)
    return value

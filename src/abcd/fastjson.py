"""JSON for the hook's path through CPython's `_json` accelerator, without importing `json`.

`import json` costs ~6.5 ms here, nearly all of it `re`, which `json.decoder`
and `json.encoder` import for their pure-Python fallbacks. The prompt hook
runs on every prompt, so it decodes and encodes through the same C scanner
and encoder `json` itself uses (`_json.make_scanner`, `_json.make_encoder`),
with the same settings, so the text and the values are the same as
`json.loads` / `json.dumps` give (a property test holds it). Where `_json` is
missing, `json` serves.

The invariant: `loads` raises `ValueError`, with a message, and nothing else,
whatever the bytes. That takes care the standard module does not need: on
Python 3.10 and 3.11 the C scanner raises its syntax errors only when
`json.decoder` is already loaded, and otherwise fails with a `SystemError`
("returned NULL without setting an exception") for any error inside an
object or array (a trailing comma, a cut-short file). So a failure other than
`ValueError` is asked again of `json` itself (loaded then, on the error path
only), which names the fault; nesting past the interpreter's depth is a
`ValueError` too. `tests/test_fastjson.py` holds all of it in a fresh
interpreter on every installed Python.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_WHITESPACE = " \t\n\r"
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}

try:
    import _json
except ImportError:  # pragma: no cover - CPython always has it
    _json = None  # type: ignore[assignment]


class _Context:
    """What `_json.make_scanner` reads from a `json.JSONDecoder`."""

    def __init__(
        self, parse_float: Callable[[str], Any] | None, parse_constant: Callable[[str], Any] | None
    ) -> None:
        self.strict = True
        self.object_hook = None
        self.object_pairs_hook = None
        self.parse_float = parse_float or float
        self.parse_int = int
        self.parse_constant = parse_constant or _CONSTANTS.__getitem__
        self.memo: dict[str, str] = {}


# The C scanner reads its settings from any object with a decoder's attributes.
_default_scanner = _json.make_scanner(_Context(None, None)) if _json is not None else None  # type: ignore[arg-type]


def loads(
    data: str | bytes,
    *,
    parse_float: Callable[[str], Any] | None = None,
    parse_constant: Callable[[str], Any] | None = None,
) -> Any:
    """As `json.loads` (UTF-8 bytes or text); `ValueError` when it is not one JSON value."""
    if _json is None:  # pragma: no cover
        import json

        return json.loads(data, parse_float=parse_float, parse_constant=parse_constant)
    try:
        text = data.decode("utf-8") if isinstance(data, (bytes, bytearray)) else data
    except UnicodeDecodeError as err:
        raise ValueError(f"not UTF-8: byte {err.start}") from None
    if text.startswith("\ufeff"):
        raise ValueError("Unexpected UTF-8 BOM (decode using utf-8-sig)")
    if parse_constant is _refuse_constant:
        scanner = _strict_scanner
    elif parse_float is None and parse_constant is None:
        scanner = _default_scanner
    else:
        scanner = _json.make_scanner(_Context(parse_float, parse_constant))  # type: ignore[arg-type]
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = scanner(text, start)
    except StopIteration as stop:
        raise ValueError(f"Expecting value: char {stop.value}") from None
    except RecursionError:
        raise ValueError(_TOO_DEEP) from None
    except ValueError:
        raise
    except Exception:  # 3.10/3.11 without `json.decoder` loaded: SystemError (module docstring)
        return _by_json(text, parse_float, parse_constant)
    if text[end:].strip(_WHITESPACE):
        raise ValueError(f"Extra data: char {end}")
    return value


_TOO_DEEP = "nested too deeply"


def loads_strict(data: str | bytes) -> Any:
    """As `loads`, but the `NaN`, `Infinity` and `-Infinity` tokens, which `json` takes and the
    JSON standard (and msgspec) does not, are a `ValueError` like any other fault; an integer
    of any length is read; and an object that holds a key twice is a `Repeated`, which keeps
    every pair, since msgspec judges each value of a key it reads and keeps the last."""
    return loads(data, parse_constant=_refuse_constant)


class Repeated(dict):  # type: ignore[type-arg]
    """A JSON object that holds a key more than once: the last value of each (as `json` reads
    it), and `pairs`, every key and value in order."""

    __slots__ = ("pairs",)

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        super().__init__(pairs)
        self.pairs = pairs


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    made = dict(pairs)
    return made if len(made) == len(pairs) else Repeated(pairs)


def _refuse_constant(token: str) -> Any:
    raise ValueError(f"{token} is not JSON")


def _whole(digits: str) -> int:
    """An integer of any length, as msgspec reads one: `int()` refuses more than 4,300 digits
    (CPython's guard against slow conversions; a line is at most 64 KiB), so a longer one is
    built from pieces under it."""
    try:
        return int(digits)
    except ValueError:
        sign, digits = (-1, digits[1:]) if digits.startswith("-") else (1, digits)
        value = 0
        for at in range(0, len(digits), 4000):
            piece = digits[at : at + 4000]
            value = value * 10 ** len(piece) + int(piece)
        return sign * value


def _strict_context() -> _Context:
    context = _Context(None, _refuse_constant)
    context.parse_int = _whole  # type: ignore[assignment]
    context.object_pairs_hook = _object  # type: ignore[assignment]
    return context


_strict_scanner = _json.make_scanner(_strict_context()) if _json is not None else None  # type: ignore[arg-type]


def _by_json(
    text: str,
    parse_float: Callable[[str], Any] | None,
    parse_constant: Callable[[str], Any] | None,
) -> Any:
    """`json.loads(text)`, for the error path: it names the fault the bare scanner could not."""
    import json

    try:
        return json.loads(text, parse_float=parse_float, parse_constant=parse_constant)
    except RecursionError:
        raise ValueError(_TOO_DEEP) from None
    except ValueError:
        raise
    except Exception as err:  # pragma: no cover - the standard module raises only those
        raise ValueError(f"{type(err).__name__}: {err}") from None


def _unknown(value: object) -> object:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def dumps(
    value: Any, *, ensure_ascii: bool = True, separators: tuple[str, str] = (", ", ": ")
) -> str:
    """As `json.dumps(value, ensure_ascii=..., separators=...)`."""
    if _json is None:  # pragma: no cover
        import json

        return json.dumps(value, ensure_ascii=ensure_ascii, separators=separators)
    encode_string = _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring
    item_separator, key_separator = separators
    encoder = _json.make_encoder(
        {}, _unknown, encode_string, None, key_separator, item_separator, False, False, True
    )
    return "".join(encoder(value, 0))

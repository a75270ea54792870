"""SHA-256 for the hook's path, without `hashlib`'s import cost.

`hashlib` loads OpenSSL's bindings (~2 ms a process); CPython's own
`_sha256` module gives the same digest for a tenth of that. Where an
interpreter lacks it, `hashlib` serves.
"""

from __future__ import annotations

try:
    from _sha256 import sha256  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - every CPython has it; other interpreters may not
    from hashlib import sha256


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of `data` in lower-case hex."""
    digest: str = sha256(data).hexdigest()
    return digest


# --- the view's digest (`abcd.journal.view`), found by bytes so the hook needs no msgspec:
# msgspec writes a Struct's fields in their declared order, `digest` last in the checkpoint,
# which comes right after `schema_version`, so nothing before it can hold the key's text.
_DIGEST_KEY = b'"digest":"'
DIGEST_LEN = 64


def view_digest_span(data: bytes) -> tuple[int, str] | None:
    """Where a view's checkpoint digest sits in its bytes and its value, or `None`."""
    at = data.find(_DIGEST_KEY, 0, 512)
    if at < 0:
        return None
    start = at + len(_DIGEST_KEY)
    value = data[start : start + DIGEST_LEN]
    if len(value) != DIGEST_LEN or data[start + DIGEST_LEN : start + DIGEST_LEN + 2] != b'"}':
        return None
    return start, value.decode("ascii", "replace")


def view_digest_matches(data: bytes) -> bool:
    """Whether a view's bytes after its checkpoint hash to the digest the checkpoint holds."""
    span = view_digest_span(data)
    if span is None:
        return False
    start, value = span
    return sha256_hex(data[start + DIGEST_LEN + 2 :]) == value

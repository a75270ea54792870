"""SHA-256 for the hook's path, without `hashlib`'s import cost.

`hashlib` loads OpenSSL's bindings (~2 ms a process); CPython's own
`_sha256` module (`_sha2` from 3.12) gives the same digest for a tenth of
that. Where an interpreter lacks both, `hashlib` serves.
"""

from __future__ import annotations

try:
    from _sha256 import sha256  # type: ignore[import-not-found]
except ImportError:  # CPython 3.12 renamed it
    try:
        from _sha2 import sha256  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - every CPython has one; other interpreters may not
        from hashlib import sha256


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of `data` in lower-case hex."""
    digest: str = sha256(data).hexdigest()
    return digest

"""SHA-256 for the hook's path, without `hashlib`'s import cost.

`hashlib` loads OpenSSL's bindings (~2 ms a process); CPython's own
`_sha256` module (`_sha2` from 3.12) gives the same digest for a tenth of
that. Where an interpreter lacks both, `hashlib` serves.
"""

from __future__ import annotations

import sys

# Named by version, not probed: a module looked for and not found sends the hook's launcher to
# `site`'s paths (plugin/hooks/abcd-hook), which costs a prompt a millisecond.
try:
    if sys.version_info >= (3, 12):  # CPython 3.12 renamed it
        from _sha2 import sha256  # type: ignore[import-not-found,unused-ignore]
    else:
        from _sha256 import sha256  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # pragma: no cover - every CPython has one; other interpreters may not
    from hashlib import sha256


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of `data` in lower-case hex."""
    digest: str = sha256(data).hexdigest()
    return digest


# --- the view's stamps (`abcd.journal.view`), found by bytes so the hook needs no msgspec:
# msgspec writes a Struct's fields in their declared order; the checkpoint comes right after
# `schema_version` and ends with `index` then `digest`, so nothing before them can hold their keys.
_DIGEST_KEY = b'"digest":"'
_INDEX_KEY = b'"index":"'
_SEGMENTS_KEY = b'"segments":"'
# The checkpoint and its stamps fit well within this many bytes at the head of a view.
VIEW_HEAD_BYTES = 1024
DIGEST_LEN = 64
STAMP_LEN = 64
_ZEROS = b"0" * DIGEST_LEN


def _field(data: bytes, key: bytes, length: int) -> int | None:
    """Where the `length`-character value of `key` starts in a view's first bytes, or `None`."""
    at = data.find(key, 0, VIEW_HEAD_BYTES)
    if at < 0:
        return None
    start = at + len(key)
    if len(data) < start + length + 1 or data[start + length : start + length + 1] != b'"':
        return None
    return start


def view_digest_span(data: bytes) -> tuple[int, str] | None:
    """Where a view's digest sits in its bytes and its value, or `None`."""
    start = _field(data, _DIGEST_KEY, DIGEST_LEN)
    if start is None:
        return None
    return start, data[start : start + DIGEST_LEN].decode("ascii", "replace")


def view_digest_of(data: bytes | bytearray, start: int) -> str:
    """The digest of a view's bytes, its own 64 characters read as zeros: it covers the rest.

    Hashed in place (a view can be tens of megabytes: no copy is made).
    """
    view = memoryview(data)
    hasher = sha256(view[:start])
    hasher.update(_ZEROS)
    hasher.update(view[start + DIGEST_LEN :])
    digest: str = hasher.hexdigest()
    return digest


def view_digest_matches(data: bytes) -> bool:
    """Whether a view's bytes hash to the digest its checkpoint holds (a hand edit does not)."""
    span = view_digest_span(data)
    return span is not None and view_digest_of(data, span[0]) == span[1]


def view_index_stamp(data: bytes) -> str | None:
    """The stamp of the recall index a view's writer left beside it, or `None`."""
    start = _field(data, _INDEX_KEY, STAMP_LEN)
    return None if start is None else data[start : start + STAMP_LEN].decode("ascii", "replace")


def view_segments_stamp(data: bytes) -> str | None:
    """The stamp of the journal's segments a view's writer left in it, or `None`."""
    start = _field(data, _SEGMENTS_KEY, DIGEST_LEN)
    return None if start is None else data[start : start + DIGEST_LEN].decode("ascii", "replace")


def file_stamp(st: object) -> str:
    """A file's identity as the view records the index's: inode, size and change time.

    The change time is set by the kernel on every write, rename or chmod and
    cannot be set back by the account, so an index replaced or edited after
    its writer stamped the view does not match.
    """
    return f"{st.st_ino % 10**20:020d}{st.st_size:020d}{st.st_ctime_ns % 10**24:024d}"  # type: ignore[attr-defined]

"""`abcd.digest` gives `hashlib`'s SHA-256 through `_sha256`, in a fresh interpreter on every Python."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from abcd.digest import sha256_hex
from tests.fresh import PYTHONS, run_fresh

PROBE = """
import marshal
from abcd.digest import sha256_hex
out = [sha256_hex(data) for data in marshal.loads(sys.stdin.buffer.read())]
try:
    sha256_hex("text, not bytes")
except TypeError:
    out.append("TypeError")
out.append("hashlib" in sys.modules)
sys.stdout.buffer.write(marshal.dumps(out))
"""


@given(st.binary(max_size=300))
def test_the_digest_is_hashlibs(data: bytes) -> None:
    assert sha256_hex(data) == hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("version", PYTHONS)
def test_a_fresh_interpreter_gives_hashlibs_digest_without_loading_hashlib(version: str) -> None:
    inputs = [b"", b"abc", bytes(range(256)) * 300]
    *digests, refused, loaded = run_fresh(version, PROBE, inputs)
    assert digests == [hashlib.sha256(data).hexdigest() for data in inputs]
    assert refused == "TypeError"  # as hashlib refuses text
    assert loaded is False

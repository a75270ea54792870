"""Fixtures for the rules tests: write a machine or repository `rules.json` as a person would.

Each test's own ABCD_HOME and HOME come from tests/conftest.py (`abcd_home`);
`repo` there is a real git repository and the working folder.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

Write = Callable[[Any], Path]


def _bytes(content: Any) -> bytes:
    if isinstance(content, bytes):
        return content
    return json.dumps(content).encode()


@pytest.fixture
def write_machine(abcd_home: Path) -> Write:
    """Write `<home>/rules.json` (a home of mode 0700, a file of mode 0600)."""

    def write(content: Any) -> Path:
        abcd_home.mkdir(mode=0o700, exist_ok=True)
        os.chmod(abcd_home, 0o700)
        path = abcd_home / "rules.json"
        path.write_bytes(_bytes(content))
        os.chmod(path, 0o600)
        return path

    return write


@pytest.fixture
def write_repo(repo: Path) -> Write:
    """Write `<repo>/.abcd/rules.json`."""

    def write(content: Any) -> Path:
        path = repo / ".abcd" / "rules.json"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(_bytes(content))
        return path

    return write


def domain(**fields: Any) -> dict[str, Any]:
    """A domain object with a rule, so it is not dropped (override what a test needs)."""
    return {"recall": ["test"], "rules": ["Run the tests."], **fields}


@pytest.fixture
def a_domain() -> Callable[..., dict[str, Any]]:
    return domain

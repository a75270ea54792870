"""The desk's tests drive the hooks as the host does (`tests.hook.conftest.Host`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Run
from tests.hook.conftest import Host


@pytest.fixture
def host(abcd: Run, repo: Path) -> Host:
    return Host(abcd, repo)

"""Another account's files, made by handing them over with `os.chown` (the tests run as root)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

OTHER_UID = 12345  # no passwd entry needed: ownership is a number
OWNED_BY_OTHER = f"owned by uid {OTHER_UID}, not you"


def give_away(*paths: Path) -> None:
    """Hand each path (not what is under it) to another account; skips the test unless root."""
    if os.geteuid() != 0:
        pytest.skip("changing a file's owner needs root; CI runs as root")
    for path in paths:
        os.chown(path, OTHER_UID, OTHER_UID, follow_symlinks=False)

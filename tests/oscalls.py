"""A seam on the operating system's calls for tests that watch or fail them.

`os` and `abcd.leanos` (the lean commands' `os`: docs/decisions.md) hold the
same functions, and each module calls them through whichever of the two it
imports, so a test that replaces a call replaces it in both.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from abcd import leanos


def patch_os(patcher: pytest.MonkeyPatch, name: str, value: Any) -> None:
    """`os.<name>` and `abcd.leanos.<name>` set to `value` until `patcher` undoes them."""
    patcher.setattr(os, name, value)
    if hasattr(leanos, name):
        patcher.setattr(leanos, name, value)

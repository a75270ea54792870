"""Fixtures of the real-host suite: the pinned Claude Code CLI, the mock model API, a project.

Every test here runs the real CLI offline, against a mock on 127.0.0.1. Each test
module calls `skip_without_node()` first, so the suite skips, with one line, only
where node or npm is missing; anything else that goes wrong (the install, a run)
fails.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from abcd.cli.plugin_cmd import plugin_dir
from tests.e2e.claude_cli import Claude, InstallFailed, install, trusting_home
from tests.e2e.mock_api import MockApi
from tests.e2e.workspace import new_project, put_abcd_in

SHIPPED = plugin_dir()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "e2e: runs the real Claude Code CLI offline against a loopback mock model API"
    )


@pytest.fixture(scope="session")
def claude_binary() -> Path:
    """The pinned CLI, installed from the npm registry on first use and cached under `.cache/e2e/`."""
    try:
        return install()
    except InstallFailed as err:
        pytest.fail(f"e2e: installing the real Claude Code CLI failed: {err}")


@pytest.fixture(scope="session")
def abcd_on_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return put_abcd_in(tmp_path_factory.mktemp("path") / "bin")


@pytest.fixture
def mock_api() -> Iterator[MockApi]:
    mock = MockApi().start()
    yield mock
    mock.stop()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return new_project(tmp_path / "project")


@pytest.fixture
def claude(
    claude_binary: Path, mock_api: MockApi, project: Path, abcd_home: Path, abcd_on_path: Path
) -> Claude:
    """The real CLI in `project`, with the person's test HOME and this test's ABCD_HOME."""
    home = Path(os.environ["HOME"])
    trusting_home(home, project)
    return Claude(
        binary=claude_binary,
        mock=mock_api,
        project=project,
        home=home,
        abcd_home=abcd_home,
        path_dirs=[abcd_on_path],
    )


@contextmanager
def plugin_host(
    root: Path, claude_binary: Path, abcd_on_path: Path, plugin: Path | None = SHIPPED
) -> Iterator[Claude]:
    """The real CLI with the shipped plugin loaded (or the folder `plugin`, or none), in a project
    of its own under `root` with its own HOME, ABCD_HOME and mock model API (stopped on leaving):
    a module's one story."""
    home = root / "home"
    home.mkdir()
    project = new_project(root / "project")
    trusting_home(home, project)
    mock = MockApi().start()
    try:
        yield Claude(
            binary=claude_binary,
            mock=mock,
            project=project,
            home=home,
            abcd_home=root / "abcd-home",
            path_dirs=[abcd_on_path],
            plugin_dir=plugin,
        )
    finally:
        mock.stop()


def listed_notes(claude: Claude) -> list[dict[str, object]]:
    """Every note `abcd memory list --json` gives in the host's project, as the host's env sees it."""
    out = claude.tool("abcd", "memory", "list", "--json")
    notes: list[dict[str, object]] = json.loads(out.stdout)["notes"]
    return notes

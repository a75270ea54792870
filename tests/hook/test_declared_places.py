"""P5: recall opens only its declared places, with a host memory folder full of matching text nearby."""

from __future__ import annotations

import builtins
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

import abcd.recall.engine
import abcd.session.brackets
import abcd.session.fill
from abcd.host import hook
from tests.oscalls import patch_os

from .conftest import Host, page, project_notes, rules
from .transcript import FRESH, transcript


def _where(path: Any, dir_fd: int | None) -> str:
    text = os.fsdecode(path)
    if dir_fd is not None and not os.path.isabs(text):
        text = os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), text)
    return os.path.realpath(text)


def test_p5_recall_opens_only_the_declared_places(
    host: Host, repo: Path, abcd_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    person = Path(os.environ["HOME"])
    host_memory = person / ".claude" / "projects" / "-work-project" / "memory"
    host_memory.mkdir(parents=True)
    for n in range(5):
        (host_memory / f"ref_test_{n}.md").write_text(
            "---\nrecall: [test]\nsummary: test test\n---\ntest\n"
        )
    (person / ".claude" / "CLAUDE.md").write_text("test " * 100)
    (repo / "CLAUDE.md").write_text("test " * 100)
    mine = host.note("The tests need the race flag", "Use -race.", "test")
    page(
        repo / ".abcd" / "memory", "ref_test_matrix.md", ["test"], "Test matrix", "Linux and macOS."
    )
    page(abcd_home / "memory", "ref_test_machine.md", ["test"], "Machine test page", "Machine.")
    project_notes(
        repo,
        {"id": "mem-2611010000001234", "title": "Test from main", "body": "b", "recall": ["test"]},
    )
    rules(repo / ".abcd", {"TESTING": {"recall": ["test"], "rules": ["Run with -race."]}})
    rules(abcd_home, {"STYLE": {"recall": ["style"], "rules": ["Short lines."]}})
    the_transcript = transcript(tmp_path, FRESH)
    host.start()
    assert (
        abcd.recall.engine and abcd.session.fill and abcd.session.brackets
    )  # imported before recording

    opened: list[str] = []
    real_open, real_builtin_open = os.open, builtins.open

    def recording_open(
        path: Any, flags: int, mode: int = 0o777, *, dir_fd: int | None = None
    ) -> int:
        opened.append(_where(path, dir_fd))
        return real_open(path, flags, mode, dir_fd=dir_fd)

    def recording_builtin_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(file, int):
            opened.append(_where(file, None))
        return real_builtin_open(file, *args, **kwargs)

    payload = {
        "session_id": "s1",
        "cwd": str(repo),
        "prompt": "run the test suite",
        "transcript_path": the_transcript,
    }
    out, err = io.StringIO(), io.StringIO()
    with monkeypatch.context() as patched:  # (`undo` would undo the suite's ABCD_HOME too)
        patch_os(patched, "open", recording_open)
        patched.setattr(builtins, "open", recording_builtin_open)
        payload_bytes = io.BytesIO(json.dumps(payload).encode())
        assert hook.main(["prompt-router", "--json"], payload_bytes, out, err) == 0

    recalled = {r["key"] for r in json.loads(out.getvalue())["recalled"]}
    assert recalled == {
        "mem-2611010000001234",
        "page:ref_test_matrix.md",
        "page:ref_test_machine.md",
        mine,
    }
    home, top = os.path.realpath(abcd_home), os.path.realpath(repo)
    declared = [
        home,
        f"{home}/memory.json",
        f"{home}/rules.json",
        f"{home}/journal",
        f"{home}/memory",
        f"{home}/sessions",
        f"{home}/fill",
        f"{home}/cache",
        f"{top}/.abcd/memory.json",
        f"{top}/.abcd/rules.json",
        f"{top}/.abcd/memory",
        os.path.realpath(the_transcript),
    ]
    # Folders opened only to check who owns them, nothing under them read but the declared places.
    checked = [top, f"{top}/.abcd"]
    assert opened, "the seam recorded nothing"
    for path in opened:
        assert path in checked or any(path == d or path.startswith(d + "/") for d in declared), (
            f"opened an undeclared place: {path}"
        )
    assert not [p for p in opened if "/.claude" in p or p.endswith("CLAUDE.md")]
    assert any(p.startswith(f"{home}/journal/") for p in opened)
    assert any(p.startswith(f"{top}/.abcd/memory/") for p in opened)

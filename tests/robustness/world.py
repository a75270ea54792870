"""A home and a repository where one prompt brings back something from every layer, and the
bad-bytes cases run against it through `driver.py` in a fresh interpreter.

Every layer answers "deploy the service": a rule domain in each `rules.json`,
a personal note (journal, view, index), a project note, a workspace page and
a machine page. A shape is one real file or payload; breaking it may cost
only what it owns, and the reader must name it when its bytes are bad.
"""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.conftest import BY

SRC = Path(__file__).resolve().parents[2] / "src"
DRIVER = Path(__file__).with_name("driver.py")
DATA = Path(__file__).with_name("data")
HOST_DATA = Path(__file__).parents[1] / "host" / "data"
TRANSCRIPTS = Path(__file__).parents[1] / "session" / "data"

PROMPT = "deploy the service"
PROJECT_NOTE = "mem-2611010000001234"
DOMAINS = frozenset({"MACHINE_DEPLOY", "REPO_DEPLOY"})
PAGES = frozenset({"page:ref_deploy_workspace.md", "page:ref_deploy_machine.md"})
SESSION = "81a58265-1582-4b11-a1c1-a189428dc1c3"  # the captured payload's


def _write(path: Path, data: bytes | str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    path.chmod(0o600)


def _rules(domain: str) -> str:
    return json.dumps(
        {
            "schema_version": 1,
            "disabled": False,
            "domains": {domain: {"recall": ["deploy"], "rules": [f"{domain} rule one"]}},
        },
        indent=2,
    )


def _page(summary: str) -> str:
    return f"---\nrecall: [deploy, release]\nsummary: {summary}\n---\n# {summary}\nTag first.\n"


@dataclass(repr=False)
class World:
    """The paths, the personal note's id and the bytes every shape starts from."""

    home: Path
    repo: Path
    note: str
    transcript: Path
    env: dict[str, str]
    base: dict[str, bytes] = field(default_factory=dict)
    session_file: str = ""
    fill_file: str = ""
    caches: dict[str, bytes] = field(default_factory=dict)

    @property
    def everything(self) -> frozenset[str]:
        return DOMAINS | PAGES | {PROJECT_NOTE, self.note}

    def payload(self, **changes: Any) -> bytes:
        """The captured UserPromptSubmit payload, pointed at this world."""
        data = json.loads((DATA / "hook_UserPromptSubmit.json").read_text())
        data.update(cwd=str(self.repo), prompt=PROMPT, transcript_path=str(self.transcript))
        data.update(changes)
        return json.dumps(data, indent=4).encode()

    def run(self, cases: list[dict[str, Any]], tmp: Path) -> list[dict[str, Any]]:
        """Each case through the real entry point, all in one fresh `python -I`."""
        batch = tmp / "cases.marshal"
        batch.write_bytes(marshal.dumps(cases))
        done = subprocess.run(
            [sys.executable, "-I", str(DRIVER), str(SRC), str(batch)],
            capture_output=True,
            cwd=self.repo,
            env=self.env,
            timeout=600,
            check=False,
        )
        assert done.returncode == 0, done.stderr.decode(errors="replace")
        results: list[dict[str, Any]] = marshal.loads(done.stdout)
        return results


def make_world(tmp: Path, repo: Path, abcd: Callable[..., Any]) -> World:
    """Every layer, in the `repo` fixture's repository and the test's home."""
    home = Path(os.environ["ABCD_HOME"])
    added = abcd(
        "memory",
        "add",
        "--title",
        "Deploys need a tag",
        "--recall",
        "deploy",
        "--everywhere",
        "--by",
        BY,
        stdin="Tag the release before you deploy.",
        cwd=repo,
    )
    assert added.code == 0, added.err
    note = added.out.split()[0]
    _write(home / "rules.json", _rules("MACHINE_DEPLOY"))
    _write(home / "memory" / "ref_deploy_machine.md", _page("Machine deploy page"))
    _write(repo / ".abcd" / "rules.json", _rules("REPO_DEPLOY"))
    _write(repo / ".abcd" / "memory" / "ref_deploy_workspace.md", _page("Workspace deploy page"))
    project = {
        "schema_version": 1,
        "notes": [
            {
                "id": PROJECT_NOTE,
                "title": "Deploy from main only",
                "body": "Only main is deployed.",
                "recall": ["deploy"],
            }
        ],
    }
    _write(repo / ".abcd" / "memory.json", json.dumps(project, indent=2))
    # Old enough for the repository cache to keep what it parsed (a file just written is racy).
    for path in (repo / ".abcd").rglob("*"):
        os.utime(path, (time.time() - 60, time.time() - 60))
    transcript = tmp / "transcript.jsonl"
    _write(transcript, (TRANSCRIPTS / "transcript_sample_interactive.jsonl").read_bytes())
    world = World(home=home, repo=repo, note=note, transcript=transcript, env=dict(os.environ))
    _capture(world, abcd)
    return world


def _capture(world: World, abcd: Callable[..., Any]) -> None:
    """The bytes every shape starts from: files as written above, and the session and fill lines,
    caches and index as the real hook and status line leave them."""
    home, repo = world.home, world.repo
    for path in (
        home / "rules.json",
        repo / ".abcd" / "rules.json",
        repo / ".abcd" / "memory.json",
        repo / ".abcd" / "memory" / "ref_deploy_workspace.md",
        home / "memory" / "ref_deploy_machine.md",
        home / "memory.json",
        home / "memory.idx",
        world.transcript,
    ):
        world.base[str(path)] = path.read_bytes()
    start = {"session_id": SESSION, "cwd": str(repo), "source": "startup"}
    assert abcd("hook", "session-start", stdin=json.dumps(start), cwd=repo).code == 0
    quiet = world.payload(prompt="nothing to bring back").decode()
    assert abcd("hook", "prompt-router", stdin=quiet, cwd=repo).code == 0
    for used in (12, 55):
        status = json.loads((HOST_DATA / "statusline_after_turn1.json").read_text())
        status["session_id"] = SESSION
        status["context_window"]["used_percentage"] = used
        assert abcd("statusline", stdin=json.dumps(status), cwd=repo).code == 0
    (session_file,) = files_of(home, "sessions").items()
    (fill_file,) = files_of(home, "fill").items()
    world.base.update([session_file, fill_file])
    world.session_file, world.fill_file = session_file[0], fill_file[0]
    for folder in ("sessions", "fill"):
        for path in (home / folder).iterdir():
            path.unlink()
    assert abcd("hook", "prompt-router", stdin=world.payload().decode(), cwd=repo).code == 0
    world.caches = files_of(home, "cache")
    assert len(world.caches) == 3, world.caches.keys()  # parsed files, forwards, the reach's table
    for folder in ("sessions", "cache"):
        for path in (home / folder).iterdir():
            path.unlink()


def files_of(home: Path, folder: str) -> dict[str, bytes]:
    found = home / folder
    return {str(p): p.read_bytes() for p in sorted(found.iterdir())} if found.is_dir() else {}


def hook_case(world: World, files: dict[str, bytes], stdin: bytes | None = None) -> dict[str, Any]:
    return {
        "entry": "hook",
        "argv": ["prompt-router", "--json"],
        "stdin": world.payload() if stdin is None else stdin,
        "files": files,
    }


def statusline_case(stdin: bytes) -> dict[str, Any]:
    return {"entry": "statusline", "argv": [], "stdin": stdin, "files": {}}


def is_json(data: bytes) -> bool:
    """What the standard library's own reader says (UTF-8 only, as every file here is)."""
    try:
        json.loads(data.decode("utf-8"))
    except ValueError:
        return False
    return True


def bad_lines(data: bytes) -> bool:
    """Whether a complete line of a JSON-lines file is not a JSON object."""
    complete = data[: data.rfind(b"\n") + 1]
    for line in complete.splitlines():
        if not line.strip():
            continue
        try:
            if not isinstance(json.loads(line.decode("utf-8")), dict):
                return True
        except ValueError:
            return True
    return False


def is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


__all__ = ["BY", "World", "make_world"]

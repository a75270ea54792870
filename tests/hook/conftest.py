"""Driving the hooks as the host does: a JSON payload on stdin, the real `abcd` command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import BY, Run


class Host:
    """A stand-in for Claude Code: sends hook payloads for one checkout."""

    def __init__(self, abcd: Run, cwd: Path) -> None:
        self.abcd = abcd
        self.cwd = cwd

    def start(self, session: str = "s1", source: str = "startup") -> None:
        payload = {
            "session_id": session,
            "cwd": str(self.cwd),
            "hook_event_name": "SessionStart",
            "source": source,
        }
        result = self.abcd("hook", "session-start", stdin=json.dumps(payload))
        assert result.code == 0, result.err

    def compact(self, session: str = "s1") -> None:
        payload = {
            "session_id": session,
            "cwd": str(self.cwd),
            "hook_event_name": "PreCompact",
            "trigger": "manual",
        }
        assert self.abcd("hook", "pre-compact", stdin=json.dumps(payload)).code == 0

    def prompt(self, text: str, session: str | None = "s1", **extra: Any) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "cwd": str(self.cwd),
            "hook_event_name": "UserPromptSubmit",
            "prompt": text,
        }
        if session is not None:
            payload["session_id"] = session
        payload.update(extra)
        result = self.abcd("hook", "prompt-router", "--json", stdin=json.dumps(payload))
        assert result.code == 0, result.err
        envelope: dict[str, Any] = json.loads(result.out)
        envelope["stderr"] = result.err
        return envelope

    def plain(self, text: str, session: str = "s1") -> tuple[str, str]:
        payload = {"session_id": session, "cwd": str(self.cwd), "prompt": text}
        result = self.abcd("hook", "prompt-router", stdin=json.dumps(payload))
        assert result.code == 0
        return result.out, result.err

    def note(
        self, title: str, body: str, *recall: str, everywhere: bool = False, cwd: Path | None = None
    ) -> str:
        args = ["memory", "add", "--title", title, "--by", BY]
        for word in recall:
            args += ["--recall", word]
        if everywhere:
            args.append("--everywhere")
        result = self.abcd(*args, stdin=body, cwd=cwd or self.cwd)
        assert result.code == 0, result.err
        return result.out.strip()


@pytest.fixture
def host(abcd: Run, repo: Path) -> Host:
    return Host(abcd, repo)


def page(folder: Path, name: str, recall: list[str] | None, summary: str, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    front = ["---"]
    if recall is not None:
        front.append(f"recall: [{', '.join(recall)}]")
    front += [f"summary: {summary}", "---"]
    path = folder / name
    path.write_text("\n".join([*front, body, ""]))
    path.chmod(0o600)
    return path


def rules(folder: Path, domains: dict[str, Any], disabled: bool = False) -> None:
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = folder / "rules.json"
    path.write_text(json.dumps({"schema_version": 1, "disabled": disabled, "domains": domains}))
    path.chmod(0o600)


def project_notes(repo: Path, *notes: dict[str, Any]) -> None:
    (repo / ".abcd").mkdir(exist_ok=True)
    (repo / ".abcd" / "memory.json").write_text(
        json.dumps({"schema_version": 1, "notes": list(notes)})
    )


def keys(envelope: dict[str, Any]) -> list[str]:
    return [r["key"] for r in envelope["recalled"]]

"""The hook's output stays within what the host keeps whole, and what did not fit comes back later.

Claude Code 2.1.197 hands the model a hook's output whole only up to 10,000
characters (`shared/host/README.md`). Each test runs the real commands as the
host does: `abcd hook session-start`, `abcd statusline` with a status payload
whose `used_percentage` is low (a fresh window, where notes come in full),
then `abcd hook prompt-router` with the prompt's payload.
"""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import pytest

from abcd.recall.budget import HOST_CONTEXT_ENV, host_len
from abcd.recall.constants import HOST_CONTEXT_CHARS
from tests.conftest import Result, Run
from tests.host.helpers import with_used

from .conftest import project_notes
from .deploys import PROMPT, TOP_BODY, far_more_than_the_host_keeps

DID_NOT_FIT = re.compile(r"did not fit, not sent \[([^\]]*)\]")
LEFT_OUT = re.compile(r"rules left out \[([^\]]*)\]")


class Session:
    """One host session in the repository: its id, and the commands the host runs for it."""

    def __init__(self, abcd: Run, repo: Path, env: dict[str, str] | None = None) -> None:
        self.abcd, self.repo, self.env = abcd, repo, env or {}
        self.id = str(uuid.uuid4())

    def payload(self, **fields: Any) -> str:
        return json.dumps({"session_id": self.id, "cwd": str(self.repo), **fields})

    def start_fresh(self) -> None:
        """The session starts, and the status line reads 3% of the window used."""
        started = self.abcd("hook", "session-start", stdin=self.payload(source="startup"))
        assert started.code == 0, started.err
        row = self.abcd("statusline", stdin=with_used(3, self.id).decode())
        assert row.code == 0 and row.err == "", row.err

    def prompt(self, text: str, *flags: str) -> Result:
        result = self.abcd(
            "hook", "prompt-router", *flags, stdin=self.payload(prompt=text), env=self.env
        )
        assert result.code == 0, result.err
        return result


def fresh_checkout(abcd: Run, repo: Path, env: dict[str, str] | None = None) -> tuple[str, Session]:
    """The checkout that matches far more than the host keeps, in a fresh session; the top note."""
    top = far_more_than_the_host_keeps(abcd, repo)
    session = Session(abcd, repo, env)
    session.start_fresh()
    return top, session


def names(pattern: re.Pattern[str], stderr: str) -> list[str]:
    found = pattern.search(stderr)
    if found is None:
        return []
    return [entry.split(" (")[0] for entry in found.group(1).split(", ")]


def recorded(home: Path, kind: str, field: str) -> set[str]:
    """What the session files record as sent: `kind` events' `field`."""
    found = set()
    for path in (home / "sessions").glob("*.jsonl"):
        for line in path.read_text().splitlines():
            event = json.loads(line)
            if event["type"] == kind:
                found.add(event["data"][field])
    return found


def recalled_in_ledger(home: Path) -> set[str]:
    return recorded(home, "item.recalled", "key")


def injected_in_ledger(home: Path) -> set[str]:
    return recorded(home, "domain.injected", "name")


def test_a_fresh_window_with_far_more_matching_than_the_host_keeps_prints_within_its_limit(
    abcd: Run, repo: Path, abcd_home: Path
) -> None:
    top, session = fresh_checkout(abcd, repo)

    printed = session.prompt(PROMPT)

    assert host_len(printed.out) <= HOST_CONTEXT_CHARS
    assert f"### {top} (personal note, agent-written): Canary deploys go zone by zone" in (
        printed.out
    )
    assert TOP_BODY.strip() in printed.out  # the first-ranked note, in full
    assert "INJECTION TRUNCATED" in printed.out
    assert re.search(r"^- mem-26110100000\d{5} \(project note", printed.out, re.M), (
        "past the floor's full notes, the rest go as one line each"
    )


def test_what_did_not_fit_is_named_on_stderr_not_recorded_and_comes_back_next_prompt(
    abcd: Run, repo: Path, abcd_home: Path
) -> None:
    top, session = fresh_checkout(abcd, repo)

    first = session.prompt(PROMPT)
    missed = names(DID_NOT_FIT, first.err)
    left_out = names(LEFT_OUT, first.err)

    assert missed and left_out, first.err
    assert f"within the host's {HOST_CONTEXT_CHARS} characters" in first.err
    assert not set(missed) & recalled_in_ledger(abcd_home)
    assert top in recalled_in_ledger(abcd_home)
    assert not any(f"## {name}\n" in first.out for name in left_out)
    assert not set(left_out) & injected_in_ledger(abcd_home)

    again = json.loads(session.prompt(PROMPT, "--json").out)

    came_back = [r["key"] for r in again["recalled"]]
    assert missed[0] in came_back
    assert top not in came_back
    assert left_out[0] in again["injected"]
    assert host_len(again["text"] + "\n") <= HOST_CONTEXT_CHARS


def test_abcd_host_context_chars_sets_another_hosts_limit(
    abcd: Run, repo: Path, abcd_home: Path
) -> None:
    top, session = fresh_checkout(abcd, repo, env={HOST_CONTEXT_ENV: "4000"})

    printed = session.prompt(PROMPT)

    assert 3_000 < host_len(printed.out) <= 4_000
    # The rules leave memory a quarter (1,000 characters): the top note's block is larger, so it
    # goes as one line.
    assert f"\n- {top} (personal note, agent-written): Canary deploys" in printed.out
    assert "within the host's 4000 characters" in printed.err


@pytest.mark.parametrize("bad", ["lots", "-5", "999", "2e4", "1000001", "１２０００"])
def test_a_bad_abcd_host_context_chars_is_one_line_and_the_measured_limit_is_used(
    abcd: Run, repo: Path, abcd_home: Path, bad: str
) -> None:
    _, session = fresh_checkout(abcd, repo, env={HOST_CONTEXT_ENV: bad})

    printed = session.prompt(PROMPT)

    complaints = [line for line in printed.err.splitlines() if HOST_CONTEXT_ENV in line]
    assert len(complaints) == 1
    assert "using 10000 (measured on Claude Code 2.1.197)" in complaints[0]
    assert 8_000 < host_len(printed.out) <= HOST_CONTEXT_CHARS


def test_characters_outside_the_bmp_count_two_as_the_host_counts_them(
    abcd: Run, repo: Path, abcd_home: Path
) -> None:
    face = "\U0001f600"
    project_notes(
        repo,
        *(
            {
                "id": f"mem-26110100000{n:05}",
                "title": f"Deploy faces {n}",
                "body": face * 900,  # 900 characters, 1,800 UTF-16 code units
                "recall": ["deploy"],
            }
            for n in range(12)
        ),
    )
    session = Session(abcd, repo)
    session.start_fresh()

    printed = session.prompt("deploy")

    assert len(printed.out) < host_len(printed.out) <= HOST_CONTEXT_CHARS
    assert printed.out.count(face * 900) == 5  # 5 x 1,800 units fit in 10,000; 6 would not

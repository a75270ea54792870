"""`abcd hook pre-tool-use` as the host runs it: a fresh process, the payload on stdin.

It prints the host's allow decision for a note-writing command and nothing
for anything else, always exits 0, and loads nothing but its two readers.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from abcd.host.hook import NEVER_LOADED

DATA = Path(__file__).parent / "data"
SRC = Path(__file__).resolve().parents[2] / "src"
CAPTURED = json.loads((DATA / "hook_PreToolUse_bash.json").read_text())
NOTE = CAPTURED["tool_input"]["command"]


def payload(**changes: object) -> str:
    """The captured PreToolUse payload, with top-level fields changed (None removes one)."""
    data = dict(CAPTURED)
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return json.dumps(data)


def with_command(command: str, **changes: object) -> str:
    return payload(tool_input={"command": command, "description": "run a command"}, **changes)


def hook(stdin: str | bytes, *args: str) -> subprocess.CompletedProcess[str]:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    done = subprocess.run(
        [sys.executable, "-m", "abcd", "hook", "pre-tool-use", *args],
        input=data,
        capture_output=True,
        timeout=60,
        check=False,
    )
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
    )


def test_a_note_writing_command_is_allowed_with_the_hosts_decision_shape() -> None:
    out = hook(payload())

    assert out.returncode == 0
    assert out.stderr == ""
    decision = json.loads(out.stdout)["hookSpecificOutput"]
    assert decision["hookEventName"] == "PreToolUse"
    assert decision["permissionDecision"] == "allow"
    assert "abcd memory add" in decision["permissionDecisionReason"]
    assert out.stdout.count("\n") == 1


@pytest.mark.parametrize(
    "command",
    [
        "touch x",
        NOTE + " && touch y",
        NOTE + "; rm -rf x",
        "abcd memory remove mem-0000000000000000 --by Claude:claude-opus-4-8",
        "abcd memory import notes.jsonl --by Claude:claude-opus-4-8",
    ],
)
def test_any_other_command_gets_no_decision_and_no_words(command: str) -> None:
    out = hook(with_command(command))

    assert (out.returncode, out.stdout, out.stderr) == (0, "", "")


@pytest.mark.parametrize(
    "changes",
    [
        {"tool_name": "Write"},
        {"hook_event_name": "PostToolUse"},
        {"permission_mode": "plan"},
        {"permission_mode": "bypassPermissions"},
        {"permission_mode": "dontAsk"},
        {"permission_mode": "a mode from a newer host"},
        {"permission_mode": ["default"]},
        {"tool_name": {"Bash": True}},
        {"tool_input": None},
        {"tool_input": {"command": ["abcd", "memory", "add"]}},
        {"tool_input": "abcd memory add"},
        {"tool_input": dict(CAPTURED["tool_input"], dangerouslyDisableSandbox=True)},
        {"tool_input": dict(CAPTURED["tool_input"], an_input_from_a_newer_host=1)},
    ],
    ids=repr,
)
def test_the_same_command_outside_a_bash_call_in_an_asking_mode_gets_no_decision(
    changes: dict[str, object],
) -> None:
    out = hook(payload(**changes))

    assert (out.returncode, out.stdout) == (0, "")


@pytest.mark.parametrize(
    "extra",
    [{"timeout": 120000}, {"run_in_background": True}, {"dangerouslyDisableSandbox": False}],
)
def test_inputs_that_do_not_change_the_command_keep_the_decision(extra: dict[str, object]) -> None:
    assert hook(payload(tool_input=dict(CAPTURED["tool_input"], **extra))).stdout


@pytest.mark.parametrize("mode", ["default", "acceptEdits", None])
def test_the_asking_modes_and_a_host_that_names_none_are_decided(mode: str | None) -> None:
    assert hook(payload(permission_mode=mode)).stdout


@pytest.mark.parametrize(
    "stdin", [b"not json", b"[1, 2]", b'"a string"', b"\xff\xfe", b"{" * 3_000_000]
)
def test_a_bad_payload_is_one_stderr_line_no_decision_and_exit_0(stdin: bytes) -> None:
    out = hook(stdin)

    assert (out.returncode, out.stdout) == (0, "")
    assert len(out.stderr.splitlines()) == 1
    assert out.stderr.startswith("abcd memory: hook pre-tool-use made no decision")


def test_an_empty_payload_gets_no_decision_quietly() -> None:
    out = hook(b"")

    assert (out.returncode, out.stdout, out.stderr) == (0, "", "")


def test_an_argument_is_refused_in_one_line_without_a_decision() -> None:
    out = hook(payload(), "--json")

    assert (out.returncode, out.stdout) == (0, "")
    assert "takes no arguments" in out.stderr


def test_the_hook_loads_only_its_payload_and_command_readers() -> None:
    code = (
        f"import sys; sys.path.insert(0, {str(SRC)!r}); import abcd.host.pretool; "
        "print('\\n'.join(sorted(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True
    )
    loaded = set(done.stdout.split())

    assert sorted(m for m in loaded if m.startswith("abcd")) == [
        "abcd",
        "abcd.errors",
        "abcd.fastjson",
        "abcd.host",
        "abcd.host.note_command",
        "abcd.host.payload",
        "abcd.host.pretool",
        "abcd.value",
    ]
    assert sorted(m for m in loaded if m.split(".")[0] in NEVER_LOADED) == []

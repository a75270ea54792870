"""The issue's cases end to end, each a real `abcd` process as the host or a person starts it.

A trailing comma in a rules file, a cut-short project memory file, a torn
payload, a lone surrogate, a closed stdout, a FIFO given to `import`: one
line naming what is wrong, the other layers still recalled, the hook and the
status line exit 0, nothing hangs and nothing prints a traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import BY, Run

from .world import DOMAINS, HOST_DATA, PROJECT_NOTE, World, make_world


@pytest.fixture
def world(tmp_path: Path, abcd: Run, repo: Path) -> World:
    return make_world(tmp_path, repo, abcd)


def hook(world: World, *extra: str) -> tuple[int, dict[str, object], str]:
    done = subprocess.run(
        [sys.executable, "-m", "abcd", "hook", "prompt-router", "--json", *extra],
        input=world.payload(),
        capture_output=True,
        cwd=world.repo,
        timeout=60,
        check=False,
    )
    return done.returncode, json.loads(done.stdout), done.stderr.decode()


def back(envelope: dict[str, object]) -> set[str]:
    injected = envelope["injected"]
    recalled = envelope["recalled"]
    assert isinstance(injected, list) and isinstance(recalled, list)
    return set(injected) | {r["key"] for r in recalled}


def one_line_naming(err: str, name: str) -> None:
    assert "Traceback" not in err, err
    assert any(name in line for line in err.splitlines()), err


def test_a_trailing_comma_in_the_machine_rules_costs_only_that_layer(
    world: World, abcd: Run
) -> None:
    rules = world.home / "rules.json"
    text = rules.read_text().rstrip()
    rules.write_text(text[:-1].rstrip() + ",\n}\n")  # a trailing comma before the last brace
    code, envelope, err = hook(world)
    assert code == 0
    assert back(envelope) == world.everything - {"MACHINE_DEPLOY"}
    one_line_naming(err, str(rules))
    for args in (("rules",), ("rules", "--prompt", "deploy the service"), ("rules", "REPO_DEPLOY")):
        result = abcd(*args, cwd=world.repo)
        assert result.code == 1, args
        one_line_naming(result.err, str(rules))
    assert world.note in abcd("memory", "list", cwd=world.repo).out


def test_a_cut_short_project_memory_file_leaves_rules_machine_notes_and_pages(
    world: World, abcd: Run
) -> None:
    project = world.repo / ".abcd" / "memory.json"
    project.write_bytes(project.read_bytes()[:40])
    code, envelope, err = hook(world)
    assert code == 0
    assert back(envelope) == world.everything - {PROJECT_NOTE}
    assert back(envelope) >= DOMAINS
    one_line_naming(err, str(project))
    listed = abcd("memory", "list", cwd=world.repo)
    assert listed.code == 1 and world.note in listed.out
    one_line_naming(listed.err, str(project))
    diagnosed = abcd("rules", "--prompt", "deploy the service", cwd=world.repo)
    assert "MACHINE_DEPLOY" in diagnosed.out and world.note in diagnosed.out
    one_line_naming(diagnosed.err, str(project))


def test_a_torn_hook_payload_is_named_and_exits_0(world: World) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "abcd", "hook", "prompt-router"],
        input=world.payload()[:-30],
        capture_output=True,
        cwd=world.repo,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and done.stdout == b""
    (line,) = done.stderr.decode().splitlines()
    assert line.startswith("abcd memory: hook payload is not JSON (")


def test_payload_fields_the_hook_cannot_use_are_named_in_one_line(world: World) -> None:
    """`{"prompt": 5}` or a session id of another shape was taken as no prompt, or no session
    (every item sent again on every prompt), and nothing was said."""
    for fields, said in (
        ({"prompt": 5}, "prompt is not text (int)"),
        ({"session_id": "a:b"}, "session_id 'a:b' is not a session id"),
        ({"cwd": "/tmp/\x00x"}, "cwd is not a path the system takes"),
    ):
        payload = {"session_id": "s-fields", "cwd": str(world.repo), "prompt": "deploy"}
        payload.update(fields)
        done = subprocess.run(
            [sys.executable, "-m", "abcd", "hook", "prompt-router"],
            input=json.dumps(payload).encode(), capture_output=True, cwd=world.repo, timeout=60,
            check=False,
        )  # fmt: skip
        assert done.returncode == 0, fields
        lines = [ln for ln in done.stderr.decode().splitlines() if "hook payload:" in ln]
        assert len(lines) == 1 and said in lines[0], (fields, done.stderr)


def test_the_hook_with_stdout_or_stdin_closed_exits_0(world: World, tmp_path: Path) -> None:
    payload = tmp_path / "payload.json"
    payload.write_bytes(world.payload())
    abcd = f"{sys.executable} -m abcd hook prompt-router"
    for redirect in (f"<{payload} >&-", "<&-", f"<{payload} >&- 2>&-"):
        done = subprocess.run(
            ["sh", "-c", f"{abcd} {redirect}"],
            capture_output=True,
            cwd=world.repo,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, (redirect, done.stderr)
        assert b"Traceback" not in done.stderr, redirect


def statusline(stdin: bytes, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "abcd", "statusline"],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    "model",
    [b'"\\ud800"', b'"abc\\udfffdef"', b'"\xff\xfe raw bytes"', b'"\xed\xa0\x80"'],
    ids=["escaped-lone-surrogate", "escaped-low-surrogate", "raw-invalid-utf8", "raw-surrogate"],
)
def test_the_status_line_prints_its_row_whatever_the_model_name_holds(
    model: bytes, tmp_path: Path
) -> None:
    capture = (HOST_DATA / "statusline_after_turn1.json").read_bytes()
    name = json.loads(capture)["model"]["display_name"]
    data = capture.replace(json.dumps(name).encode(), model)
    assert data != capture
    done = statusline(data, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count(b"\n") == 1 and b"used" in done.stdout
    assert b"Traceback" not in done.stderr


def test_a_cut_short_status_payload_still_prints_the_row(tmp_path: Path) -> None:
    capture = (HOST_DATA / "statusline_after_turn2.json").read_bytes()
    done = statusline(capture[: len(capture) // 2], tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"--% used\n", b"")


def test_import_refuses_a_fifo_nobody_writes_instead_of_waiting_for_ever(
    abcd: Run, tmp_path: Path
) -> None:
    fifo = tmp_path / "notes.jsonl"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "abcd", "memory", "import", str(fifo), "--by", BY],
        capture_output=True,
        text=True,
        timeout=30,  # it used to wait here for a writer that never came
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"abcd: refused: {fifo}: not a regular file (to import from a pipe, pass - and feed it "
        "on stdin)"
    ]


def test_import_reads_a_pipe_given_as_stdin(abcd: Run, tmp_path: Path) -> None:
    line = json.dumps(
        {"title": "Piped", "body": "From a pipe.", "recall": ["pipe"], "everywhere": True}
    )
    result = abcd("memory", "import", "-", "--by", BY, stdin=line + "\n")
    assert result.code == 0, result.err
    assert "imported 1 note(s)" in result.err

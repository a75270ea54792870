#!/usr/bin/env python3
"""Benchmarks for how full the session is (SPEC section 9: the fill adds at most 2 ms to the hook).

    .venv/bin/python tools/bench_fill.py            # everything
    .venv/bin/python tools/bench_fill.py fill       # current_fill, in-process medians
    .venv/bin/python tools/bench_fill.py import     # import cost of the fill, brackets, status line
    .venv/bin/python tools/bench_fill.py statusline # `abcd statusline` as a process, end to end

Figures go to stdout; docs/fill.md records them with this command. Never a
test: timings on shared machines are noisy. Import figures are taken with a
bytecode cache in a temporary folder (as an installed package has one),
and once more compiling from source, as a checkout without `__pycache__` does.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

PY = sys.executable
SRC = str(Path(__file__).resolve().parent.parent / "src")
sys.path.insert(0, SRC)

from abcd.session.brackets import Bracket, bracket_for  # noqa: E402
from abcd.session.events import (  # noqa: E402
    FillRead,
    ItemRecalled,
    PromptSeen,
    SessionEvent,
    SessionReset,
)
from abcd.session.files import FILL_DIR, SESSIONS_DIR, append_events  # noqa: E402
from abcd.session.fill import TRANSCRIPT_TAIL_BYTES, current_fill, ensure_fill_folder  # noqa: E402
from abcd.trust import Home  # noqa: E402

SESSION = "e2f55c36-1f23-4a5d-ba05-0f8863248897"


def median_ms(fn: Callable[[], object], runs: int = 1000) -> float:
    for _ in range(50):
        fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def _line(entry: dict[str, object]) -> bytes:
    return json.dumps(entry, separators=(",", ":")).encode() + b"\n"


def _reply(used: int, *, sidechain: bool = False, model: str = "claude-opus-4-8") -> bytes:
    return _line(
        {
            "parentUuid": "p",
            "isSidechain": sidechain,
            "type": "assistant",
            "message": {
                "id": "msg_x",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [{"type": "tool_use", "name": "Bash", "input": {"command": "ls " * 40}}],
                "usage": {
                    "input_tokens": used,
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": 0,
                    "output_tokens": 20,
                },
            },
        }
    )


def _tool_result(size: int) -> bytes:
    return _line(
        {
            "type": "user",
            "isSidechain": False,
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "content": "x" * size}],
            },
        }
    )


def typical_transcript(path: Path) -> None:
    """1 MiB of replies and tool results of a few KiB; the last line a tool result."""
    with path.open("wb") as out:
        while out.tell() < 1024 * 1024:
            out.write(_reply(90_000) + _tool_result(3000))


def tail_of(path: Path, filler: bytes) -> None:
    """The one main-chain reply at the very start of the tail, then 256 KiB of `filler` lines."""
    body = filler * (TRANSCRIPT_TAIL_BYTES // len(filler) - 1)
    with path.open("wb") as out:
        out.write(_tool_result(2 * 1024 * 1024))
        out.write(_reply(90_000))
        out.write(body)


def bench_fill(tmp: Path) -> None:
    home_path = tmp / "home"
    home = Home.open(str(home_path), create=True)
    assert home is not None
    ensure_fill_folder(home)
    # A session well under way: 15 prompts' worth of session events, 40 readings.
    events: list[SessionEvent] = [SessionReset(reason="session-start:startup")]
    for n in range(15):
        events += [
            PromptSeen(),
            ItemRecalled(key=f"note:mem-{n:016d}", signature="s" * 16, form="full"),
        ]
    append_events(home, SESSIONS_DIR, SESSION, events)
    for used in range(40):
        append_events(home, FILL_DIR, SESSION, [FillRead(used_percentage=float(used))])
    typical, sidechains, worst = tmp / "typical.jsonl", tmp / "side.jsonl", tmp / "worst.jsonl"
    typical_transcript(typical)
    # Subagent replies are passed over before decoding.
    tail_of(sidechains, _reply(10_000, sidechain=True))
    # Replies the host made up are decoded, then passed over: every line is decoded.
    tail_of(worst, _reply(0, model="<synthetic>"))
    other = "0a6c2d9e-0000-4000-8000-000000000000"  # a session with no readings

    def case(session: str | None, transcript: Path | None) -> Callable[[], Bracket]:
        path = str(transcript) if transcript else None
        return lambda: bracket_for(current_fill(home, session, path))

    rows = [
        ("(a) a status line reading (40 readings, 31 session events)", case(SESSION, typical)),
        ("(b) no reading, 1 MiB transcript, typical lines", case(other, typical)),
        ("(b') no reading, a 256 KiB tail of subagent replies", case(other, sidechains)),
        ("(b'') no reading, worst: every line of 256 KiB decoded", case(other, worst)),
        ("(c) nothing: no files, no transcript", case(other, None)),
        (
            "(c') no home, no session, no transcript",
            lambda: bracket_for(current_fill(None, None, None)),
        ),
    ]
    print("current_fill + bracket_for, in-process median of 1000 runs:")
    for label, fn in rows:
        print(f"  {label:<62} {median_ms(fn):7.3f} ms  ({fn().reason})")
    home.close()


def _run_ms(code: str, env: dict[str, str], runs: int = 30, stdin: bytes = b"") -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([PY, "-c", code], env=env, input=stdin, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def bench_import(tmp: Path) -> None:
    deps = "import json, math, re, os, stat, abcd.session.files, abcd.recall.constants"
    probe = (
        f"{deps}; import time; t0 = time.perf_counter(); import abcd.session.fill; "
        "t1 = time.perf_counter(); import abcd.session.brackets; t2 = time.perf_counter(); "
        "import abcd.host.statusline; t3 = time.perf_counter(); "
        "print((t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3)"
    )
    for label, cached in (("with a bytecode cache", True), ("compiled from source", False)):
        env = dict(os.environ, PYTHONPATH=SRC)
        if cached:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
            subprocess.run([PY, "-c", probe], env=env, check=True, capture_output=True)  # warm
        else:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
            env.pop("PYTHONPYCACHEPREFIX", None)
        samples = [
            [
                float(x)
                for x in subprocess.run(
                    [PY, "-c", probe], env=env, check=True, capture_output=True, text=True
                ).stdout.split()
            ]
            for _ in range(30)
        ]
        fill, brackets, statusline = (statistics.median(col) for col in zip(*samples, strict=True))
        print(f"import cost of this issue's own modules ({label}), median of 30 processes:")
        print(f"  abcd.session.fill       {fill:6.2f} ms")
        print(f"  abcd.session.brackets   {brackets:6.2f} ms")
        print(f"  abcd.host.statusline    {statusline:6.2f} ms")
        base = _run_ms("pass", env)
        whole = _run_ms("import abcd.host.statusline", env)
        print(
            f"  python -c pass {base:6.1f} ms; + import abcd.host.statusline {whole:6.1f} ms "
            f"(+{whole - base:.1f} ms, its dependencies included)"
        )


def bench_statusline(tmp: Path) -> None:
    payload = Path(__file__).resolve().parent.parent / "tests/host/data/statusline_after_turn1.json"
    env = dict(os.environ, PYTHONPATH=SRC, ABCD_HOME=str(tmp / "sl-home"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    home = Home.open(env["ABCD_HOME"], create=True)
    assert home is not None
    ensure_fill_folder(home)
    home.close()
    code = (
        "import sys; from abcd.host.statusline import main; "
        "sys.exit(main(sys.argv[1:], sys.stdin.buffer, sys.stdout, sys.stderr))"
    )
    ms = _run_ms(code, env, stdin=payload.read_bytes())
    print(f"abcd statusline as a process (bytecode cached, reading unchanged): median {ms:.1f} ms")


def main() -> None:
    what = sys.argv[1] if len(sys.argv) > 1 else "all"
    tmp = Path(tempfile.mkdtemp(prefix="bench-fill-"))
    try:
        if what in ("all", "fill"):
            bench_fill(tmp)
        if what in ("all", "import"):
            bench_import(tmp)
        if what in ("all", "statusline"):
            bench_statusline(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Benchmark of the PreToolUse hook against the prompt hook's floor and a bare interpreter.

    .venv/bin/python tools/bench_pretool.py [--runs 30]

Times, alternating in one run, medians of `--runs` each (after 3 warm-up rounds):

- `python -I -c pass`;
- `abcd hook pre-tool-use` on the captured payload (a note-writing command: the
  allow path, which reads the whole command);
- `abcd hook pre-tool-use` on `touch x` (no decision: what every other Bash
  command the agent runs costs);
- `abcd hook prompt-router` at its floor: an empty home, a one-commit
  repository, a started session, a prompt that recalls nothing.

Also prints what importing `abcd.host.pretool` costs (`python -X importtime`,
cumulative). Bytecode is compiled first and PYTHONDONTWRITEBYTECODE is unset
for the runs, as on a person's machine. Target: the allow path costs no more
than the prompt hook's floor.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

from benchlib import as_installed, one_commit_repo, timed

PY = sys.executable
ABCD = str(Path(PY).parent / "abcd")
REPO = Path(__file__).resolve().parent.parent
CAPTURED = REPO / "tests" / "host" / "data" / "hook_PreToolUse_bash.json"


def import_ms(env: dict[str, str]) -> float:
    """Cumulative microseconds `python -X importtime` reports for `abcd.host.pretool`, in ms."""
    out = subprocess.run(
        [PY, "-X", "importtime", "-c", "import abcd.host.pretool"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    for line in out.stderr.splitlines():
        if line.rstrip().endswith("| abcd.host.pretool"):
            return int(line.split("|")[1]) / 1000
    raise RuntimeError("importtime printed no line for abcd.host.pretool")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    subprocess.run([PY, "-m", "compileall", "-q", str(REPO / "src")], check=True)
    with tempfile.TemporaryDirectory() as scratch:
        repo = Path(scratch) / "repo"
        repo.mkdir()
        one_commit_repo(repo)
        env = as_installed(ABCD_HOME=str(Path(scratch) / "home"))
        captured = json.loads(CAPTURED.read_text())
        captured["cwd"] = str(repo)
        allow = json.dumps(captured)
        other = json.dumps(dict(captured, tool_input={"command": "touch x"}))
        decided = subprocess.run(
            [ABCD, "hook", "pre-tool-use"], input=allow, text=True, capture_output=True, env=env
        ).stdout
        assert '"allow"' in decided, "the captured payload is not allowed: nothing to time"
        times: dict[str, list[float]] = {"pass": [], "allow": [], "other": [], "floor": []}
        for run in range(args.runs + 3):
            session = str(uuid.uuid4())
            start = json.dumps({"session_id": session, "cwd": str(repo), "source": "startup"})
            prompt = json.dumps(
                {"session_id": session, "cwd": str(repo), "prompt": "what is the weather like"}
            )
            subprocess.run(
                [ABCD, "hook", "session-start"],
                input=start,
                text=True,
                env=env,
                cwd=repo,
                check=True,
            )
            figures = {
                "pass": timed([PY, "-I", "-c", "pass"], env=env, cwd=repo),
                "allow": timed([ABCD, "hook", "pre-tool-use"], stdin=allow, env=env, cwd=repo),
                "other": timed([ABCD, "hook", "pre-tool-use"], stdin=other, env=env, cwd=repo),
                "floor": timed([ABCD, "hook", "prompt-router"], stdin=prompt, env=env, cwd=repo),
            }
            if run >= 3:  # the first rounds warm the page cache
                for name, seconds in figures.items():
                    times[name].append(seconds)
        median = {name: statistics.median(values) * 1000 for name, values in times.items()}
        print(f"medians of {args.runs} runs each, alternating:")
        print(f"  python -I -c pass                         {median['pass']:6.1f} ms")
        print(
            f"  abcd hook pre-tool-use, a note (allow)    {median['allow']:6.1f} ms"
            f"  ({median['allow'] / median['pass']:.2f}x pass, "
            f"{median['allow'] / median['floor']:.2f}x the prompt hook's floor)"
        )
        print(
            f"  abcd hook pre-tool-use, touch x (none)    {median['other']:6.1f} ms"
            f"  ({median['other'] / median['pass']:.2f}x pass)"
        )
        print(
            f"  abcd hook prompt-router, nothing recalled {median['floor']:6.1f} ms"
            f"  ({median['floor'] / median['pass']:.2f}x pass)"
        )
        print(f"  import abcd.host.pretool (importtime, cumulative) {import_ms(env):.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())

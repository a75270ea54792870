#!/usr/bin/env python3
"""CPU time (user + system) of `abcd hook prompt-router`, two versions alternating, per prompt.

    .venv/bin/python tools/bench_hook_cpu.py [--runs 15] NAME=ROOT[:PYTHONPATH] ...

Each ROOT is a home `tools/bench_hook.py --crowd --root ROOT` built (`ROOT/home`,
`ROOT/project`); PYTHONPATH, when given, runs another version's code on it
(e.g. `main=/tmp/c100k-main:/tmp/main-src/src`). CPU time moves less than
wall time on a shared machine; the medians of each version are printed.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

ABCD = str(Path(sys.executable).parent / "abcd")
PROMPTS = {
    "hardest": "the test and the test to run, in a test for it",
    "typical": "the deploy test is flaky after the change: retry and check the timeout",
    "none": "what is the weather like today",
}


def cpu_ms(root: str, path: str, session: str, prompt: str) -> float:
    env = dict(os.environ, ABCD_HOME=f"{root}/home", PYTHONPATH=path)
    payload = json.dumps({"session_id": session, "cwd": f"{root}/project", "prompt": prompt})
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [ABCD, "hook", "prompt-router"],
        input=payload,
        text=True,
        env=env,
        cwd=f"{root}/project",
        capture_output=True,
        check=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1e3


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("sides", nargs="+", help="NAME=ROOT[:PYTHONPATH]")
    args = parser.parse_args()
    sides = {}
    for side in args.sides:
        name, _, rest = side.partition("=")
        root, _, path = rest.partition(":")
        sides[name] = (root, path)
    for label, prompt in PROMPTS.items():
        times: dict[str, list[float]] = {name: [] for name in sides}
        for run in range(args.runs):
            for name, (root, path) in sides.items():
                times[name].append(cpu_ms(root, path, f"cpu-{name}-{label}-{run}", prompt))
        shown = ", ".join(f"{n} {statistics.median(t):.1f} ms" for n, t in times.items())
        print(f"{label}: median CPU of {args.runs}: {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""What the prompts after a page changes cost: the first parses it and builds the reach anew.

    .venv/bin/python tools/bench_change.py ROOT [--src SRC] [--trials 6] [--prompts 4]

`ROOT` is a home `tools/bench_hook.py --crowd --root ROOT` built (`ROOT/home`,
`ROOT/project`); `--src` runs another tree's code on it (a `src` folder put
first on `PYTHONPATH`, as `tools/bench_ab.py` does; give each tree its own
copy of the home). Each trial appends a line to one more of the project's
pages and dates it an hour back (so the cache may keep it), then times the
typical prompt in `--prompts` new sessions one after another. Prints the
median of each prompt's place after the change: the first pays for the
change; the ones after it should cost what a prompt costs in a quiet home.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

from benchlib import TYPICAL_PROMPT, as_installed, start_session, timed

ABCD = str(Path(sys.executable).parent / "abcd")
HOUR_NS = 3600 * 10**9


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--src", help="another tree's src folder, first on PYTHONPATH")
    parser.add_argument("--trials", type=int, default=6)
    parser.add_argument("--prompts", type=int, default=4)
    args = parser.parse_args()
    home, project = args.root / "home", args.root / "project"
    env = as_installed(ABCD_HOME=str(home))
    if args.src:
        env["PYTHONPATH"] = args.src
    folder = project / ".abcd" / "memory"
    pages = sorted(folder.glob("*.md"))
    times: list[list[float]] = [[] for _ in range(args.prompts)]
    for trial in range(args.trials):
        page = pages[trial % len(pages)]
        with page.open("a") as handle:
            handle.write(f"\nchanged by bench_change, trial {trial} at {time.time_ns()}\n")
        old = time.time_ns() - HOUR_NS
        os.utime(page, ns=(old, old))
        for place in range(args.prompts):
            session = f"bench-change-{os.getpid()}-{trial}-{place}"
            start_session(ABCD, session, project, env)
            payload = {"session_id": session, "cwd": str(project), "prompt": TYPICAL_PROMPT}
            took = timed(
                [ABCD, "hook", "prompt-router"], stdin=json.dumps(payload), env=env, cwd=project
            )
            times[place].append(took)
    for place, spent in enumerate(times, start=1):
        print(
            f"prompt {place} after a page changed: median {statistics.median(spent) * 1000:.1f} ms "
            f"({len(spent)} trials)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

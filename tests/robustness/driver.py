"""Run the real hook or status line once for each of many cases, in one fresh interpreter.

Usage: `python -I driver.py SRC CASES` (the test runs it; `CASES` is a marshalled list).

A fresh process costs ~50-100 ms, so a batch of cases shares one; what a
fresh process would meet is restored before each case instead:
- the `json` package is dropped from `sys.modules`, so the C scanner meets
  every case as it does in a new process (on Python 3.10 and 3.11 it raises
  its syntax errors only when `json.decoder` is loaded);
- the files the case wrote are put back as they were, and the session, fill
  and cache files the previous case left are removed, so no ledger or cache
  carries over.

Each case is `{"entry": "hook" | "statusline" | "cli", "argv": [...], "stdin": bytes,
"files": {path: bytes}}`; the driver prints, marshalled, one
`{"code", "out", "err", "raised", "json_loaded"}` a case. It reads and writes
without `json`, which it must not load itself.
"""

from __future__ import annotations

import io
import marshal
import os
import sys
import traceback

SCRATCH = ("sessions", "fill", "cache")


def _drop_json() -> None:
    for name in [m for m in sys.modules if m == "json" or m.startswith("json.")]:
        del sys.modules[name]


def _clear_scratch(home: str) -> None:
    for folder in SCRATCH:
        path = os.path.join(home, folder)
        if os.path.isdir(path):
            for name in os.listdir(path):
                os.unlink(os.path.join(path, name))


def _put(files: dict[str, bytes | None]) -> None:
    for path, data in files.items():
        if data is None:
            if os.path.lexists(path):
                os.unlink(path)
            continue
        with open(path, "wb") as handle:
            handle.write(data)
        os.chmod(path, 0o600)


def _cli(argv: list[str], stdin: io.BytesIO, out: io.StringIO, err: io.StringIO) -> int:
    """`abcd ARGV` as the console script runs it (errors become exit codes in `cli.main`)."""
    from contextlib import redirect_stderr, redirect_stdout

    from abcd.cli.main import main as cli_main

    sys.argv = ["abcd", *argv]
    with redirect_stdout(out), redirect_stderr(err):
        try:
            cli_main()
        except SystemExit as done:
            return done.code if isinstance(done.code, int) else 0 if done.code is None else 1
    return 0


def _run(case: dict[str, object]) -> dict[str, object]:
    from abcd.host.hook import main as hook_main
    from abcd.host.statusline import main as statusline_main

    run = {"hook": hook_main, "statusline": statusline_main, "cli": _cli}[case["entry"]]  # type: ignore[index]
    out, err = io.StringIO(), io.StringIO()
    raised = None
    json_loaded = "json" in sys.modules
    try:
        code = run(list(case["argv"]), io.BytesIO(case["stdin"]), out, err)  # type: ignore[call-overload, operator]
    except BaseException:  # what a fresh process would print as a traceback
        code, raised = 1, traceback.format_exc()
    return {
        "code": code,
        "out": out.getvalue(),
        "err": err.getvalue(),
        "raised": raised,
        "json_loaded": json_loaded,
    }


def main() -> None:
    sys.path.insert(0, sys.argv[1])
    with open(sys.argv[2], "rb") as handle:
        cases = marshal.load(handle)
    home = os.environ["ABCD_HOME"]
    results = []
    for case in cases:
        files: dict[str, bytes] = case["files"]
        before = {}
        for path in files:
            if os.path.exists(path):
                with open(path, "rb") as handle:
                    before[path] = handle.read()
            else:
                before[path] = None
        _clear_scratch(home)
        _put(files)
        _drop_json()
        results.append(_run(case))
        _clear_scratch(home)
        _put(before)
    sys.stdout.buffer.write(marshal.dumps(results))


if __name__ == "__main__":
    main()

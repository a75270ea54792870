#!/usr/bin/env python3
"""What a resident hook process would save: the floor of a client and a warm prompt's own work.

    .venv/bin/python tools/bench_resident.py ROOT [--runs 200] [--warm 30]

A design weighed for issue 13 and not built (docs/performance.md, "Twelfth
round"): a process that stays up between prompts with abcd's modules loaded,
and a hook that hands it the payload over a Unix socket. This measures its
two parts, so the design's gain is a figure, not a guess:

- `client`: the least a hook process could be, a fresh `python -I -S` that
  imports only `_socket`, connects to a socket served by this script's own
  thread, sends a payload and reads back a reply the size of the typical
  prompt's output; timed alternating with `python -I -c pass`;
- `warm`: what the resident process would do for each prompt, `abcd.host.hook.main`
  called again in one process that already ran it, a new session each time,
  on the home `ROOT` that `tools/bench_hook.py --crowd --root ROOT` built
  (`ROOT/home`, `ROOT/project`), the typical prompt.

The two added are the design's prompt, less the socket's own round trip
(counted in `client`) and what a server does around the call.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from benchlib import TYPICAL_PROMPT, as_installed, timed

REPLY = b"x" * 2843  # the typical prompt's output on the 10,000-note home, in bytes

CLIENT = """
import _socket, sys
s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall(sys.stdin.buffer.read() + b"\\n")
out = []
while True:
    b = s.recv(65536)
    if not b:
        break
    out.append(b)
sys.stdout.buffer.write(b"".join(out))
"""

# Runs in a fresh interpreter with abcd importable: the hook's main called `--warm` times.
WARM = """
import gc, io, json, os, sys, time
gc.disable()
from abcd.bundle import install
install("prompt-router")
import abcd.host.hook as hook
cwd, prompt, runs = os.getcwd(), sys.argv[1], int(sys.argv[2])
spent = []
for run in range(runs + 1):
    session = f"resident-{os.getpid()}-{run}"
    start = {"session_id": session, "cwd": cwd, "source": "startup"}
    hook.main(["session-start"], io.BytesIO(json.dumps(start).encode()), io.StringIO(), io.StringIO())
    payload = json.dumps({"session_id": session, "cwd": cwd, "prompt": prompt}).encode()
    out = io.StringIO()
    began = time.perf_counter()
    hook.main(["prompt-router"], io.BytesIO(payload), out, io.StringIO())
    spent.append(time.perf_counter() - began)
    if not out.getvalue():
        raise SystemExit("the prompt brought nothing back: not the crowd home's typical prompt")
print(json.dumps({"first": spent[0], "rest": spent[1:]}))
"""


def serve(path: str, stop: threading.Event) -> None:
    """Answer each connection with `REPLY` once its payload's line is read."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(path)
        server.listen(8)
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            with conn:
                data = b""
                while not data.endswith(b"\n"):
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                conn.sendall(REPLY)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--warm", type=int, default=30)
    args = parser.parse_args()
    payload = json.dumps({"session_id": "s", "cwd": "/", "prompt": TYPICAL_PROMPT})
    with tempfile.TemporaryDirectory(prefix="bench-resident-") as work:
        path = os.path.join(work, "hook.sock")
        stop = threading.Event()
        thread = threading.Thread(target=serve, args=(path, stop), daemon=True)
        thread.start()
        while not os.path.exists(path):
            threading.Event().wait(0.01)
        empty, client = [], []
        try:
            for _ in range(args.runs):
                empty.append(timed([sys.executable, "-I", "-c", "pass"], stdin=payload))
                client.append(
                    timed([sys.executable, "-I", "-S", "-c", CLIENT, path], stdin=payload)
                )
        finally:
            stop.set()
            thread.join()
    env = as_installed(ABCD_HOME=str(args.root / "home"))
    done = subprocess.run(
        [sys.executable, "-c", WARM, TYPICAL_PROMPT, str(args.warm)],
        cwd=args.root / "project",
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    warm = json.loads(done.stdout.splitlines()[-1])
    ms = 1000
    base, least = statistics.median(empty), statistics.median(client)
    rest = statistics.median(warm["rest"])
    print(f"pass                      {base * ms:6.2f} ms  (median of {args.runs})")
    print(f"client (-I -S, _socket)   {least * ms:6.2f} ms  {least / base:.2f}x")
    print(f"warm prompt, in process   {rest * ms:6.2f} ms  (median of {args.warm}; the first")
    print(f"                                     call {warm['first'] * ms:.2f} ms)")
    print(f"client + warm prompt      {(least + rest) * ms:6.2f} ms  {(least + rest) / base:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())

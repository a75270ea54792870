"""The one clock: UTC time in RFC 3339 with microseconds, text that sorts as time.

Imports only `time` (the hook path is lean; `datetime` costs more).
"""

from __future__ import annotations

import time


def now_rfc3339() -> str:
    """The clock's time, UTC, `YYYY-MM-DDThh:mm:ss.ffffffZ`."""
    ns = time.time_ns()
    seconds, micros = divmod(ns // 1000, 1_000_000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{micros:06d}Z"

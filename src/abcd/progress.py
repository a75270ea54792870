"""A progress bar for long work (verify, rebuild, replay): on a terminal only, on stderr.

Off a terminal it prints nothing, so scripts and tests see clean output.
Updates are throttled so that drawing never costs more than the work.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """Counts units of work (bytes) towards `total` and draws a bar when `stream` is a terminal."""

    _WIDTH = 30
    _EVERY_S = 0.1

    def __init__(self, label: str, total: int, stream: TextIO | None = None) -> None:
        self.label = label
        self.total = max(total, 1)
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty()
        self.done = 0
        self._drawn_at = 0.0

    def advance(self, amount: int) -> None:
        self.done += amount
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._drawn_at >= self._EVERY_S:
            self._drawn_at = now
            self._draw()

    def _draw(self) -> None:
        share = min(self.done / self.total, 1.0)
        filled = int(share * self._WIDTH)
        bar = "#" * filled + "-" * (self._WIDTH - filled)
        self.stream.write(f"\r{self.label} [{bar}] {share:4.0%}")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.done = self.total
            self._draw()
            self.stream.write("\n")
            self.stream.flush()

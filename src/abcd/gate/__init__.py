"""The write gate: every note is judged here before anything is written.

It refuses a note holding a secret, an identity or network identifier, a
home-directory path or a private name, naming the kind and the field, never
the matched text. It refuses, it never redacts (docs/gate.md says why).

Public API:

- `judge_note(title, body, recall, *, private_names=(), home=None) -> Finding | None`
- `judge_stamps(stamps, *, private_names=()) -> Finding | None` (`--by`, `--session`)
- `load_private_names(checkouts) -> list[str]`
- `Finding(kind, field)`

Importing this package is cheap (no `re`, no `dataclasses`): each rule is
compiled the first time a note needs it.
"""

from __future__ import annotations

from abcd.gate.finding import Finding
from abcd.gate.judge import judge_note, judge_stamps
from abcd.gate.names import load_private_names

__all__ = ["Finding", "judge_note", "judge_stamps", "load_private_names"]

"""The lesson the mock's agent keeps in every story, and the command it runs to keep it.

Its recall word is `test`, so "how do I run the tests" matches it and "what is the
capital of France" does not. The body goes on stdin through a quoted heredoc, as
the `/abcd:memory` page tells an agent to write it; no `--session`: the host's
environment supplies the session.
"""

from __future__ import annotations

import re

WRITER = "Claude:claude-opus-4-8"
TITLE = "The tests need the no-randomly flag"
BODY = "Run pytest -p no:randomly before saying the tests pass: the fixtures share one database."
RECALL = "test"
ADD_NOTE = f"""abcd memory add --title '{TITLE}' --recall {RECALL} --by {WRITER} <<'EOF'
{BODY}
EOF"""
NOTE_ID = re.compile(r"\bmem-\d{16}\b")


def printed_id(result: str) -> str | None:
    """The note id an add printed, read from the tool result the host handed the agent: the id on
    its own last line, after nothing but the hint a note of few recall words gets (`None` else)."""
    *before, last = result.strip().splitlines() or [""]
    if not NOTE_ID.fullmatch(last):
        return None
    if any(f"{last} has " not in line or "recall word(s)" not in line for line in before):
        return None
    return last

"""A writer process for the concurrency tests: appends notes and prints each id once it landed."""

from __future__ import annotations

import sys

from abcd.journal import store
from abcd.journal.events import Event, NoteAdded
from abcd.journal.view import View
from abcd.notes.ids import mint_id


def main(tag: str, count: int) -> None:
    for n in range(count):

        def plan(view: View, n: int = n) -> list[Event]:
            taken = {note.id for note in view.notes} | set(view.removed)
            return [
                NoteAdded(
                    id=mint_id(taken),
                    title=f"{tag} lesson {n}",
                    body="b" * 200,
                    recall=("race",),
                    root=None,
                    origin="agent",
                    written_by="Claude:claude-opus-4-8",
                    session=tag,
                )
            ]

        _, records = store.append(plan)
        print(records[0].event.id, flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))

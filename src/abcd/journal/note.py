"""A personal note as the fold makes it: the seed's schema and its review stamps.

Its own module because two others hold it: the view (`abcd.journal.view`)
lists the live ones, and a restore (`abcd.journal.events.NoteRestored`)
carries one back whole, as it stood when it was removed.
"""

from __future__ import annotations

from typing import Literal

import msgspec

# "person": written with `--by person`, by a person rather than an agent (issue 15).
Origin = Literal["agent", "host-memory-move", "person"]


class Note(msgspec.Struct, kw_only=True, frozen=True, omit_defaults=True):
    """One note as the seed schema shows it, and its review stamps (issue 14).

    The review stamps are written only when set, so a note never revised,
    kept or promoted is stored exactly as before they existed. `written_*`
    and `session` stay the add's; a revision sets `revision` (how many) and
    `revised_*`, and clears `reviewed_*` (the person kept another text).
    """

    id: str
    title: str
    body: str
    recall: tuple[str, ...]
    root: str | None
    origin: Origin
    written_by: str
    written_at: str
    session: str | None
    revision: int = 0
    revised_by: str | None = None
    revised_at: str | None = None
    reviewed_by: str | None = None
    reviewed_at: str | None = None
    promoted_by: str | None = None
    promoted_at: str | None = None

    @property
    def reviewed(self) -> bool:
        """Kept by a person as its text stands now."""
        return self.reviewed_at is not None

    @property
    def awaits_review(self) -> bool:
        """Neither kept nor promoted by a person as its text stands now (`waits_for_review`)."""
        return waits_for_review(self.reviewed_at, self.promoted_at, self.revised_at)

    @property
    def stamped(self) -> bool:
        """Whether it carries a review stamp (its view is then written at schema 2)."""
        return bool(self.revision or self.reviewed_at or self.promoted_at)


def waits_for_review(
    reviewed_at: str | None, promoted_at: str | None, revised_at: str | None
) -> bool:
    """Whether a personal note is in the review queue: no person kept it as it stands, nor
    promoted it (a promotion shows the text and asks, as a keep does) since its last revision.

    A revision clears the keep in the fold but not the promotion, so a promotion is as of its
    text when it is later than the last revision. The journal's times never go back (a writer
    takes the later of the clock and the last line's), so a revision after a promotion is at
    or after it; on a tie the note waits, which is the side to err on.
    """
    if reviewed_at is not None:
        return False
    return promoted_at is None or (revised_at is not None and revised_at >= promoted_at)

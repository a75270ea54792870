"""The ledger: what this session has already been sent, as a pure fold of its events.

Items and rule domains are keyed by content signature, not rendered form, so
a bracket change never sends an item again. A `SessionReset` (session start,
compaction, the backstop) starts the ledger over; `DomainForgotten` drops a
domain that left the active set. Whether the unknown fill was said counts
across resets: it is said once a session.
"""

from __future__ import annotations

from abcd.session.events import (
    DomainForgotten,
    DomainInjected,
    FillUnknownSaid,
    ItemRecalled,
    PromptSeen,
    RepoSeen,
    SessionReset,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from abcd.session.events import SessionRecord


class Ledger:
    __slots__ = ("domains", "items", "prompts", "roots", "unknown_said")

    def __init__(self) -> None:
        self.items: dict[str, str] = {}
        self.domains: dict[str, str] = {}
        self.prompts = 0  # prompts seen since the last reset
        self.unknown_said = False
        self.roots: dict[
            str, str | None
        ] = {}  # checkout top -> root commit, as the session start saw it

    def sent(self, key: str, signature: str) -> bool:
        return self.items.get(key) == signature

    def domain_sent(self, name: str, signature: str) -> bool:
        return self.domains.get(name) == signature


def fold(records: Iterable[SessionRecord]) -> Ledger:
    ledger = Ledger()
    for record in records:
        event = record.event
        if isinstance(event, SessionReset):
            ledger.items.clear()
            ledger.domains.clear()
            ledger.prompts = 0
        elif isinstance(event, ItemRecalled):
            ledger.items[event.key] = event.signature
        elif isinstance(event, DomainInjected):
            ledger.domains[event.name] = event.signature
        elif isinstance(event, DomainForgotten):
            ledger.domains.pop(event.name, None)
        elif isinstance(event, PromptSeen):
            ledger.prompts += 1
        elif isinstance(event, FillUnknownSaid):
            ledger.unknown_said = True
        elif isinstance(event, RepoSeen):
            ledger.roots[event.top] = event.root
    return ledger

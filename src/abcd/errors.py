"""The one error hierarchy.

Every failure the tool reports is an `AbcdError`. OS, lock and decode errors
are translated into one of these at the storage edge, so the CLI maps them to
exit codes in one place: `Refused` and its kin exit 1, usage errors exit 2.
Messages are one line and never hold the text a gate matched.
"""

from __future__ import annotations


class AbcdError(Exception):
    """Base of every error the tool reports to a person."""

    exit_code = 1


class Refused(AbcdError):
    """Bad input refused before anything was written (a limit, a shape, the gate)."""

    def __init__(
        self, kind: str, field: str | None = None, detail: str = "", *, message: str | None = None
    ) -> None:
        self.kind = kind
        self.field = field
        self.detail = detail
        where = f" in {field}" if field else ""
        tail = f": {detail}" if detail else ""
        super().__init__(message or f"refused: {kind}{where}{tail}")


class TrustError(AbcdError):
    """A file or folder under the home failed a trust check (symlink, owner, mode, size, type)."""

    def __init__(self, shown_path: str, reason: str) -> None:
        self.shown_path = shown_path
        self.reason = reason
        super().__init__(f"{shown_path}: {reason}")


class CorruptFile(AbcdError):
    """A file passed the trust checks but its content cannot be decoded or validated."""

    def __init__(self, shown_path: str, reason: str) -> None:
        self.shown_path = shown_path
        self.reason = reason
        super().__init__(f"{shown_path}: {reason}")


RECOVERY_HINT = "`abcd journal recover`, at a terminal, sets the broken tail aside"
# A line a newer abcd wrote (its `v` is past this one's) is not damage: nothing is set aside.
NEWER_ABCD = "written by a newer abcd"
NEWER_HINT = "upgrade abcd to read it (`abcd journal recover` refuses to set newer events aside)"


def hint_for(what: str) -> str:
    """What to do about a break: upgrade for a newer abcd's line, else recover."""
    return NEWER_HINT if NEWER_ABCD in what else RECOVERY_HINT


class JournalBroken(AbcdError):
    """The journal's hash chain is broken; `seq` is the first event it no longer vouches for."""

    def __init__(self, seq: int, what: str, where: str = "", *, hint: str = "") -> None:
        self.seq = seq
        self.what = what
        self.where = where
        at = f" ({where})" if where else ""
        tail = f"; {hint}" if hint else ""
        super().__init__(f"journal broken at seq {seq}: {what}{at}{tail}")


class StorageError(AbcdError):
    """An operating-system failure while reading or writing under the home."""


class UsageError(AbcdError):
    """The command was called wrongly (exit 2, like the CLI framework's own usage errors)."""

    exit_code = 2


class LockHeld(AbcdError):
    """Another process holds the journal lock, and the caller would not wait for it."""

    def __init__(self) -> None:
        super().__init__("another abcd process holds the journal lock")

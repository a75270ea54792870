"""`judge_note`: the gate's entry point, judging each field of a note on its own.

The order is fixed: title, then body, then each recall word; within a field,
secrets, then identity and network identifiers, then home paths, then private
names, each on the field as `abcd.gate.fold` folds it (escapes and hidden
characters removed, NFKC); the token shapes of the secret table also on the
field unwrapped (a line break inside a word taken out: a key wrapped at a
terminal's width). The first finding wins, so a refusal always names
one kind and one field. `judge_stamps` judges `--by` and the session the same
way, with the secrets and the private names only.

Invariant: the gate refuses rather than passes when it cannot judge. A rule
that fails to compile, or any unexpected error while judging, raises
`Refused("gate unavailable")`; nothing the gate returns or raises holds the
text it judged.
"""

from __future__ import annotations

from abcd.gate.compiled import GateUnavailable
from abcd.gate.finding import GATE_UNAVAILABLE, INPUT_TOO_LONG, Finding
from abcd.gate.fold import fold, unwrapped_forms
from abcd.gate.homepath import find_home_path
from abcd.gate.limits import GATE_INPUT_MAX_CHARS
from abcd.gate.names import PRIVATE_NAME, names_matcher
from abcd.gate.network import find_network
from abcd.gate.secrets import find_secret

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Sequence
    from typing import Literal

    from abcd.errors import Refused


def judge_text(
    text: str,
    *,
    names: re.Pattern[str] | None = None,
    home: str | None = None,
    stamp: bool | Literal["who"] = False,
) -> str | None:
    """The kind of the first thing in `text` a note may not hold, else `None`.

    A `stamp` (an identifier, not prose) passes the secrets and the private
    names only: the network and home checks would refuse a UUID session id.
    A `"who"` stamp (`--by`, `written_by`: `Vendor:model`, whose model part may
    hold dots, as `Claude:10.1.2.3` or `Claude:build.internal` does) passes the
    network checks too; it holds no `/`, so no home path.
    """
    if len(text) > GATE_INPUT_MAX_CHARS:
        return INPUT_TOO_LONG
    text = fold(text)
    lowered = text.lower()
    kind = find_secret(text, lowered)
    if kind is None and "\n" in text:
        for joined in unwrapped_forms(text):
            kind = find_secret(joined, joined.lower(), shapes_only=True)
            if kind is not None:
                break
    if kind is not None:
        return kind.kind
    if not stamp:
        found = find_network(text, lowered) or find_home_path(text, home)
        if found is not None:
            return found
    elif stamp == "who":  # `Vendor:model`: the model part may be dotted, as a host or address is
        found = find_network(text, lowered)
        if found is not None:
            return found
    if names is not None and names.search(text) is not None:
        return PRIVATE_NAME
    return None


def _judge_fields(
    fields: Sequence[tuple[str, str]],
    private_names: Sequence[str],
    *,
    home: str | None = None,
    stamp: bool = False,
) -> Finding | None:
    """The first finding in `fields`, each `(field, text)`; refuses when the gate cannot judge."""
    try:
        names = names_matcher(private_names)
        for field, text in fields:
            judged_as: bool | Literal["who"] = "who" if stamp and field in WHO_STAMPS else stamp
            kind = judge_text(text, names=names, home=home, stamp=judged_as)
            if kind is not None:
                return Finding(kind, field)
    except GateUnavailable as err:
        raise _unavailable(err.reason) from None
    except Exception as err:
        # Never let a bug pass a note unjudged; name the error's type, not its message.
        raise _unavailable(f"internal error ({type(err).__name__})") from None
    return None


def _unavailable(detail: str) -> Refused:
    """`Refused("gate unavailable")`; `abcd.errors` is imported only here, when the gate refuses
    (the CLI has it already; a library caller's first judgement need not pay for it)."""
    from abcd.errors import Refused

    return Refused(GATE_UNAVAILABLE, detail=detail)


# The stamps that say who wrote (`Vendor:model` or `person`), as a write's option and as a note's
# fields on their way into the project's file: judged for network identifiers too.
WHO_STAMPS = frozenset({"--by", "written_by", "revised_by"})


def judge_stamps(
    stamps: Sequence[tuple[str, str | None]], *, private_names: Sequence[str] = ()
) -> Finding | None:
    """The first finding in a write's stamps (`--by`, `--session`), each `(field, value)`.

    A stamp goes into the append-only journal for ever, so it passes the
    secret table and the private names. It is an identifier, not prose, so
    the network checks do not run on a session id (a UUID stays allowed);
    they do on who wrote (`WHO_STAMPS`), whose model part may be dotted. Raises
    `abcd.errors.Refused("gate unavailable", ...)` when the gate cannot judge.
    """
    fields = [(field, value) for field, value in stamps if value]
    return _judge_fields(fields, private_names, stamp=True)


def judge_note(
    title: str,
    body: str,
    recall: Sequence[str],
    *,
    private_names: Sequence[str] = (),
    home: str | None = None,
) -> Finding | None:
    """The first finding, judging title, then body, then each recall word, each on its own.

    `None` when the note may be written. `home` is the literal value of
    `$HOME` to refuse (`None`, `''` or `'/'` skip that check). Raises
    `abcd.errors.Refused("gate unavailable", ...)` when the gate cannot judge.
    """
    words: Sequence[str] = (recall,) if isinstance(recall, str) else recall
    fields = [("title", title), ("body", body)]
    fields += [(f"recall[{i}]", word) for i, word in enumerate(words)]
    return _judge_fields(fields, private_names, home=home)

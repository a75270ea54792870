"""Shape and limit checks for a note and its stamps; each refusal names the field and the limit.

The figures come from `abcd.constants`, one place each. These checks judge
shape only; what a note may say is the gate's to judge (`abcd.gate`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from abcd.constants import (
    BODY_MAX_BYTES,
    RECALL_MAX_WORDS,
    RECALL_MIN_WORDS,
    RECALL_WORD_MAX_CHARS,
    TITLE_MAX_CHARS,
    WRITTEN_BY_PATTERN,
)
from abcd.errors import Refused
from abcd.recall import terms
from abcd.shapes import is_note_id, is_one_line, is_session_id

_WRITTEN_BY_RE = re.compile(WRITTEN_BY_PATTERN)
PERSON = "person"


@dataclass(frozen=True)
class Draft:
    """A note as the caller gave it, after its shape was checked."""

    title: str
    body: str
    recall: tuple[str, ...]
    everywhere: bool = False


def _limit(field: str, what: str) -> Refused:
    return Refused("limit", field, message=f"refused: {field} {what}")


def _utf8_bytes(field: str, text: str) -> int:
    """How many bytes `text` is in UTF-8; refused when it is not text at all (bytes that were
    not UTF-8 on the command line or stdin, which Python keeps as lone surrogates)."""
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError:
        raise _limit(field, "is not UTF-8 text") from None


def check_title(title: str) -> str:
    title = title.strip()
    _utf8_bytes("title", title)
    if not title:
        raise _limit("title", "is empty")
    if not is_one_line(title):
        raise _limit("title", "must be one line")
    if len(title) > TITLE_MAX_CHARS:
        raise _limit("title", f"is {len(title)} characters; the limit is {TITLE_MAX_CHARS}")
    return title


def check_body(body: str, *, source: str = "") -> str:
    """The body, stripped; refused when empty (`source`: where it comes from, said then) or
    larger than the limit."""
    body = body.strip()
    if not body:
        raise _limit("body", f"is empty{f' ({source})' if source else ''}")
    size = _utf8_bytes("body", body)
    if size > BODY_MAX_BYTES:
        raise _limit("body", f"is {size} bytes; the limit is {BODY_MAX_BYTES} bytes (2 KiB)")
    return body


def split_recall(given: list[str] | tuple[str, ...]) -> list[str]:
    """Each recall word as given, with commas splitting one into several (`"foo, bar"`)."""
    return [part for raw in given for part in raw.split(",")]


def check_recall(given: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    words = split_recall(given)
    if not (RECALL_MIN_WORDS <= len(words) <= RECALL_MAX_WORDS):
        raise _limit(
            "recall",
            f"has {len(words)} words; a note takes {RECALL_MIN_WORDS} to {RECALL_MAX_WORDS}",
        )
    seen: set[str] = set()
    out: list[str] = []
    for index, raw in enumerate(words):
        field = f"recall[{index}]"
        word = " ".join(raw.split())
        _utf8_bytes(field, word)
        if len(word) > RECALL_WORD_MAX_CHARS:
            raise _limit(field, f"is {len(word)} characters; the limit is {RECALL_WORD_MAX_CHARS}")
        if not terms.words(word):  # the recall rule's words, which Python's isalnum() is not
            raise _limit(field, "holds no letter or digit")
        key = word.casefold()
        if key in seen:
            raise _limit(field, "repeats an earlier recall word (ignoring case)")
        seen.add(key)
        out.append(word)
    return tuple(out)


def check_draft(
    title: str,
    body: str,
    recall: list[str] | tuple[str, ...],
    everywhere: bool,
    *,
    body_source: str = "",
) -> Draft:
    return Draft(
        check_title(title), check_body(body, source=body_source), check_recall(recall), everywhere
    )


def check_written_by(value: str, *, person_allowed: bool = False) -> str:
    if person_allowed and value == PERSON:
        return value
    if not _WRITTEN_BY_RE.fullmatch(value):
        allowed = "`Vendor:model` (for example Claude:claude-opus-4-8)"
        if person_allowed:
            allowed += " or `person`"
        given = _given(value)
        capitalized = value[:1].upper() + value[1:]
        shown = given.startswith("'")  # not a secret's
        if shown and capitalized != value and _WRITTEN_BY_RE.fullmatch(capitalized):
            raise _limit(
                "--by",
                f"{value!r}: the vendor starts with a capital letter: --by {capitalized}",
            )
        raise _limit("--by", f"{given} must look like {allowed}")
    return value


def check_session(value: str | None, source: str) -> str | None:
    """A host session id, shape-checked (never judged as content); `None` when absent."""
    if value is None or value == "":
        return None
    if not is_session_id(value):  # the shape admits no ":" or "/", so no link
        raise _limit(source, "is not a session id (letters, digits, '_' and '-', at most 128)")
    return value


def check_note_id(value: str) -> str:
    if not is_note_id(value):  # the id as given, so a typo is seen (cut short, and repr'd)
        raise _limit("id", f"{_given(value)} is not a note id (mem- and 16 digits)")
    return value


def _given(value: str) -> str:
    """A refused value as given, so a typo is seen: repr'd (control characters escaped), cut
    short past 40 characters; not shown when the secret table finds a secret in it (a token
    pasted where the id or `--by` goes), as no refusal repeats a secret it judged."""
    from abcd.gate.judge import judge_text  # only on this refusal's path

    try:
        kind = judge_text(value, stamp=True)
    except Exception:  # the gate cannot judge (a rule that does not compile): show nothing of it
        kind = "unjudged"
    if kind is not None:
        return f"(not shown: {kind})"
    return repr(value if len(value) <= 40 else f"{value[:40]}...")

"""`abcd rules --prompt`: one recall's `Outcome`, laid out for a person and as JSON.

No recall logic lives here. The engine (`abcd.recall.engine.recall`) decides
everything, against an empty ledger, and this module only prints what it
decided: the bracket and why, each matched domain with the words that hit
and its form, each candidate with its rank, score, term breakdown and form,
and (asked for with `--all`) every item that did not come back with the
engine's reason, and every layer or page that could not be read.

The one thing decided here is the bracket's reason: the engine's fill
sources are the status line and the transcript, while the diagnostic's
figure is the one a person gave with `--fill` (or none), so the bracket is
remade with a reason that says so before the recall runs.

Invariant: both renderings carry the same facts from the same `Outcome`;
nothing here reads or writes a file.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

from abcd.errors import UsageError
from abcd.recall.budget import DEFAULT_LIMIT, HOST_CONTEXT_ENV, host_len
from abcd.recall.constants import (
    FRESH_MIN_FREE_PERCENT,
    MODERATE_MIN_FREE_PERCENT,
    WEIGHT_BODY,
    WEIGHT_RECALL,
    WEIGHT_TITLE,
)
from abcd.recall.items import what
from abcd.recall.terms import stems, words
from abcd.rules.loader import kill_switch
from abcd.session.brackets import Bracket, MemoryPolicy, bracket_for
from abcd.session.fill import Fill
from abcd.terminal import escaped

TYPE_CHECKING = False
if TYPE_CHECKING:
    from abcd.recall.bm25f import TermScore
    from abcd.recall.budget import Limit
    from abcd.recall.engine import Candidate, DomainChoice, Outcome
    from abcd.recall.items import Item, Problem
    from abcd.recall.second import Judged

# What `--fill` is called where the JSON names a fill's source.
GIVEN_SOURCE: Final = "--fill"

# Forms as a person reads them; the JSON keeps the engine's words (as the hook's envelope does).
_FORM_WORDS: Final = {"line": "one line"}
# What a form that brought nothing back means, said under the candidate (`{limit}`: the host's).
_FORM_NOTES: Final = {
    "too large": (
        "its block alone is larger than the host's whole {limit} characters: set aside, "
        "and the take went on"
    ),
    "does not fit": (
        "what was left of the host's {limit} characters when its turn came was too small; "
        "the take stopped there. It is not recorded, so it can come back on a later prompt"
    ),
}
_DOMAIN_NOTES: Final = {
    "left out": "the host's limit ran out before its block",
}
_PROMPT_SHOWN_CHARS: Final = 100


# --- the bracket -----------------------------------------------------------------


def parse_fill(text: str) -> float:
    """`--fill`: percent of the window used, 0 to 100 (a trailing `%` is allowed)."""
    figure: float | None
    try:
        figure = float(text.strip().removesuffix("%"))
    except ValueError:
        figure = None
    if figure is None or not math.isfinite(figure) or not 0.0 <= figure <= 100.0:
        raise UsageError(f"--fill takes the percent of the window used, 0 to 100; not {text!r}")
    return figure


def _percent(value: float) -> str:
    return f"{round(value, 1):g}%"


def _range_of(name: str) -> str:
    fresh, moderate = _percent(FRESH_MIN_FREE_PERCENT), _percent(MODERATE_MIN_FREE_PERCENT)
    return {
        "fresh": f"fresh is {fresh} free or more",
        "moderate": f"moderate is {moderate} to under {fresh} free",
        "depleted": f"depleted is under {moderate} free",
    }[name]


def diagnostic_bracket(used: float | None) -> Bracket:
    """The bracket for a figure given with `--fill` (or none), with the reason the diagnostic prints."""
    if used is None:
        found = bracket_for(Fill(None, "unknown"))
        reason = "unknown: no --fill given, so the fill is unknown; this is the unknown-fill form"
    else:
        found = bracket_for(Fill(used, "statusline"))
        reason = (
            f"{found.name}: {_percent(used)} used (--fill), {_percent(100.0 - used)} free; "
            f"{_range_of(found.name)}"
        )
    return Bracket(
        name=found.name,
        rules_form=found.rules_form,
        memory=found.memory,
        reason=reason,
        fill=found.fill,
    )


def _chars(size: int) -> str:
    return f"{size:,} characters"


def rules_form_words(bracket: Bracket) -> str:
    if bracket.rules_form == "full":
        return "every matched domain in full"
    return "heading, first rule, and where the rest are (`abcd rules NAME`)"


def memory_form_words(policy: MemoryPolicy, limit: int) -> str:
    """The bracket's memory policy in words, read from the policy itself."""
    full, lines = policy.full_budget_chars, policy.line_budget_chars
    parts: list[str] = []
    if full != 0:
        parts.append("in full, ranked" + ("" if full is None else f", within {_chars(full)}"))
    if lines != 0:
        rest = "the rest " if parts else ""
        parts.append(f"{rest}one line each" + ("" if lines is None else f" within {_chars(lines)}"))
    if policy.at_least_one:
        parts.append("always at least the top one")
    return ", ".join(parts) + f", inside the host's {_chars(limit)} shared with the rules"


def limit_words(limit: Limit) -> str:
    """`10,000 characters as the host counts them (measured on Claude Code 2.1.197; ...)`."""
    hint = f"; {HOST_CONTEXT_ENV} sets another" if limit.source == DEFAULT_LIMIT.source else ""
    return f"{_chars(limit.chars)} as the host counts them ({limit.source}{hint})"


# --- for people ------------------------------------------------------------------


def _form(form: str) -> str:
    return _FORM_WORDS.get(form, form)


def _what(item: Item) -> str:
    """`personal note, everywhere, written ...`: a candidate's layer and kind, reach and stamp."""
    stamp = "written" if item.kind == "note" else "modified"
    when = f", {stamp} {item.recency}" if item.recency else ""
    reach = ""
    if item.kind == "note" and item.layer == "machine":
        # A candidate tied to a root came back, so the root is this repository's.
        reach = ", tied to this repository" if item.root is not None else ", everywhere"
    return f"{what(item.kind, item.layer)}{reach}{when}"


def _table(rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(row[col]) for row in rows) for col in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [
            cell.rjust(width) if col in right else cell.ljust(width)
            for col, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
    return lines


def typed_words(prompt: str) -> dict[str, str]:
    """Each stem the prompt's words make, as the person typed them (`outsid` -> `outside`).

    Ranking reads stems; a person reads words, so the table shows the prompt's own
    words (lower-cased, as matching does), each form once: `test/tests`.
    """
    typed: dict[str, list[str]] = {}
    prompt_words = words(prompt)
    for word, stem in zip(prompt_words, stems(prompt_words), strict=True):
        forms = typed.setdefault(stem, [])
        if word not in forms:
            forms.append(word)
    return {stem: "/".join(forms) for stem, forms in typed.items()}


def _terms_table(terms: Sequence[TermScore], score: float, typed: dict[str, str]) -> list[str]:
    rows = [["word", "recall", "title", "body", "weighted", "idf", "contribution"]]
    for t in terms:
        rows.append(
            [
                typed.get(t.term, t.term),
                str(t.recall),
                str(t.title),
                str(t.body),
                str(t.weighted),
                f"{t.idf:.4f}",
                f"{t.contribution:.4f}",
            ]
        )
    rows.append(["", "", "", "", "", "score", f"{score:.4f}"])
    return _table(rows, right={1, 2, 3, 4, 5, 6})


def _domain_lines(domains: Sequence[DomainChoice], truncated: str, silenced: bool) -> list[str]:
    if silenced:
        return ["rules: none (the kill switch silences them)"]
    if not domains:
        return ["rules: no domain matched"]
    noun = "domain" if len(domains) == 1 else "domains"
    rows = []
    for choice in domains:
        match = choice.match
        why = []
        if match.words:
            why.append("hit by: " + ", ".join(match.words))
        if match.summoned:
            why.append(f"summoned by *{match.domain.name}")
        origin = match.domain.origin
        note = _DOMAIN_NOTES.get(choice.form)
        rows.append(
            [
                match.domain.name,
                choice.form,
                f"({origin})",
                "; ".join(why) + (f" ({note})" if note else ""),
            ]
        )
    lines = [f"rules: {len(domains)} {noun} matched", *("  " + r for r in _table(rows, set()))]
    if truncated:
        lines.append(f"  the hook says: {truncated}")
    return lines


def _candidate_block(cand: Candidate, limit: int, typed: dict[str, str]) -> list[str]:
    item, scored = cand.item, cand.scored
    head = f"#{cand.rank}  {item.key}  score {scored.score:.4f}  {_form(cand.form)}"
    lines = [head, f"    {_what(item)}: {item.title}", f"    hit by: {_hit_by(cand)}"]
    note = _FORM_NOTES.get(cand.form)
    if note:
        lines.append(f"    {_form(cand.form)}: {note.format(limit=f'{limit:,}')}")
    lines += ["    " + row for row in _terms_table(scored.terms, scored.score, typed)]
    return lines


def _hit_by(cand: Candidate) -> str:
    """The recall words that hit it, or the second tier's judgement that admitted it."""
    if cand.hits or cand.second is None:
        return ", ".join(cand.hits)
    return f"no recall word; {cand.second.why()}"


def _candidate_lines(
    candidates: Sequence[Candidate], silenced: bool, limit: int, typed: dict[str, str]
) -> list[str]:
    weights = f"recall x{WEIGHT_RECALL}, title x{WEIGHT_TITLE}, body x{WEIGHT_BODY}"
    if silenced:
        return ["notes and pages: none (the kill switch silences them)"]
    if not candidates:
        return [
            "notes and pages: no candidate (no recall word of an item in reach hit the prompt,"
            " and no item's title and body matched its content words above the second tier's"
            " threshold)"
        ]
    noun = "candidate" if len(candidates) == 1 else "candidates"
    lines = [f"notes and pages: {len(candidates)} {noun}, ranked by BM25F ({weights})"]
    for cand in candidates:
        lines.append("")
        lines += ["  " + line for line in _candidate_block(cand, limit, typed)]
    return lines


def withheld_reason(item: Item, reason: str, outcome: Outcome) -> str:
    """Why an item did not come back; for one no recall word hit, the second tier's judgement too."""
    if reason != "no word hit":
        return reason
    judged = outcome.second.get(item.key)
    if judged is not None:
        tier = judged.why()
    else:
        tier = (
            outcome.second_skipped
            or "second tier: holds none of the prompt's telling content words"
        )
    return f"{reason} (recall: {', '.join(item.recall)}); {tier}"


def _withheld_lines(withheld: Sequence[tuple[Item, str]], outcome: Outcome) -> list[str]:
    if not withheld:
        return ["withheld: nothing (every item in reach is a candidate above)"]
    noun = "item" if len(withheld) == 1 else "items"
    rows = []
    for item, reason in withheld:
        rows.append([item.key, what(item.kind, item.layer), withheld_reason(item, reason, outcome)])
    return [
        f"withheld: {len(withheld)} {noun} did not come back",
        *("  " + r for r in _table(rows, set())),
    ]


def _problem_lines(problems: Sequence[Problem]) -> list[str]:
    if not problems:
        return ["unreadable: nothing (every layer and page was read)"]
    return [
        f"unreadable: {len(problems)}",
        *(f"  {problem.kind}  {problem.message}" for problem in problems),
    ]


def _shown_prompt(prompt: str) -> str:
    flat = " ".join(prompt.split())
    if len(flat) > _PROMPT_SHOWN_CHARS:
        flat = flat[: _PROMPT_SHOWN_CHARS - 3] + "..."
    return f'prompt: "{flat}"'


def report(outcome: Outcome, limit: Limit, prompt: str, *, show_all: bool) -> str:
    """The diagnostic for a person: aligned, one candidate per block, scores to four places."""
    bracket = outcome.bracket
    lines = [
        _shown_prompt(prompt),
        f"bracket: {bracket.reason}",
        f"  rules:           {rules_form_words(bracket)}",
        f"  notes and pages: {memory_form_words(bracket.memory, limit.chars)}",
        f"host's limit: {limit_words(limit)}",
        "ledger: empty, as at the start of a session; nothing is written",
    ]
    rules = outcome.rules
    silenced = rules is not None and rules.disabled
    if rules is not None and silenced:
        lines.append(kill_switch(rules.disabled_by))
    lines.append("")
    lines += _domain_lines(outcome.domains, outcome.truncated_line, silenced)
    lines.append("")
    lines += _candidate_lines(outcome.candidates, silenced, limit.chars, typed_words(prompt))
    if show_all:
        lines += [
            "",
            *_withheld_lines(outcome.withheld, outcome),
            "",
            *_problem_lines(outcome.problems),
        ]
    elif outcome.withheld or outcome.problems:
        counts = []
        if outcome.withheld:
            counts.append(f"{len(outcome.withheld)} withheld")
        if outcome.problems:
            counts.append(f"{len(outcome.problems)} unreadable")
        lines += ["", f"not shown: {' and '.join(counts)}; --all says which and why"]
    lines.append("")
    text = outcome.text
    if text:
        size = host_len(text + "\n")  # as printed
        lines += [f"the hook would send ({size:,} of {_chars(limit.chars)}):", text]
    else:
        lines.append("the hook would send nothing for this prompt")
    # Notes' and pages' text reaches a terminal here: control characters shown escaped.
    return escaped("\n".join(lines) + "\n")


# --- as JSON ---------------------------------------------------------------------


def _term_json(term: TermScore) -> dict[str, Any]:
    return {
        "term": term.term,
        "recall": term.recall,
        "title": term.title,
        "body": term.body,
        "weighted": term.weighted,
        "idf": term.idf,
        "contribution": term.contribution,
    }


def _second_json(judged: Judged) -> dict[str, Any]:
    return {
        "admitted": judged.admitted,
        "score": judged.score,
        "share": judged.share,
        "words": list(judged.words),
        "unheld": list(judged.unheld),
    }


def _candidate_json(cand: Candidate) -> dict[str, Any]:
    item = cand.item
    return {
        "id": item.name,
        "key": item.key,
        "layer": item.layer,
        "title": item.title,
        "recency": item.recency,
        "rank": cand.rank,
        "score": cand.scored.score,
        "terms": [_term_json(t) for t in cand.scored.terms],
        "form": cand.form,
        "hits": list(cand.hits),
        "second": _second_json(cand.second) if cand.second is not None else None,
    }


def to_json(outcome: Outcome, limit: Limit, *, given: bool) -> dict[str, Any]:
    """The same facts as `report`, withheld items and problems always included."""
    bracket = outcome.bracket
    rules = outcome.rules
    return {
        "bracket": {
            "name": bracket.name,
            "reason": bracket.reason,
            "rules_form": bracket.rules_form,
            "memory_form": memory_form_words(bracket.memory, limit.chars),
            "fill": {
                "used_percentage": bracket.fill.used_percentage,
                "source": GIVEN_SOURCE if given else bracket.fill.source,
            },
        },
        "disabled_by": list(rules.disabled_by) if rules is not None else [],
        "domains": [
            {
                "name": choice.match.domain.name,
                "words": list(choice.match.words),
                "form": choice.form,
                "summoned": choice.match.summoned,
            }
            for choice in outcome.domains
        ],
        "truncated": outcome.truncated_line or None,
        "notes": [_candidate_json(c) for c in outcome.candidates if c.item.kind == "note"],
        "pages": [_candidate_json(c) for c in outcome.candidates if c.item.kind == "page"],
        "withheld": [
            {
                "key": item.key,
                "layer": item.layer,
                "kind": item.kind,
                "reason": reason,
                "second": _second_json(outcome.second[item.key])
                if item.key in outcome.second
                else None,
            }
            for item, reason in outcome.withheld
        ],
        "problems": [{"kind": p.kind, "message": p.message} for p in outcome.problems],
        "limit": {"chars": limit.chars, "source": limit.source},
        "text": outcome.text,
        "size": host_len(outcome.text + "\n") if outcome.text else 0,
    }

"""`abcd rules [NAME] [--json]`: the rule domains with their source, or one rendered in full.

`abcd rules --prompt TEXT [--fill PCT] [--all] [--json]` is the recall
diagnostic: what that prompt would bring back in a fresh session, and why
(`abcd.cli.diagnose` lays it out; the recall engine decides it all).

Thin: load both layers (`abcd.rules.load_here`), render, and turn problems
into exits. A layer that cannot be read, parsed or validated is one stderr
line `abcd: <file>: <reason>` and exit 1; notes (a domain dropped for having
no rules, an unknown field ignored) are stderr lines and do not fail; the
kill switch is named with the file that set it.

Register it on the root app with `register(app)` (a plain command, so
`abcd rules NAME --json` parses); `app` here is the same command alone, for
tests and for running it on its own.
"""

from __future__ import annotations

import os
from typing import Annotated, Any

import typer

from abcd.cli import diagnose
from abcd.cli.app import command_group
from abcd.cli.output import emit_json, notice
from abcd.errors import UsageError
from abcd.repo import find_repo
from abcd.rules import Domain, RuleSet, load_here, render_domain
from abcd.rules.loader import kill_switch
from abcd.trust.guarded import Home

HELP = (
    "List the rule domains with their source, or render one (NAME) in full; "
    'with --prompt "TEXT", show what that prompt would bring back, and why.'
    '\n\n\b\nExample:\n  abcd rules --prompt "how do I run the tests"'
)

# The layers as a person reads them, as notes and pages are named (issue 15).
_RULE_WORDS = {"machine": "personal rules", "repo": "project rules"}

NameArg = Annotated[
    str | None,
    typer.Argument(metavar="NAME", help="A domain to render in full, as the hook injects it."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
PromptOpt = Annotated[
    str | None,
    typer.Option(
        "--prompt",
        metavar="TEXT",
        help="Show what this prompt would bring back in a fresh session, and why. Writes nothing.",
    ),
]
FillOpt = Annotated[
    str | None,
    typer.Option(
        "--fill",
        metavar="PCT",
        help="With --prompt: percent of the window used (0-100); sets the bracket. "
        "Without it the fill is unknown.",
    ),
]
AllOpt = Annotated[
    bool,
    typer.Option("--all", help="With --prompt: also every item that did not come back, and why."),
]


def rules(
    name: NameArg = None,
    as_json: JsonOpt = False,
    prompt: PromptOpt = None,
    fill: FillOpt = None,
    show_all: AllOpt = False,
) -> None:
    """List the rule domains, render one (NAME), or diagnose what a prompt brings back."""
    if prompt is not None or fill is not None or show_all:
        try:
            text, used = _diagnostic_args(name, prompt, fill)
        except UsageError as err:
            notice(str(err))
            raise typer.Exit(2) from None
        _diagnose(text, used, show_all=show_all, as_json=as_json)
        return
    ruleset = load_here()
    for problem in ruleset.problems:
        notice(str(problem))
    if ruleset.problems:
        raise typer.Exit(1)
    for note in ruleset.notes:
        notice(note)
    if name is None:
        _list(ruleset, as_json)
    else:
        _show(ruleset, name, as_json)


def register(parent: typer.Typer) -> None:
    """Add `rules` to the root app as a command."""
    parent.command("rules", help=HELP)(rules)


app = command_group(HELP)
app.command(help=HELP)(rules)


def _kill_switch(ruleset: RuleSet) -> str:
    return kill_switch(ruleset.disabled_by)


def _diagnostic_args(
    name: str | None, prompt: str | None, fill: str | None
) -> tuple[str, float | None]:
    """The prompt and the percent used; `--prompt` takes no NAME, and `--fill`/`--all` need it."""
    if prompt is None:
        given = "--fill" if fill is not None else "--all"
        raise UsageError(f'{given} goes with --prompt: `abcd rules --prompt "TEXT" {given}`')
    if name is not None:
        raise UsageError(
            "--prompt takes no domain NAME: `abcd rules NAME` renders a domain, "
            '`abcd rules --prompt "TEXT"` shows what a prompt brings back'
        )
    return prompt, None if fill is None else diagnose.parse_fill(fill)


def _diagnose(prompt: str, used: float | None, *, show_all: bool, as_json: bool) -> None:
    """Recall against an empty ledger and print every fact of the outcome; writes nothing.

    Each layer or page that could not be read is one stderr line and exit 1,
    after the report (the hook still recalls from the others, and so does this).
    The host's limit is the hook's: `ABCD_HOST_CONTEXT_CHARS`, else the measured one.
    """
    from abcd.recall.budget import context_limit
    from abcd.recall.engine import recall

    limit = context_limit(os.environ)
    if limit.problem:
        notice(limit.problem)
    home = Home.open()  # never created: an absent home is no machine layer
    try:
        outcome = recall(
            prompt,
            home=home,
            repo=find_repo(),
            bracket=diagnose.diagnostic_bracket(used),
            ledger=None,
            use_index=False,  # every machine note read, so each withheld one has its reason
            limit=limit.chars,
        )
    finally:
        if home is not None:
            home.close()
    if as_json:
        emit_json(diagnose.to_json(outcome, limit, given=used is not None))
    else:
        print(diagnose.report(outcome, limit, prompt, show_all=show_all), end="")
    if outcome.rules is not None:
        for note in outcome.rules.notes:
            notice(note)
    for problem in outcome.problems:
        notice(problem.message)
    if outcome.problems:
        raise typer.Exit(1)


def _domain_json(domain: Domain) -> dict[str, Any]:
    return {
        "name": domain.name,
        "state": domain.state,
        "origin": domain.origin,
        "label": domain.label,
        "files": list(domain.files),
        "recall": [w.text for w in domain.recall],
        "aliases": [w.text for w in domain.aliases],
        "rules": list(domain.rules),
    }


def _list(ruleset: RuleSet, as_json: bool) -> None:
    if as_json:
        emit_json(
            {
                "disabled": ruleset.disabled,
                "disabled_by": list(ruleset.disabled_by),
                "layers": [
                    {"kind": layer.kind, "file": layer.shown, "status": layer.status}
                    for layer in ruleset.layers
                ],
                "domains": [_domain_json(d) for d in ruleset.domains],
                "notes": list(ruleset.notes),
            }
        )
        return
    if ruleset.disabled:
        print(_kill_switch(ruleset))
    for layer in ruleset.layers:
        print(f"{_RULE_WORDS.get(layer.kind, layer.kind)}: {layer.shown} ({layer.status})")
    if not ruleset.domains:
        print("no rule domains")
        return
    rows = [
        (
            d.name,
            d.state,
            d.origin,
            f"{len(d.rules)} rule{'' if len(d.rules) == 1 else 's'}",
            _hit_by(d),
        )
        for d in ruleset.domains
    ]
    widths = [max(len(row[col]) for row in rows) for col in range(4)]
    print()
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row[:4], widths, strict=True)]
        print("  ".join([*cells, row[4]]).rstrip())


def _hit_by(domain: Domain) -> str:
    """What brings the domain back: its words, or only its summons when dormant."""
    words = ", ".join(w.text for w in domain.recall)
    phrases = ", ".join(f'"{w.text}"' for w in domain.aliases)
    said = "; ".join(part for part in (words, phrases) if part)
    if domain.state == "dormant":
        return f"*{domain.name} only" + (f" (words: {said})" if said else "")
    return said or f"*{domain.name} only"


def _show(ruleset: RuleSet, name: str, as_json: bool) -> None:
    domain = ruleset.get(name.upper())
    if domain is None:
        notice(f"no rule domain {name}; `abcd rules` lists them")
        raise typer.Exit(1)
    if ruleset.disabled:
        notice(_kill_switch(ruleset))
    text = render_domain(domain)
    if as_json:
        emit_json({**_domain_json(domain), "text": text, "disabled_by": list(ruleset.disabled_by)})
        return
    print(text, end="")

"""`abcd rules [NAME] [--json]`: the rule domains with their source, or one rendered in full.

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

from typing import Annotated, Any

import typer

from abcd.cli.output import emit_json, notice
from abcd.rules import Domain, RuleSet, load_here, render_domain

HELP = "List the rule domains with their source, or render one (NAME) in full."

NameArg = Annotated[
    str | None, typer.Argument(help="A domain to render in full, as the hook injects it.")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]


def rules(name: NameArg = None, as_json: JsonOpt = False) -> None:
    """List the rule domains with their source, or render one (NAME) in full."""
    ruleset = load_here()
    for problem in ruleset.problems:
        notice(str(problem))
    if ruleset.problems:
        raise typer.Exit(1)
    for note in ruleset.notes:
        notice(note)
    # The diagnostic `--prompt TEXT [--fill PCT] [--all]` (SPEC section 8) joins
    # here as a third branch over the same loaded `ruleset`: it refuses a NAME
    # beside it, writes nothing, and renders the bracket, matches and ranking.
    if name is None:
        _list(ruleset, as_json)
    else:
        _show(ruleset, name, as_json)


def register(parent: typer.Typer) -> None:
    """Add `rules` to the root app as a command."""
    parent.command("rules", help=HELP)(rules)


app = typer.Typer(add_completion=False, help=HELP)
app.command(help=HELP)(rules)


def _kill_switch(ruleset: RuleSet) -> str:
    files = ", ".join(ruleset.disabled_by)
    return f'kill switch: "disabled": true in {files}; rules, notes and pages are silenced'


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
        print(f"{layer.kind} layer: {layer.shown} ({layer.status})")
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

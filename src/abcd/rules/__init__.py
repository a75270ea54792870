"""Rules: the `rules.json` layers, merged, matched against a prompt, rendered within a budget.

The flow is the layout: `schema` (one layer's bytes -> a validated `Layer`)
-> `loader` (machine then repository, merged field by field, the kill switch,
notes and problems as values) -> `match` (which domains a prompt brings back)
-> `render` (full or short blocks, the one fence, the budget in the host's characters).

Imports no CLI framework, and no msgspec, typing, dataclasses, pathlib or
subprocess either: the prompt hook loads this on every prompt
(`tests/recall/test_lean_imports.py`).
"""

from abcd.rules.loader import (
    MACHINE_RULES_REL,
    Domain,
    LayerStatus,
    RuleSet,
    load,
    load_here,
    merge,
)
from abcd.rules.match import Match, hitting_words, match, summoned
from abcd.rules.render import Fitted, fence, fit, heading, render_domain, render_rule
from abcd.rules.schema import RULES_SCHEMA_VERSION, DomainLayer, Layer, Word, parse_layer

__all__ = [
    "MACHINE_RULES_REL",
    "RULES_SCHEMA_VERSION",
    "Domain",
    "DomainLayer",
    "Fitted",
    "Layer",
    "LayerStatus",
    "Match",
    "RuleSet",
    "Word",
    "fence",
    "fit",
    "heading",
    "hitting_words",
    "load",
    "load_here",
    "match",
    "merge",
    "parse_layer",
    "render_domain",
    "render_rule",
    "summoned",
]

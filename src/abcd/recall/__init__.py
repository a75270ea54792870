"""Recall: bring back the rules, notes and pages a prompt is about, ranked, within a budget.

The flow is the layout: `terms` (the one term rule: words, stems, phrases,
the prompt index) -> candidates (an item whose recall word hits) -> `bm25f`
(the ranking, its ties) -> budget and render. `constants` names every figure
once with its reason.

This package file imports nothing, so a caller that needs only the
constants does not pay for the stemmer; import the modules themselves.
Recall's values derive from `abcd.value.Value`.
"""

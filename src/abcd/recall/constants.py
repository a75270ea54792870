"""Every recall constant, named once, each with the reason it has its value.

Ranking (BM25F), the prompt scan, the injection budgets, the backstop, the
context brackets and the session files' age all read from here, so a test can
say "no threshold literal outside this module" and a reviewer finds the
figures in one place (SPEC sections 8 and 9; seed 000, "Ranking" and
"Context brackets").
"""

from __future__ import annotations

# `Final` is read by mypy only: the prompt hook loads this module, and `typing`
# costs it milliseconds.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

# --- the term rule ---------------------------------------------------------

# The term rule caches word -> stem. A 64 KiB prompt holds a few thousand
# distinct words and the items in reach a few thousand more; 50,000 entries
# (a few MiB at most) keeps every one of them for the life of the process
# while bounding what a long-lived process can grow to.
STEM_CACHE_SIZE: Final = 50_000

# Text other than ASCII is read by a pattern holding the combining marks the
# text holds. A process meets a handful of such sets (a script's marks); 64
# patterns keep them all compiled, and a process that meets more recompiles.
WORD_PATTERNS_KEPT: Final = 64
# Characters whose Unicode category was looked up (punctuation, symbols and
# marks beyond Latin-1; letters and digits need no look-up). A few scripts'
# worth; past it a character is looked up again each time.
MARK_CACHE_SIZE: Final = 4096

# The prompt is scanned up to this many UTF-8 bytes: a pasted log or file past
# it adds nothing a person typed, and the bound keeps the hook's work fixed.
PROMPT_SCAN_BYTES: Final = 64 * 1024

# --- BM25F (seed 000, "Ranking") -------------------------------------------

# A word the item's author chose to be recalled by says most about it, its
# title next, its body least: three, two, one, as the seed rules.
WEIGHT_RECALL: Final = 3
WEIGHT_TITLE: Final = 2
WEIGHT_BODY: Final = 1
FIELD_WEIGHTS: Final = (("recall", WEIGHT_RECALL), ("title", WEIGHT_TITLE), ("body", WEIGHT_BODY))

# The textbook values (Robertson and Zaragoza 2009; Lucene's and SQLite FTS5's
# defaults): k1 sets how fast repeats of a term stop adding weight, b how much
# a long item is discounted against the average length.
K1: Final = 1.2
B: Final = 0.75

# Two scores within a billionth are a tie (broken by scope, recency, key):
# arithmetic equal on paper can differ in its last bits between machines, and
# the order must be the same on every machine.
TIE_EPSILON: Final = 1e-9

# --- budgets (SPEC section 8) ----------------------------------------------

# Rules and memory share this per prompt, rules first: enough for every
# matched domain and several pages, small against any model's window.
INJECTION_BUDGET_BYTES: Final = 64 * 1024
# Moderate bracket: the top-ranked notes and pages in full within this, the
# rest one line each. Depleted: one line each within this, at least the top one.
MODERATE_FULL_BYTES: Final = 8 * 1024
DEPLETED_LINES_BYTES: Final = 2 * 1024

# Every 15th prompt of a session clears the ledgers first, so an item that is
# always relevant comes back after the context has scrolled it away.
BACKSTOP_EVERY_PROMPTS: Final = 15

# --- context brackets (SPEC section 9): share of the window still free ------

# At or above this much free, everything comes back in full ("fresh").
FRESH_MIN_FREE_PERCENT: Final = 70.0
# At or above this (and below fresh) the "moderate" forms; below it "depleted".
MODERATE_MIN_FREE_PERCENT: Final = 40.0

# --- session files ----------------------------------------------------------

# Session and fill files untouched this long are swept whole: no host session
# is resumed after a week, and the folder must not grow without bound.
SESSION_STALE_SECONDS: Final = 7 * 24 * 60 * 60

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

# The host keeps a UserPromptSubmit hook's output whole up to this many
# characters and replaces anything longer with a 2 KB preview, saving the
# whole in its own project folder: measured on Claude Code 2.1.197
# (`shared/host/README.md`; its code: `if (stdout.trim().length <= 1e4)`).
# Everything the hook prints (rules, the truncation line, the memory heading,
# notes and pages, the final newline) fits in it, counted as the host counts:
# UTF-16 code units, JavaScript's `length` (`abcd.recall.budget.host_len`).
# `ABCD_HOST_CONTEXT_CHARS` sets another figure for a newer or another host.
HOST_CONTEXT_CHARS: Final = 10_000
HOST_CONTEXT_MEASURED_ON: Final = "Claude Code 2.1.197"
# What `ABCD_HOST_CONTEXT_CHARS` may say: below a thousand there is no room
# for a rules block and a note together; past a million characters a prompt
# would carry more than any model's window holds.
HOST_CONTEXT_MIN_CHARS: Final = 1_000
HOST_CONTEXT_MAX_CHARS: Final = 1_000_000
# When the rules alone would fill the budget and a note or page is waiting,
# the rules stop short of it by this share: 2,500 of 10,000 characters hold
# any note in full (a body of at most 2 KiB, a title of at most 120
# characters: about 2,250 rendered), or two dozen one-line items, and leave
# three quarters to the rules (docs/decisions.md).
MEMORY_FLOOR_SHARE: Final = 0.25
# Moderate bracket: the top-ranked notes and pages in full within this, the
# rest one line each. Depleted: one line each within this, at least the top
# one. Characters, as the host counts them, inside the host's budget.
MODERATE_FULL_CHARS: Final = 8 * 1024
DEPLETED_LINES_CHARS: Final = 2 * 1024

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

# --- the second tier (issue 16) ---------------------------------------------

# An item no recall word hit is a candidate when BM25F over the prompt's content words (its
# stems less `abcd.recall.second.STOP_WORDS`) gives it at least this score, and that score is at
# least this share of the idf the prompt's content words carry. These four were calibrated on the
# tuning half of `tools/recallset/` (with `tune2.jsonl`'s 45 everyday prompts that match nothing),
# over the writings of its notes a home holds now: the set's own and the two written under the
# `/abcd:memory` page as shipped (`taught2/`, `taught2-b/`; since the twentieth round). The rule:
# the setting with the best hit@1, then hit@5, that is never noisier than the first tier alone on
# the prompts that match nothing, the strictest of those that tie (docs/recall.md, "The second
# tier", "The seventh round" and "The ninth round"): an item must hold two fifths of what the
# prompt's content words carry. `fourth.jsonl`, written blind before this calibration, was scored
# once after it.
SECOND_MIN_SCORE: Final = 3.5
SECOND_MIN_SHARE: Final = 0.4
# How many of the prompt's content words an item must hold to be admitted: one word alone ("plan",
# "edit", "now") is how a prompt about something else reaches a note, and a prompt of one content
# word gives any item holding it the whole share ("what should I do now with it?"). Calibrated in
# the third round, and not swept since the seventh (docs/recall.md).
SECOND_MIN_WORDS: Final = 2
# How much a content word no item in reach holds counts in the share's whole, as a fraction of the
# idf of such a word (0: not at all, as in the first round; calibrated with the three above).
SECOND_UNHELD_WEIGHT: Final = 1.0
# A prompt with more distinct content words than this is a paste (a log, a file), not what a
# person types: the second tier judges nothing for it, which bounds its work on the hook's path.
SECOND_MAX_WORDS: Final = 48

"""Named limits and sizes, each set once, each with the reason it has that value.

Recall's ranking constants live in `abcd.recall.constants`; everything that
bounds storage or a note lives here.
"""

from __future__ import annotations

# --- notes (SPEC section 4): short enough to read in a review, long enough for one lesson
TITLE_MAX_CHARS = 120
BODY_MAX_BYTES = 2 * 1024
# A body on stdin is read this far and no further: past 2 KiB it is refused anyway (after the
# blanks around it are stripped, so room is left for them), and an endless pipe (`yes |`) is
# refused at once instead of held, growing, until the command is killed.
BODY_STDIN_MAX_CHARS = 1024 * 1024
RECALL_MIN_WORDS = 1
RECALL_MAX_WORDS = 12
# Fewer recall words than this and `memory add` says so (exit 0, the note stands): a note comes
# back when a prompt holds one of its words, and the set in tools/recallset misses most often on
# notes given two or three, where the person typed the symptom (docs/recall.md, "The third round").
RECALL_FEW_WORDS = 4
RECALL_WORD_MAX_CHARS = 64
# The host's session ids are UUIDs; the shape allows other hosts' ids but never a link.
SESSION_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}"
# `Vendor:model`, the shape of an Assisted-by trailer; a person removing a note may write `person`.
# The host names its models with a context-size tag (`claude-opus-4-8[1m]`); the tag is allowed.
WRITTEN_BY_PATTERN = r"[A-Z][A-Za-z0-9]{0,31}:[a-z0-9][a-z0-9._-]{0,63}(\[[a-z0-9]{1,8}\])?"
NOTE_ID_PATTERN = r"mem-[0-9]{16}"

# --- the journal (SPEC section 3)
# The newest line version this abcd reads. A line is written at its event's `SINCE`
# (`abcd.journal.events`): v1 for the first kinds, v2 for the review events (issue 14), v3 for a restore,
# so a journal without them stays readable by an abcd built before them.
JOURNAL_VERSION = 3
# Session and fill files (`abcd.session.events`): not the journal, versioned on their own.
SESSION_FILE_VERSION = 1
# Segments roll at this size so no file grows forever and a fold can start from a checkpoint.
SEGMENT_MAX_BYTES = 8 * 1024 * 1024
# One journal line holds one note (at most ~2 KiB body + 12 x 64 recall + stamps);
# anything longer than this is not a line this tool wrote.
LINE_MAX_BYTES = 64 * 1024
ZERO_HASH = "0" * 64
# The newest view schema this abcd reads. A view whose notes carry review stamps (revision,
# reviewed, promoted: issue 14) is written at 2, which an older abcd refuses and re-folds
# from the journal, meeting the v2 line it refuses by name; any other view is written at 1.
VIEW_SCHEMA_VERSION = 2
VIEW_SCHEMA_PLAIN = 1

# --- trust (SPEC section 6): bounds on what a reader will load
RULES_MAX_BYTES = 256 * 1024
# Set for 10,000 notes at their largest (~3.2 KiB each as JSON) with headroom:
# a view past this is not one the fold wrote.
VIEW_MAX_BYTES = 64 * 1024 * 1024
# `memory import` takes at most this much input: 10,000 notes at their largest.
IMPORT_MAX_BYTES = 64 * 1024 * 1024
DIR_MODE = 0o700
FILE_MODE = 0o600

# --- the home
HOME_ENV = "ABCD_HOME"
HOME_DEFAULT_NAME = ".abcd.noindex"
SESSION_ENV = "CLAUDE_CODE_SESSION_ID"

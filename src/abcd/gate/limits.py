"""The gate's own bounds, each set once with its reason.

They live here rather than in `abcd.constants` because only the gate reads
them; the note limits the gate's caller enforces stay in `abcd.constants`.
"""

from __future__ import annotations

# A note's body is at most 2 KiB, a title 120 characters, a recall word 64: the
# gate scans at most four times the largest field, so every scan stays bounded
# even when a caller judges before it checks limits. Longer input is refused.
GATE_INPUT_MAX_CHARS = 8 * 1024

# A banlist is a person's list of names, one a line: thousands of names fit in
# 64 KiB. A bigger file is not one a person keeps by hand, so it is refused.
PRIVATE_NAMES_MAX_BYTES = 64 * 1024

# Shannon entropy (bits per character) at or above which a value assigned to a
# `password`/`secret`/`token`/`api_key` name reads as a literal secret rather
# than a word; 8 distinct characters in 8 reach it, `changeme` (2.75) does not.
GENERIC_ENTROPY_MIN = 3.0
# Shorter values are too short to tell a secret from a word.
GENERIC_VALUE_MIN_CHARS = 8
# A value a name is followed by with no operator at all (`use the token ...`): prose names
# things that way too (`the token service auth-svc-v2`), and a key or token is long.
BARE_VALUE_MIN_CHARS = 12
# A value of letters only is judged for randomness from this length on:
# shorter ones are too short to tell a random string from a word.
RANDOM_LETTERS_MIN_CHARS = 10

"""Attempts to walk around the gate, built at run time: a secret, a home or a name, disguised.

Each attempt is a `Sample` (the `text` to write, the `secret` that must never
be echoed) with the `kind` the refusal must name. Disguises change nothing a
reader sees: hidden characters inside the token, full-width or mathematical
letters, a terminal escape sequence, a line break where a terminal wrapped it. No secret-shaped literal sits here:
every shape is assembled from pieces (see `samples.py`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import NamedTuple

from abcd.gate.homepath import HOME_PATH
from abcd.gate.names import PRIVATE_NAME
from abcd.gate.secrets import RULES

from .samples import DIGITS, LOWER, TRUE_SECRETS, Sample, mixed, rand, random_letters

KIND = {rule.id: rule.kind for rule in RULES}
SHAPED = frozenset(rule.id for rule in RULES if not rule.named)
PASSWORD_ON_COMMAND_LINE = "secret: password on a command line"
PASSWORD_IN_URL = "secret: password in url"
ASSIGNMENT = "secret: credential assignment"

# Characters that render as nothing: bidi isolates, variation selectors, a tag
# character, Hangul fillers, the blank Braille pattern, zero-width ones, the
# soft hyphen, the combining grapheme joiner, the Mongolian vowel separator.
HIDDEN = (
    "\u2066",
    "\u2067",
    "\u2068",
    "\u2069",
    "\ufe0f",
    "\ufe00",
    "\U000e0041",
    "\U000e0020",
    "\u3164",
    "\uffa0",
    "\u115f",
    "\u1160",
    "\u2800",
    "\u200b",
    "\u200d",
    "\u00ad",
    "\u034f",
    "\u180e",
    "\u2060",
    "\ufeff",
)
PRIVATE = "Zephyrine"


class Attempt(NamedTuple):
    name: str
    sample: Sample
    kind: str
    names: tuple[str, ...] = ()


def hide_inside(rng: random.Random, sample: Sample) -> Sample:
    """Hidden characters at three places inside the secret (never at its edges)."""
    secret = sample.secret
    chars = list(secret)
    for _ in range(3):
        at = rng.randrange(1, len(chars))
        chars.insert(at, rng.choice(HIDDEN))
    disguised = "".join(chars)
    return Sample(sample.text.replace(secret, disguised), secret)


def full_width(rng: random.Random, sample: Sample) -> Sample:
    """Every printable ASCII character as its full-width form (NFKC folds them back)."""
    table = {code: code + 0xFEE0 for code in range(0x21, 0x7F)}
    table[0x20] = 0x3000
    return Sample(sample.text.translate(table), sample.secret)


def math_letters(rng: random.Random, sample: Sample) -> Sample:
    """Letters as MATHEMATICAL BOLD letters, digits as MATHEMATICAL BOLD digits."""
    table = {ord(c): 0x1D400 + i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZ")}
    table |= {ord(c): 0x1D41A + i for i, c in enumerate("abcdefghijklmnopqrstuvwxyz")}
    table |= {ord(c): 0x1D7CE + i for i, c in enumerate(DIGITS)}
    return Sample(sample.text.translate(table), sample.secret)


def escape_inside(rng: random.Random, sample: Sample) -> Sample:
    """A terminal escape sequence (which a terminal shows as nothing) inside the secret."""
    secret = sample.secret
    at = rng.randrange(1, len(secret))
    seq = rng.choice(["\x1b[0m", "\x1b[1;31m", "\x1b]8;;\x07", "\x1b(B"])
    return Sample(sample.text.replace(secret, secret[:at] + seq + secret[at:]), secret)


def wrap_inside(rng: random.Random, sample: Sample) -> Sample:
    """A line break inside the secret, as a terminal that wrapped it at its width leaves it
    (`\n` or `\r\n`, nothing else: no space on either side)."""
    secret = sample.secret
    places = [
        i for i in range(1, len(secret)) if not (secret[i - 1].isspace() or secret[i].isspace())
    ]
    at = rng.choice(places)
    wrapped = secret[:at] + rng.choice(["\n", "\r\n"]) + secret[at:]
    return Sample(sample.text.replace(secret, wrapped), secret)


def terminal_session(rng: random.Random, sample: Sample) -> Sample:
    """The secret in a terminal's output, wrapped at the terminal's width where the wrap cuts it:
    the command that printed it on the line before, the shell's prompt on the line after (both
    glued to it when every line break inside a word is taken out)."""
    secret = sample.secret
    cut = sample.text.index(secret) + rng.randrange(1, len(secret))
    width = max(rng.choice([40, 80, 120]), cut)
    lead = ("output " * 40)[: width - cut - 1] + " " if width > cut else ""
    shown = lead + sample.text
    if len(shown) % width == 0:
        shown += " ok"  # a last line exactly as wide as the terminal reads as wrapped too
    lines = [shown[i : i + width] for i in range(0, len(shown), width)]
    text = "$ cat the-output\n" + "\n".join(lines) + "\ndev@box:~$ exit"
    return Sample(text, secret)


Disguise = Callable[[random.Random, Sample], Sample]
DISGUISES: dict[str, Disguise] = {
    "plain": lambda rng, sample: sample,
    "hidden characters": hide_inside,
    "full width": full_width,
    "mathematical letters": math_letters,
    "escape sequence": escape_inside,
    "wrapped line": wrap_inside,
    "terminal session": terminal_session,
}


def _url_password(rng: random.Random) -> Sample:
    password = mixed(rng, 10) + rng.choice(["%40", "%23", "#", "?", "%2F", "%3A"]) + mixed(rng, 6)
    if rng.randrange(2):
        password = "%21" + password  # a percent-encoded first character is a value, not %VAR%
    return Sample(f"postgres://app:{password}@db.example.com:5432/app", password)


def _letters_only_assignment(rng: random.Random) -> Sample:
    name = rng.choice(["pwd", "db_pass", "SMTP_PASS", "private_key", "signing_key", "API_KEY"])
    value = random_letters(rng, rng.randrange(14, 30))
    return Sample(f"{name} = {value}", value)


def _home(rng: random.Random) -> Sample:
    user = rand(rng, 1, LOWER) + rand(rng, 6, LOWER + DIGITS)
    form = rng.choice(
        [
            "/usr/home/{u}/src",
            "/export/home/{u}/.profile",
            "/mnt/c/Users/{u}/Desktop",
            "/cygdrive/d/Users/{u}/x",
            "/c/Users/{u}/proj",
            "~{u}/src/app",
            "cd ~{u}",
        ]
    )
    return Sample(f"the file sits at {form.format(u=user)} today", user)


def _glued_name(rng: random.Random) -> Sample:
    form = rng.choice(["{}_deploy", "deploy_{}", "{}-staging", "{}2", "{}_API"])
    word = PRIVATE.lower()
    if rng.randrange(2):
        form, word = rng.choice(["{}Client", "get{}Token", "use{}"]), PRIVATE
    return Sample(form.format(word) + " runs nightly", word)


EXTRA: dict[str, tuple[Callable[[random.Random], Sample], str, tuple[str, ...]]] = {
    "percent-encoded or raw #? url password": (_url_password, PASSWORD_IN_URL, ()),
    "letters-only random assignment": (_letters_only_assignment, ASSIGNMENT, ()),
    "home folder of another system": (_home, HOME_PATH, ()),
    "private name glued into an identifier": (_glued_name, PRIVATE_NAME, (PRIVATE,)),
}


def attempts(per_class: int = 2, seed: int = 11) -> Iterator[Attempt]:
    """Every secret rule's shape and every extra class, under every disguise."""
    rng = random.Random(seed)
    generators = {rule_id: (gen, KIND[rule_id], ()) for rule_id, gen in TRUE_SECRETS.items()}
    generators |= EXTRA
    for class_name, (generate, kind, names) in generators.items():
        for disguise_name, disguise in DISGUISES.items():
            if disguise in (wrap_inside, terminal_session) and class_name not in SHAPED:
                continue  # only the token shapes are judged unwrapped (docs/gate.md says why)
            for _ in range(per_class):
                sample = disguise(rng, generate(rng))
                yield Attempt(f"{class_name} / {disguise_name}", sample, kind, names)

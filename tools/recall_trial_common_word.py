#!/usr/bin/env python3
"""Trial (issue 16, second round): drop a first-tier candidate hit only by one common English word.

    .venv/bin/python tools/recall_trial_common_word.py

The rule tried: a candidate the first tier brought whose only hit is one
single-word recall word, that word a common English word (its stem has a
line in `src/abcd/recall/synonyms.txt`: WordNet gives it an attested sense
with a synonym), and the item holding none of the prompt's other content
words, is left out. Prints the figures of `tools/recall_eval.py` per half
with the rule on, and every tuning-half miss.
"""

import io
import json
import os
import sys
import tempfile
import uuid

sys.path.insert(0, "tools")
from pathlib import Path

import recall_eval as ev
from abcd.recall.second import content
from abcd.recall.terms import Prompt, stems
from abcd.recall.terms import words as wordsof

syn = set(l.split(" ")[0] for l in open("src/abcd/recall/synonyms.txt") if not l.startswith("#"))
rs = Path("tools/recallset")
prompts = [json.loads(l) for l in (rs / "prompts.jsonl").read_text().splitlines()]


def go(common_only):
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir(mode=0o700)
        outside = Path(tmp) / "e"
        outside.mkdir()
        ids = ev.build_home(home, rs)
        key_of = {v: k for k, v in ids.items()}
        os.environ["ABCD_HOME"] = str(home)
        from abcd.host.hook import Payload, route

        rows = []
        for p in prompts:
            payload = Payload(
                {"session_id": str(uuid.uuid4()), "prompt": p["prompt"], "cwd": str(outside)}
            )
            with route(payload, io.StringIO()) as o:
                cw = set(content(Prompt(p["prompt"])))
                keep = []
                for c in o.candidates:
                    if c.second is None and len(c.hits) == 1 and " " not in c.hits[0]:
                        hit = stems(wordsof(c.hits[0]))
                        others = cw - set(hit)
                        doc = set(c.item.doc().weights())
                        if others and not (others & doc) and (not common_only or hit[0] in syn):
                            continue
                    keep.append(c)
                ranked = [key_of.get(c.item.key, c.item.key) for c in keep[:5]]
                sent = [key_of.get(c.item.key, c.item.key) for c in o.recalled if c in keep]
            rows.append(ev.Row(p, ranked, sent))
    for h in ("tune", "held"):
        print(common_only, ev.line(h, ev.figures([r for r in rows if r.half == h])))
    return rows


for co in (True,):
    rows = go(co)
    for r in rows:
        if r.half == "tune" and (
            (r.expect and r.ranked[:1] != [r.expect]) or (r.expect is None and r.sent)
        ):
            print("  ", r.kind, repr(r.prompt), r.expect, r.ranked, r.sent)

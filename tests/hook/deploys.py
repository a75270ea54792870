"""A checkout where a prompt matches far more than the host keeps whole: rules, notes, one top note.

Shared by the hook's tests and the real host's (`tests/e2e`): a dozen rule
domains and thirty project notes about deploys (~40,000 characters match
"deploy the canary"), and one personal note, written through `abcd memory
add`, that alone holds the rarer word, so it ranks first.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import BY, Run

from .conftest import project_notes, rules

PROMPT = "deploy the canary"
TOP_TITLE = "Canary deploys go zone by zone"
TOP_BODY = "Roll the canary to one zone first, watch its error rate for ten minutes. " * 18


def far_more_than_the_host_keeps(abcd: Run, repo: Path) -> str:
    """A dozen rule domains and thirty notes on deploys: ~40,000 characters match the prompt.

    Returns the id of the note that ranks first (it alone holds the rarer word).
    """
    rules(
        repo / ".abcd",
        {
            f"DEPLOY_{n:02}": {
                "recall": ["deploy"],
                "rules": [
                    f"Deploy rule {n}.{r}: " + "check the rollout plan " * 5 for r in range(10)
                ],
            }
            for n in range(12)
        },
    )
    project_notes(
        repo,
        *(
            {
                "id": f"mem-26110100000{n:05}",
                "title": f"Deploy lesson {n}",
                "body": f"Lesson {n}: " + "tag the release before the deploy goes out. " * 18,
                "recall": ["deploy"],
            }
            for n in range(30)
        ),
    )
    added = abcd(
        "memory", "add", "--title", TOP_TITLE, "--recall", "deploy",
        "--recall", "canary", "--by", BY, stdin=TOP_BODY, cwd=repo,
    )  # fmt: skip
    assert added.code == 0, added.err
    return added.out.strip()

"""A page's recency is the date it carries, so two clones of one commit break a tie the same way."""

from __future__ import annotations

import json
import os
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from abcd.recall.items import is_recency, page_item
from tests.conftest import Run, git

PAGES = Path(".abcd") / "memory"
SAME = "---\nrecall: [deploy]\nsummary: Deploy steps\n{extra}---\nRun the release script.\n"


def clone(tmp_path: Path, name: str, pages: dict[str, str]) -> Path:
    """A repository holding `pages` (file name: frontmatter lines beyond the shared ones)."""
    top = tmp_path / name
    (top / PAGES).mkdir(parents=True)
    git(top, "init", "-q", "-b", "main")
    for file, extra in pages.items():
        (top / PAGES / file).write_text(SAME.format(extra=extra))
    return top


def ranked(abcd: Run, top: Path) -> list[tuple[str, str]]:
    """The pages `abcd rules --prompt deploy --json` ranks, first first, each with its recency."""
    result = abcd("rules", "--prompt", "deploy the release", "--json", cwd=top)
    assert result.code == 0, result.err
    pages = sorted(json.loads(result.out)["pages"], key=lambda p: p["rank"])
    return [(p["key"], p["recency"]) for p in pages]


def stamp(path: Path, hours_ago: int) -> None:
    when = (datetime.now(UTC) - timedelta(hours=hours_ago)).timestamp()
    os.utime(path, (when, when))


def test_two_clones_whose_files_have_opposite_mtimes_rank_tied_pages_identically(
    abcd: Run, tmp_path: Path
) -> None:
    pages = {"ref_deploy_alpha.md": "", "ref_deploy_beta.md": ""}
    first, second = clone(tmp_path, "first", pages), clone(tmp_path, "second", pages)
    stamp(first / PAGES / "ref_deploy_alpha.md", 1)
    stamp(first / PAGES / "ref_deploy_beta.md", 50)
    stamp(second / PAGES / "ref_deploy_alpha.md", 50)
    stamp(second / PAGES / "ref_deploy_beta.md", 1)
    expected = [("page:ref_deploy_alpha.md", ""), ("page:ref_deploy_beta.md", "")]
    assert ranked(abcd, first) == ranked(abcd, second) == expected


def test_a_tie_breaks_on_the_date_a_page_carries_whatever_its_file_says(
    abcd: Run, tmp_path: Path
) -> None:
    pages = {
        "ref_deploy_alpha.md": "date: 2026-03-01\n",
        "ref_deploy_beta.md": "updated: 2026-10-12T09:30Z\ndate: 2025-01-01\n",
        "ref_deploy_gamma.md": "updated: last tuesday\n",
    }
    first = clone(tmp_path, "first", pages)
    stamp(first / PAGES / "ref_deploy_gamma.md", 0)
    stamp(first / PAGES / "ref_deploy_beta.md", 5000)
    second = tmp_path / "second"
    shutil.copytree(first, second)  # new files, new times
    expected = [
        ("page:ref_deploy_beta.md", "2026-10-12T09:30Z"),
        ("page:ref_deploy_alpha.md", "2026-03-01"),
        ("page:ref_deploy_gamma.md", ""),
    ]
    assert ranked(abcd, first) == ranked(abcd, second) == expected


def page_dated(value: str) -> str:
    return page_item(
        "ref_a_b.md", f"---\nrecall: [a]\nupdated: {value}\n---\nbody\n", "machine"
    ).recency


@given(st.datetimes(min_value=datetime(1000, 1, 1), max_value=datetime(9999, 12, 31)))
def test_every_iso_date_and_utc_time_is_a_recency_and_sorts_as_its_time(moment: datetime) -> None:
    forms = [
        moment.strftime("%Y-%m-%d"),
        moment.strftime("%Y-%m-%dT%H:%MZ"),
        moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
        moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
    ]
    for text in forms:
        assert is_recency(text) and page_dated(text) == text
    later = moment + timedelta(seconds=1)
    assert moment.strftime("%Y-%m-%dT%H:%M:%SZ") < later.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_what_is_not_an_iso_date_or_a_utc_time_is_no_recency() -> None:
    for text in (
        "last tuesday",
        "2026-1-2",
        "2026-10-12T09:30+02:00",
        "2026-10-12T09:30",
        "2026-10-12T09:30.5Z",
        "２０２６-10-12",
        "2026-10-12 09:30Z",
        "",
    ):
        assert not is_recency(text), text
        assert page_dated(text) == ""

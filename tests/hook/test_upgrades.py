"""A home an earlier abcd wrote, read by this one (nineteenth round): nothing it kept is served
when this abcd would read the files otherwise."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import Run

from .conftest import Host

# A hook run as an earlier abcd ran it: its page reader did not pass over a byte order mark
# (a page with one had no frontmatter, so no recall words), and its parse rule was another.
_EARLIER_ABCD = """
import sys
from abcd.recall import items, stemcache
from abcd.host import hook

reads = items.parse_frontmatter

def earlier(text):
    return ({}, text) if text.startswith("\\ufeff") else reads(text)

items.parse_frontmatter = earlier
stemcache.PARSE_RULE_VERSION = "an earlier abcd"
sys.exit(hook.main(sys.argv[1:], sys.stdin.buffer, sys.stdout, sys.stderr))
"""


def _as_an_earlier_abcd(payload: dict[str, object]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _EARLIER_ABCD, "prompt-router"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_parse_an_earlier_abcd_kept_is_read_again_after_the_upgrade(
    host: Host, repo: Path, abcd: Run, abcd_home: Path
) -> None:
    # Saved as a Windows editor saves it: a byte order mark first. An abcd before the
    # eighteenth round read no recall words in it, and kept that parse under the page's stat.
    page = repo / ".abcd" / "memory" / "howto_network_retry.md"
    page.parent.mkdir(parents=True)
    page.write_bytes(
        b"\xef\xbb\xbf---\nrecall: [retry budget]\nsummary: How the retry budget works\n---\n"
        b"The retry budget is three tries with backoff.\n"
    )
    old = time.time_ns() - 3600 * 10**9  # untouched since an earlier day: the parse is kept
    os.utime(page, ns=(old, old))
    prompt = "what is the retry budget"

    host.start("s1")
    earlier = _as_an_earlier_abcd({"session_id": "s1", "cwd": str(repo), "prompt": prompt})
    assert earlier.returncode == 0, earlier.stderr
    assert "howto_network_retry" not in earlier.stdout
    assert list((abcd_home / "cache").glob("parsed-*.marshal")), "the earlier abcd kept its parse"

    # Upgraded: the earlier abcd's parse is not this one's copy of the file, nor a tampered one.
    verified = abcd("journal", "verify")
    assert verified.code == 0, verified.err
    assert "holds what the file does not" not in verified.err
    # And this abcd reads the page as `rules --prompt` does, from the first prompt on.
    diagnosed = abcd("rules", "--prompt", prompt)
    assert diagnosed.code == 0, diagnosed.err
    assert "page:howto_network_retry.md" in diagnosed.out
    host.start("s2")
    out, err = host.plain(prompt, "s2")
    assert "recalled 1 page(s) [page:howto_network_retry.md (project)]" in err
    assert "The retry budget is three tries" in out or "How the retry budget works" in out
    again, _ = host.plain(prompt, "s3")
    assert "How the retry budget works" in again


def test_the_parse_rule_version_is_the_digest_of_the_parse_rule() -> None:
    # A parse kept under another reading of the files is never served: edit one of the
    # `PARSE_RULE_SOURCES` and this test names the value to write in `abcd.recall.stemcache`.
    import abcd
    from abcd.recall.stemcache import PARSE_RULE_SOURCES, PARSE_RULE_VERSION

    package = Path(abcd.__file__).parent
    digest = hashlib.sha256(b"".join((package / rel).read_bytes() for rel in PARSE_RULE_SOURCES))
    value = digest.hexdigest()[:16]
    assert value == PARSE_RULE_VERSION, f"set PARSE_RULE_VERSION = {value!r} in stemcache"


def test_two_installs_of_different_versions_sharing_a_home_do_not_rewrite_each_others_caches(
    host: Host, repo: Path, abcd_home: Path
) -> None:
    """Each cache file was named by the checkout alone: an earlier and a later abcd sharing one
    home (a second install on the PATH, a project's own venv) each found the other's set under
    another parse rule and rewrote it whole, on every prompt (at 600 pages ~630 KB and +17 ms a
    prompt). Each now keeps a set of its own, and a prompt of either rewrites neither."""
    folder = repo / ".abcd" / "memory"
    folder.mkdir(parents=True)
    for n in range(30):
        (folder / f"howto_deploy_step{n}.md").write_text(
            f"---\nrecall: [deploy, step{n}]\nsummary: Deploy step {n}\n---\nRun step {n}.\n"
        )
    old = time.time_ns() - 3600 * 10**9
    for page in folder.iterdir():
        os.utime(page, ns=(old, old))
    host.start("s1")

    def written() -> dict[str, int]:
        return {p.name: p.stat().st_mtime_ns for p in (abcd_home / "cache").glob("*.marshal")}

    for n in range(2):  # each version once: each writes its own set
        assert (
            _as_an_earlier_abcd(
                {"session_id": f"old-{n}", "cwd": str(repo), "prompt": f"deploy step{n}"}
            ).returncode
            == 0
        )
        host.plain(f"deploy step{n}", f"new-{n}")
    before = written()
    assert len(before) == 6, sorted(before)  # parsed, reach, stems: one set per version
    for n in range(2, 5):  # alternately, as two hooks would run
        earlier = _as_an_earlier_abcd(
            {"session_id": f"old-{n}", "cwd": str(repo), "prompt": f"deploy step{n}"}
        )
        assert earlier.returncode == 0, earlier.stderr
        out, _ = host.plain(f"deploy step{n}", f"new-{n}")
        assert f"Deploy step {n}" in out
    assert written() == before

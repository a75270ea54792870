"""The real host keeps a hook's output whole only up to 10,000 characters; abcd's block fits.

Claude Code 2.1.197 replaces a prompt hook's output longer than 10,000
characters with a 2 KB preview (`<persisted-output>`, "Output too large ...")
and writes the whole to a file in its own folder (`shared/host/README.md`).
A checkout whose prompt matches ~40,000 characters of rules and notes, in a
fresh window: the model's request must carry abcd's block whole, with the
first-ranked note in it.

`claude -p` has no status line, so the story is told as an interactive
session's would be: a first prompt that matches nothing starts the session,
the status line reports 3% of the window used (`abcd statusline` with the
host's status payload for that session), and the session is resumed with
the prompt that matches.
"""

from __future__ import annotations

import subprocess
import uuid
from dataclasses import replace
from pathlib import Path

import pytest

from abcd.cli.plugin_cmd import plugin_dir
from abcd.recall.budget import host_len
from abcd.recall.constants import HOST_CONTEXT_CHARS
from tests.conftest import Run
from tests.e2e.claude_cli import Claude, skip_without_node
from tests.e2e.mock_api import Request, strings
from tests.e2e.workspace import HOOKS_MISSING, abcd_hooks_ready
from tests.hook.deploys import PROMPT, TOP_BODY, TOP_TITLE, far_more_than_the_host_keeps
from tests.host.helpers import with_used

skip_without_node()

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not abcd_hooks_ready(), reason=f"e2e recall {HOOKS_MISSING}"),
]

HOOK_SUCCESS = "UserPromptSubmit hook success: "


def hook_output(request: Request) -> str:
    """The text the prompt hook added to this request, as the model reads it."""
    (block,) = [s for s in strings(request.messages) if HOOK_SUCCESS in s]
    return block[block.index(HOOK_SUCCESS) + len(HOOK_SUCCESS) :]


def test_a_prompt_matching_far_more_than_the_host_keeps_reaches_the_model_whole(
    claude: Claude, abcd: Run, project: Path, tmp_path: Path
) -> None:
    top = far_more_than_the_host_keeps(abcd, project)
    host = replace(claude, plugin_dir=plugin_dir())
    session = str(uuid.uuid4())
    host.run("hello there", session_id=session)
    reading = subprocess.run(
        [str(Path(host.path_dirs[0]) / "abcd"), "statusline"],
        input=with_used(3, session),
        env=host.env(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert reading.returncode == 0 and reading.stderr == b"", reading.stderr

    turn = host.run(PROMPT, resume=session)

    (request,) = turn.agent_requests()
    sent = request.text()
    assert "persisted-output" not in sent
    assert "Output too large" not in sent
    block = hook_output(request)
    assert host_len(block.rstrip("\n")) <= HOST_CONTEXT_CHARS
    assert f"### {top} (personal note, agent-written): {TOP_TITLE}" in block
    assert TOP_BODY.strip() in block  # the first-ranked note, in full
    assert "INJECTION TRUNCATED" in block
    assert "## MEMORY" in block

"""How much of a hook's output the real host hands the model (docs/host.md, measured on 2.1.197).

Recall's budget stands on this: the host keeps a UserPromptSubmit hook's
context whole only up to 10,000 characters, and past that sends the model a
~2 KB preview and saves the whole output to a file of its own. A plugin of
two plain `printf` hooks (no abcd) prints 9,999 and 10,100 characters, each
a run of one letter; one run shows which arrived whole. A newer host that
moved the limit fails here.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tests.e2e.claude_cli import Claude, skip_without_node
from tests.e2e.mock_api import AgentScript

skip_without_node()

pytestmark = pytest.mark.e2e

WHOLE = 9_999
CUT = 10_100
PREVIEW = "Output too large"


def printing_plugin(folder: Path) -> Path:
    """A plugin whose UserPromptSubmit hooks print `WHOLE` x's and `CUT` y's."""
    (folder / ".claude-plugin").mkdir(parents=True)
    (folder / ".claude-plugin" / "plugin.json").write_text(
        json.dumps({"name": "sizes", "version": "0.0.1", "description": "prints long contexts"})
    )
    (folder / "hooks").mkdir()
    hooks = [
        {"type": "command", "command": f"head -c {size} /dev/zero | tr '\\0' {letter}"}
        for size, letter in ((WHOLE, "x"), (CUT, "y"))
    ]
    (folder / "hooks" / "hooks.json").write_text(
        json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": hooks}]}})
    )
    return folder


def test_the_host_keeps_a_hooks_context_whole_only_up_to_10000_characters(
    claude: Claude, tmp_path: Path
) -> None:
    claude.mock.script = AgentScript()
    sized = replace(claude, plugin_dir=printing_plugin(tmp_path / "sizes"))

    turn = sized.run("hello")

    (request,) = turn.agent_requests()
    sent = request.text()
    assert "x" * WHOLE in sent, "9,999 characters arrive whole"
    assert "y" * CUT not in sent, "10,100 characters do not"
    assert PREVIEW in sent, "the host sends a preview in their place"

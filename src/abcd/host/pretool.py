"""`abcd hook pre-tool-use`: let the agent's note-writing command run without the person's yes.

Claude Code asks the person before every Bash command (in `-p` mode it
denies it) unless a PreToolUse hook allows that one call. The plugin runs
this hook before each Bash command. It prints the host's allow decision,

    {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", ...}}

only when the payload's `tool_input.command` is exactly a command that writes
one note (`abcd.host.note_command`), in a permission mode where the person
would otherwise be asked. For anything else it prints nothing and exits 0:
no decision, so the host's own rules apply (it asks, or an allow-list or
deny rule of the person's decides). It never denies and never blocks: a bad
payload is one stderr line and exit 0.

This runs before every Bash command the agent runs, so it loads only the
payload reader and the command reader: no recall, no session files, no
CLI framework.
"""

from __future__ import annotations

from abcd.errors import AbcdError
from abcd.host.note_command import read_note_command
from abcd.host.payload import read_object, say

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO

# A Bash payload is the command (at most `COMMAND_MAX_CHARS`) and a few short fields.
PAYLOAD_MAX_BYTES = 1024 * 1024
# The modes in which the host would ask the person (the captured payload says "default");
# in "plan" the person asked for no changes yet, in "dontAsk" for only their allow-list, and
# "bypassPermissions" needs no decision; a mode this tool does not know gets none either.
ASKING_MODES = frozenset({"default", "acceptEdits"})
# The Bash tool's inputs that do not change what the command does; any other (a newer host's,
# or a sandbox escape, `dangerouslyDisableSandbox: true`) leaves the call to the person.
PLAIN_INPUTS = frozenset({"command", "description", "timeout", "run_in_background"})
REASON = "abcd memory: writing one note (abcd memory add) is allowed by the abcd plugin"
ALLOW = (
    '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow",'
    f'"permissionDecisionReason":"{REASON}"}}}}'
)


def allows(payload: dict[str, Any]) -> bool:
    """Whether this PreToolUse payload is a Bash call to write one note, in an asking mode."""
    if payload.get("hook_event_name", "PreToolUse") != "PreToolUse":
        return False
    if payload.get("tool_name") != "Bash":
        return False
    mode = payload.get("permission_mode", "default")
    if not isinstance(mode, str) or mode not in ASKING_MODES:
        return False
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        return False
    if tool_input.get("dangerouslyDisableSandbox") is False:
        tool_input = {k: v for k, v in tool_input.items() if k != "dangerouslyDisableSandbox"}
    if not PLAIN_INPUTS.issuperset(tool_input):
        return False
    command = tool_input.get("command")
    return isinstance(command, str) and read_note_command(command) is not None


def main(argv: list[str], stdin: Any, stdout: TextIO, stderr: TextIO) -> int:
    """`abcd hook pre-tool-use`: print the allow decision or nothing; always exit 0."""
    if argv[1:]:
        say(stderr, f"hook pre-tool-use takes no arguments (got {' '.join(argv[1:])!r})")
        return 0
    try:
        payload = read_object(stdin, PAYLOAD_MAX_BYTES)
    except AbcdError as err:
        say(stderr, f"hook pre-tool-use made no decision: {err}")
        return 0
    if allows(payload):
        stdout.write(ALLOW + "\n")
    return 0

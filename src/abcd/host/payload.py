"""A hook's stdin as one bounded JSON object, and the one-line way a hook speaks on stderr.

Every hook reads the host's payload the same way: at most its bound (one
byte more says it is too large), decoded with the `_json` accelerator
(`abcd.fastjson`), and refused unless it is a JSON object. The hooks never
block the host, so a refusal is an `AbcdError` the hook turns into one
stderr line (`say`) and exit 0.
"""

from __future__ import annotations

from abcd import fastjson
from abcd.errors import AbcdError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO

TAG = "abcd memory"


def read_object(stdin: Any, max_bytes: int) -> dict[str, Any]:
    """The JSON object on `stdin` (empty stdin is `{}`); `AbcdError` if too large or not one."""
    data = stdin.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise AbcdError("hook payload larger than its bound")
    try:
        raw = fastjson.loads(data or b"{}")
    except ValueError as err:
        raise AbcdError(f"hook payload is not JSON ({err})") from None
    if not isinstance(raw, dict):
        raise AbcdError("hook payload is not a JSON object")
    return raw


def say(stderr: TextIO, text: str) -> None:
    """One `abcd memory: ...` line on stderr, control characters shown escaped (`abcd.terminal`);
    a closed stderr is not an error."""
    from abcd.terminal import escaped  # only when there is something to say

    try:
        print(f"{TAG}: {escaped(text, keep='')}", file=stderr)
    except OSError:
        pass

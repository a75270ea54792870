"""A loopback mock of the Messages API that logs every request body the real host sends.

It answers `POST /v1/messages` (streamed as server-sent events when the request
says `stream: true`, else one JSON message) with a reply the test scripts, and
every other path with an empty JSON object. Every request is kept, in order,
so a test can read exactly what reached the model. The server binds 127.0.0.1
only, and stops itself after `lifetime` seconds even if the test never does.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

JsonObject = dict[str, Any]

# The model id the captures saw on the wire (host/README.md).
MODEL = "claude-opus-4-8"


@dataclass(frozen=True)
class Text:
    """A reply that says `text` and ends the turn."""

    text: str = "ok"


@dataclass(frozen=True)
class RunBash:
    """A reply that asks the host to run `command` with its Bash tool."""

    command: str
    description: str = "Run a command"


Reply = Text | RunBash
Script = Callable[["Request"], Reply]


@dataclass(frozen=True)
class Request:
    """One request the host made: its path and decoded JSON body."""

    path: str
    body: JsonObject

    @property
    def is_message(self) -> bool:
        return self.path.split("?")[0] == "/v1/messages"

    @property
    def is_agent_loop(self) -> bool:
        """The main conversation: a Messages call that offers the agent its Bash tool."""
        tools = self.body.get("tools") or []
        return self.is_message and any(t.get("name") == "Bash" for t in tools)

    @property
    def messages(self) -> list[JsonObject]:
        return list(self.body.get("messages") or [])

    def text(self) -> str:
        """Every string the request carries to the model (system, messages, tool results)."""
        return "\n".join(strings({"system": self.body.get("system"), "messages": self.messages}))

    def last_user_blocks(self) -> list[JsonObject]:
        """The content blocks of the newest user message (a string becomes one text block)."""
        for message in reversed(self.messages):
            if message.get("role") == "user":
                content = message.get("content")
                if isinstance(content, str):
                    return [{"type": "text", "text": content}]
                return list(content or [])
        return []

    def tool_results(self) -> list[str]:
        """The text of every tool_result block in the newest user message."""
        return [
            "\n".join(strings(block.get("content")))
            for block in self.last_user_blocks()
            if block.get("type") == "tool_result"
        ]


def strings(value: object) -> Iterator[str]:
    """Every string inside a decoded JSON value, depth first."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)


class AgentScript:
    """Answers the agent loop's requests with `replies`, in order, then "ok"; the rest with "ok".

    Side requests the host makes on its own (titles, summaries) never take a scripted reply.
    """

    def __init__(self, *replies: Reply) -> None:
        self._replies = list(replies)
        self._lock = threading.Lock()

    def __call__(self, request: Request) -> Reply:
        with self._lock:
            if request.is_agent_loop and self._replies:
                return self._replies.pop(0)
        return Text()


@dataclass
class MockApi:
    """The server, its request log and the script that picks each reply."""

    script: Script = field(default_factory=AgentScript)
    lifetime: float = 170.0
    requests: list[Request] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None
    _watchdog: threading.Timer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base_url(self) -> str:
        assert self._server is not None, "the mock is not running"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> MockApi:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        server.daemon_threads = True
        self._server = server
        threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="mock-api",
            daemon=True,
        ).start()
        # The mock stops itself even when a test is killed before its teardown.
        self._watchdog = threading.Timer(self.lifetime, self.stop)
        self._watchdog.daemon = True
        self._watchdog.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if self._watchdog is not None and self._watchdog is not threading.current_thread():
            self._watchdog.cancel()
        if server is not None:
            server.shutdown()
            server.server_close()

    def record(self, request: Request) -> None:
        with self._lock:
            self.requests.append(request)

    def since(self, start: int) -> list[Request]:
        """The requests logged from position `start` on."""
        with self._lock:
            return self.requests[start:]


def _usage(body: JsonObject, output_tokens: int) -> JsonObject:
    """A plausible usage block: about four characters a token, nothing cached."""
    size = len(json.dumps(body.get("messages", []))) + len(json.dumps(body.get("system", "")))
    return {
        "input_tokens": max(1, size // 4),
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": output_tokens,
        "service_tier": "standard",
    }


def _content(reply: Reply) -> list[JsonObject]:
    match reply:
        case Text(text=text):
            return [{"type": "text", "text": text}]
        case RunBash(command=command, description=description):
            return [
                {
                    "type": "tool_use",
                    "id": f"toolu_mock_{uuid.uuid4().hex[:20]}",
                    "name": "Bash",
                    "input": {"command": command, "description": description},
                }
            ]


def _stop_reason(reply: Reply) -> str:
    return "tool_use" if isinstance(reply, RunBash) else "end_turn"


def message(body: JsonObject, reply: Reply) -> JsonObject:
    """The whole reply as one non-streamed message."""
    return {
        "id": f"msg_mock_{uuid.uuid4().hex[:20]}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", MODEL),
        "content": _content(reply),
        "stop_reason": _stop_reason(reply),
        "stop_sequence": None,
        "usage": _usage(body, output_tokens=12),
    }


def events(body: JsonObject, reply: Reply) -> Iterator[tuple[str, JsonObject]]:
    """The same reply as the stream of server-sent events the real API sends."""
    whole = message(body, reply)
    start = dict(whole, content=[], stop_reason=None)
    start["usage"] = dict(whole["usage"], output_tokens=1)
    yield "message_start", {"type": "message_start", "message": start}
    for index, block in enumerate(whole["content"]):
        if block["type"] == "text":
            opening: JsonObject = {"type": "text", "text": ""}
            delta: JsonObject = {"type": "text_delta", "text": block["text"]}
        else:
            opening = dict(block, input={})
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": index,
                "content_block": opening,
            },
        )
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": whole["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": whole["usage"]["output_tokens"]},
        },
    )
    yield "message_stop", {"type": "message_stop"}


def _handler_for(mock: MockApi) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the request log is the record."""

        def _body(self) -> JsonObject:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                decoded = json.loads(raw or b"{}")
            except ValueError:
                return {"unparsed": raw.decode("utf-8", "replace")}
            return decoded if isinstance(decoded, dict) else {"json": decoded}

        def _send_json(self, payload: JsonObject, status: int = 200) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            mock.record(Request(self.path, {}))
            self._send_json({})

        def do_POST(self) -> None:
            request = Request(self.path, self._body())
            mock.record(request)
            if not request.is_message:
                self._send_json({})
                return
            reply = mock.script(request)
            if not request.body.get("stream"):
                self._send_json(message(request.body, reply))
                return
            chunks = [
                f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
                for name, data in events(request.body, reply)
            ]
            payload = b"".join(chunks)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler

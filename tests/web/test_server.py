"""The desk's server stops without cutting an answer short."""

from __future__ import annotations

import http.client
import threading
import time

from abcd.web.server import DeskServer, Request, Response


def test_a_request_being_answered_is_waited_for_when_the_desk_stops() -> None:
    started, finished = threading.Event(), threading.Event()

    def slow(request: Request) -> Response:
        started.set()
        time.sleep(0.5)  # an act appending to the journal
        finished.set()
        return Response(200, b"done")

    server = DeskServer(slow, "a-token-for-this-test")
    server.start_in_thread()
    answers: list[tuple[int, bytes]] = []

    def ask() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", server.guard.port, timeout=30)
        headers = {"Cookie": f"{server.cookie}=a-token-for-this-test"}
        conn.request("GET", f"{server.root}/", headers=headers)
        response = conn.getresponse()
        answers.append((response.status, response.read()))

    asker = threading.Thread(target=ask)
    asker.start()
    assert started.wait(30)
    server.shutdown()  # as Ctrl-C ends serve_forever: no new request is taken
    assert server.drain(30)
    assert finished.is_set()  # drain returned only once the act was done
    server.server_close()
    asker.join(30)
    assert answers == [(200, b"done")]


def test_an_idle_kept_alive_connection_does_not_hold_the_desk_open() -> None:
    server = DeskServer(lambda request: Response(200, b"ok"), "a-token-for-this-test")
    server.start_in_thread()
    conn = http.client.HTTPConnection("127.0.0.1", server.guard.port, timeout=30)
    conn.request(
        "GET", f"{server.root}/", headers={"Cookie": f"{server.cookie}=a-token-for-this-test"}
    )
    assert conn.getresponse().read() == b"ok"  # the connection stays open, idle
    server.shutdown()
    started = time.monotonic()
    assert server.drain(30)
    server.server_close()
    assert time.monotonic() - started < 5
    conn.close()

"""The desk's server stops without cutting an answer short."""

from __future__ import annotations

import http.client
import os
import resource
import socket
import threading
import time

from abcd.web.server import DeskServer, Request, Response
from tests.web.conftest import Desk


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


def test_a_desk_out_of_file_descriptors_waits_for_one_instead_of_spinning(desk: Desk) -> None:
    """Another account holding a thousand slow connections used up the desk's descriptors (a
    soft limit of 1,024 is common); each new connection then failed to be accepted and was
    tried again at once, and the desk spun a whole core until they let go."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    held: list[socket.socket] = []
    resource.setrlimit(resource.RLIMIT_NOFILE, (len(os.listdir("/proc/self/fd")) + 40, hard))
    try:
        while True:  # this process's descriptors: the clients' and the desk's alike
            try:
                held.append(socket.create_connection(("127.0.0.1", desk.port), timeout=5))
            except OSError:
                break
        time.sleep(0.5)  # the desk has taken what it could
        held.pop().close()
        waiting = socket.socket()  # the one descriptor freed: the desk has none to accept it
        held.append(waiting)
        waiting.settimeout(2)
        waiting.connect_ex(("127.0.0.1", desk.port))
        before = time.process_time()
        time.sleep(1.0)
        spent = time.process_time() - before
    finally:
        for conn in held:
            conn.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert spent < 0.2, f"{spent:.2f} s of CPU in 1 s while waiting for a descriptor"
    assert desk.get("/").status == 200

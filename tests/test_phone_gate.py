"""Anyone on the network can open connections to the phone view; only the link's holders
matter. Slow request heads, idle sockets and floods without the link must never keep a page
with it from loading within 2 s, and the box keeps its descriptors for its own files.

The crowd (tests/crowd.py) runs as a process of its own, as an attacker runs on a machine of
its own, from loopback addresses other than the phone's (127.0.0.1).
"""

from __future__ import annotations

import contextlib
import pathlib
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from companion.web import gate
from companion.web import server as web
from tests.cores import took
from tests.harness import Box, PageStream

ROOT = pathlib.Path(__file__).parent.parent
LOAD_SECONDS = 2.0  # the promise: a page with the link loads within this, whatever the crowd


@pytest.fixture
def box(tmp_path: pathlib.Path) -> Iterator[Box]:
    served = Box(tmp_path)
    yield served
    served.close()


@contextlib.contextmanager
def crowd(box: Box, idle: int, slow: int, sources: int, every: float = 1.0) -> Iterator[subprocess.Popen[str]]:
    """The crowd, all its connections open, held until the block ends."""
    held = subprocess.Popen([sys.executable, "-m", "tests.crowd", str(box.port), str(idle), str(slow),
                             str(sources), str(every)], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert held.stdout is not None
        assert held.stdout.readline().strip() == "ready", held.stderr.read() if held.stderr else ""
        yield held
    finally:
        held.communicate(timeout=20)


def load(box: Box) -> float:
    """Seconds to load the page with the link, and then its live stream's first snapshot,
    less the time the box's threads waited for a core (tests/cores.py): the crowd's
    machine is not the box, nor are the suite's other workers."""
    def page_and_snapshot() -> None:
        status, body = box.get(box.page(), timeout=LOAD_SECONDS + 1)
        assert status == 200 and b"<canvas" in body
        stream = PageStream(box, timeout=LOAD_SECONDS + 1)
        try:
            assert stream.status == 200
            stream.next("message")
        finally:
            stream.close()
    return took(page_and_snapshot)[1]


def connections(box: Box) -> int:
    assert box.phone.server is not None
    return len(box.phone.server.server._map) - 2  # the listening socket and the wake-up pipe


@pytest.mark.parametrize("sources", [1, 440], ids=["one address", "an address each"])
def test_pages_with_the_link_load_at_once_while_40_slow_and_400_idle_connections_are_held(
        box: Box, sources: int) -> None:
    box.open_game("penguin-panic")
    with crowd(box, idle=400, slow=40, sources=sources):
        times = [load(box) for _ in range(5)]
        held = connections(box)
    assert max(times) < LOAD_SECONDS, times
    assert box.phone.server is not None
    assert held <= box.phone.server.server.adj.connection_limit
    assert load(box) < LOAD_SECONDS  # and after


def test_a_page_loads_while_a_flood_of_connections_comes_in(box: Box) -> None:
    """Connections opened as fast as one machine can, each closed at once by the server
    (the pool is full) and opened again: the page still loads."""
    with crowd(box, idle=600, slow=0, sources=600):
        assert max(load(box) for _ in range(5)) < LOAD_SECONDS


def test_a_request_head_must_be_finished_in_time(box: Box, monkeypatch: pytest.MonkeyPatch) -> None:
    import http.client

    monkeypatch.setattr(gate, "HEAD_SECONDS", 1.0)
    slow = socket.create_connection(("127.0.0.1", box.port), timeout=5)
    idle = socket.create_connection(("127.0.0.1", box.port), timeout=5)
    kept = http.client.HTTPConnection("127.0.0.1", box.port, timeout=5)
    kept.request("GET", box.page())
    assert kept.getresponse().read().startswith(b"<!doctype html>")
    started = time.monotonic()
    closed = None
    for byte in b"GET / HTTP/1.1\r\nHost: box\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa":
        try:
            slow.send(bytes([byte]))
        except OSError:
            closed = time.monotonic() - started
            break
        time.sleep(0.1)
    assert closed is not None and closed < 3  # the head was cut at its deadline
    assert idle.recv(100) == b""  # the idle one too
    held = kept.sock
    kept.request("GET", box.page())  # the link's holder kept its connection (waitress's idle timeout)
    assert kept.getresponse().status == 200 and kept.sock is held
    for sock in (slow, idle):
        sock.close()
    kept.close()


def test_without_the_link_a_connection_gets_one_answer_then_is_closed(box: Box) -> None:
    sock = socket.create_connection(("127.0.0.1", box.port), timeout=5)
    sock.sendall(b"GET /nope/ HTTP/1.1\r\nHost: box\r\n\r\n" * 3)
    answers = b""
    while chunk := sock.recv(65536):
        answers += chunk
    sock.close()
    assert answers.count(b"HTTP/1.1 404") == 1 and b"Connection: close" in answers


def test_a_new_link_sends_the_old_links_connections_back_to_the_pool(box: Box) -> None:
    assert box.phone.server is not None
    kept = socket.create_connection(("127.0.0.1", box.port), timeout=5)
    kept.sendall(f"GET {box.page()} HTTP/1.1\r\nHost: box\r\n\r\n".encode())
    assert kept.recv(100).startswith(b"HTTP/1.1 200")
    served = box.phone.server.server
    assert len(served.gate.shown) == 1
    box.phone.renew()
    deadline = time.monotonic() + 5
    while served.gate.shown and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not served.gate.shown and len(served.gate.waiting) == 1
    kept.close()


def test_the_pool_fits_the_descriptors_the_process_may_open(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under the systemd unit the daemon may open 1024 files (systemd's default soft limit;
    the unit sets none): the view holds at most a quarter of them."""
    import resource

    for files, most in ((1024, gate.WITHOUT_MOST), (4096, gate.WITHOUT_MOST), (512, 128), (256, gate.PER_SOURCE)):
        monkeypatch.setattr(resource, "getrlimit", lambda _, files=files: (files, files))
        assert gate.pool_size() == most
    monkeypatch.setattr(resource, "getrlimit", lambda _: (1024, 524288))  # the unit's
    assert 2 + gate.SHOWN_MOST + gate.pool_size() <= 1024 // 4 + 2


# --- downloads ---


def test_many_downloads_at_once_are_answered_and_pages_still_load(box: Box) -> None:
    from tests.examples import LAP_WIN
    from tests.harness import store_game

    gid = store_game(box.harness.store, LAP_WIN)
    statuses: list[int] = []

    def download() -> None:
        statuses.append(box.get(box.page(f"games/{gid}.record"))[0])

    threads = [threading.Thread(target=download) for _ in range(12)]  # twice what a browser opens
    for thread in threads:
        thread.start()
    seconds = load(box)
    for thread in threads:
        thread.join()
    assert seconds < LOAD_SECONDS
    assert set(statuses) <= {200, 503} and statuses.count(200) >= web.DOWNLOADS

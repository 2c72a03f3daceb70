"""A crowd of connections without the link, held open against the phone view.

    python -m tests.crowd PORT IDLE SLOW SOURCES [EVERY]

opens IDLE connections that send nothing and SLOW ones that send one byte of a request head
that never ends every EVERY seconds, spread over SOURCES loopback addresses (127.0.1.1 on),
and holds them: any the server closes is opened again at once, as an attacker would. It
prints ``ready`` once all are open, and on stdin's end how many it had to open again.

It runs as a process of its own, as an attacker runs on a machine of its own: in the test's
process it would compete for the interpreter with the server it attacks.
"""

from __future__ import annotations

import resource
import selectors
import socket
import sys
import threading
import time

SLOW_HEAD = b"GET / HTTP/1.1\r\nHost: box\r\nX-Slow: "  # then one "a" at a time, for ever


def source(number: int) -> str:
    return f"127.0.{1 + number // 250}.{1 + number % 250}"


class Crowd:
    def __init__(self, port: int, idle: int, slow: int, sources: int) -> None:
        self.port = port
        self.selector = selectors.DefaultSelector()
        self.reopened = 0
        self.slow: dict[socket.socket, int] = {}  # bytes of the head sent so far
        for number in range(idle + slow):
            self.open(source(number % sources), number >= idle)

    def open(self, address: str, slow: bool) -> None:
        sock = socket.socket()
        sock.bind((address, 0))
        sock.connect(("127.0.0.1", self.port))
        sock.setblocking(False)
        self.selector.register(sock, selectors.EVENT_READ, (address, slow))
        if slow:
            self.slow[sock] = 0

    def hold(self, every: float, until: threading.Event) -> None:
        due = time.monotonic() + every
        while not until.is_set():
            for key, _ in self.selector.select(timeout=max(0.0, min(0.2, due - time.monotonic()))):
                sock: socket.socket = key.fileobj  # type: ignore[assignment]
                try:
                    if sock.recv(65536):
                        continue  # an answer (a 404, or a refusal): read, and wait for the close
                except OSError:
                    pass
                address, slow = key.data
                self.selector.unregister(sock)
                self.slow.pop(sock, None)
                sock.close()
                self.open(address, slow)
                self.reopened += 1
            if time.monotonic() >= due:
                due += every
                for sock, sent in list(self.slow.items()):
                    byte = SLOW_HEAD[sent:sent + 1] or b"a"
                    try:
                        sock.send(byte)
                        self.slow[sock] = sent + 1
                    except OSError:
                        pass  # closed by the server: the select above opens it again


def main() -> None:
    port, idle, slow, sources = (int(arg) for arg in sys.argv[1:5])
    every = float(sys.argv[5]) if len(sys.argv) > 5 else 10.0
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    crowd = Crowd(port, idle, slow, sources)
    print("ready", flush=True)
    done = threading.Event()
    holder = threading.Thread(target=crowd.hold, args=(every, done))
    holder.start()
    sys.stdin.read()
    done.set()
    holder.join()
    print(f"reopened {crowd.reopened}", flush=True)


if __name__ == "__main__":
    main()

"""The phone view's server: waitress in a thread of its own, serving a page that only reads.

Why waitress: measured on this project's machine, importing it costs 2.7 MB and 25 ms,
against 16 MB and 110 ms for tornado (which pulls in asyncio and ssl) and 11 MB for bottle;
it is pure Python, well kept, and has the limits a box on a home network needs (request
and header sizes, connection count, idle timeouts). Our part is a small WSGI application.

Nothing here writes: the store is opened read-only for each request that needs it, the
game arrives as bytes the main loop published, and no path is built from request input.
The main loop never waits on this side: :meth:`PhoneServer.publish` takes a lock only long
enough to swap a reference.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import logging
import os
import re
import socket
import threading
from collections.abc import Callable, Iterable, Iterator
from importlib import resources
from typing import Any

from PIL import Image

from companion.bgstats import PushLinks
from companion.exc import PageClosed
from companion.salvage import read_only
from companion.session import Session, audited_lines
from companion.stats import DiceBook
from companion.store import Store
from companion.web.snapshot import HasSession, Snapshots

log = logging.getLogger(__name__)

MAX_PAGES = 8  # live pages at once; the ninth is refused politely
THREADS = MAX_PAGES + 3  # each live page holds a thread; the rest answer the other requests
KEEPALIVE = 25.0  # seconds between comment lines on a quiet stream
STALL_MS = 15_000  # a client that takes none of our bytes for this long is dropped
SEND_BUFFER = 32 * 1024  # bytes the kernel may hold for one client
OUT_BUFFER = 64 * 1024  # bytes waitress may hold for one client before the writer waits

Start = Callable[[str, list[tuple[str, str]]], Any]
GAME_FILE = re.compile(r"games/([0-9]{1,9}|all)\.(record|json|bgsplay)")
NOT_FOUND = b"not found\n"


class Hub:
    """The latest snapshot, and the live pages waiting for the next one."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self.data = b""
        self.version = 0
        self.generation = 0  # bumped when a new token closes every page
        self.game: tuple[int, int] | None = None  # (id, head) of the game on the box
        self._pages: dict[int, Callable[[], bool]] = {}  # open streams: is the client gone?
        self._next_page = 0

    def publish(self, data: bytes, game: tuple[int, int] | None) -> None:
        with self._changed:
            self.data, self.game = data, game
            self.version += 1
            self._changed.notify_all()

    def close_pages(self) -> None:
        with self._changed:
            self.generation += 1
            self._changed.notify_all()

    def open_page(self, gone: Callable[[], bool]) -> int | None:
        """A slot for a live page, or None when all are taken by clients still there."""
        with self._changed:
            left = [page for page, client_gone in self._pages.items() if client_gone()]
            for page in left:  # their streams wake, see they are closed, and free a thread
                del self._pages[page]
            if left:
                self._changed.notify_all()
            if len(self._pages) >= MAX_PAGES:
                return None
            self._next_page += 1
            self._pages[self._next_page] = gone
            return self._next_page

    def close_page(self, page: int) -> None:
        with self._changed:
            self._pages.pop(page, None)

    def pages(self) -> int:
        with self._changed:
            return len(self._pages)

    def wait(self, page: int, version: int, generation: int, timeout: float) -> tuple[int, bytes] | None:
        """The next snapshot after ``version``; None after ``timeout``; raises
        :class:`PageClosed` when the page must go (a new token, or its client left)."""
        with self._changed:
            self._changed.wait_for(lambda: self.version != version or self.generation != generation
                                   or page not in self._pages, timeout)
            if self.generation != generation or page not in self._pages:
                raise PageClosed
            if self.version == version:
                return None
            return self.version, self.data


def page_html() -> bytes:
    """The page: one file, its style and script inline, nothing loaded from elsewhere."""
    return resources.files("companion.web").joinpath("page.html").read_bytes()


class PhoneApp:
    """The WSGI application: every URL starts with the token; anything else is 404."""

    def __init__(self, hub: Hub, token: str, store_path: str) -> None:
        self.hub = hub
        self.token = token
        self.store_path = store_path
        self.page = page_html()
        self.links = PushLinks()  # History's "Add to BG Stats" links, worked out once a game
        self.dice = DiceBook()  # the dice counts, counted again only for games that changed

    def __call__(self, environ: dict[str, Any], start: Start) -> Iterable[bytes]:
        parts = environ.get("PATH_INFO", "").split("/", 2)
        given = parts[1] if len(parts) > 1 else ""
        # Compared in constant time, so the answer's timing says nothing about the token.
        if len(parts) < 3 or not hmac.compare_digest(given.encode("utf-8", "replace"), self.token.encode()):
            return reply(start, "404 Not Found", NOT_FOUND, "text/plain")
        if environ.get("REQUEST_METHOD") not in ("GET", "HEAD"):
            return reply(start, "405 Method Not Allowed", b"this page only reads\n", "text/plain",
                         [("Allow", "GET, HEAD")])
        route = parts[2]
        if route == "":
            return reply(start, "200 OK", self.page, "text/html; charset=utf-8")
        if route == "events":
            return self.events(environ, start)
        if route == "record":
            return self.live_record(start)
        if route == "games":
            return self.history(start)
        if route == "stats":
            return self.stats(start)
        found = GAME_FILE.fullmatch(route)
        if found and found[2] == "bgsplay":
            return self.plays(start, found[1])
        if found and found[1] != "all":
            return self.download(start, int(found[1]), found[2])
        return reply(start, "404 Not Found", NOT_FOUND, "text/plain")

    # --- the live stream ---

    def events(self, environ: dict[str, Any], start: Start) -> Iterable[bytes]:
        gone = environ.get("waitress.client_disconnected", lambda: False)
        page = self.hub.open_page(gone)
        if page is None:
            return reply(start, "503 Service Unavailable",
                         f"{MAX_PAGES} pages are open already: close one and try again\n".encode(),
                         "text/plain", [("Retry-After", "30")])
        start("200 OK", [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store")])
        return self.stream(page)

    def stream(self, page: int) -> Iterator[bytes]:
        try:
            generation = self.hub.generation
            version, data = self.hub.version, self.hub.data
            yield b"retry: 3000\n\n"
            if data:
                yield b"data: " + data + b"\n\n"
            while True:
                try:
                    latest = self.hub.wait(page, version, generation, KEEPALIVE)
                except PageClosed:
                    yield b"event: closed\ndata: {}\n\n"
                    return
                if latest is None:
                    yield b": still here\n\n"  # also finds clients that went away
                else:
                    version, data = latest
                    yield b"data: " + data + b"\n\n"
        finally:
            self.hub.close_page(page)

    # --- reading the store ---

    def store(self) -> Store:
        return Store(self.store_path, connect=read_only)

    def live_record(self, start: Start) -> Iterable[bytes]:
        """The game on the box: its record lines so far, newest first."""
        game = self.hub.game
        if game is None:
            return reply(start, "200 OK", b"[]", "application/json")
        gid, head = game
        store = self.store()
        try:
            lines = audited_lines(store, gid, head)  # undone device rolls included, as comments
        finally:
            store.close()
        return reply(start, "200 OK", json.dumps(lines[::-1]).encode(), "application/json")

    def history(self, start: Start) -> Iterable[bytes]:
        """Finished games, newest first: title, players, winners."""
        from companion.games import title

        store = self.store()
        try:
            rows = store.games("over")
            # The link to BG Stats is the play's own data: it leaves the page only when tapped.
            games = [{"id": row.id, "title": title(row.game),
                      "players": row.header[1].split()[1:] if len(row.header) > 1 else [],
                      "winners": list(row.winners), "bgstats": self.links.link(store, row)} for row in rows]
        finally:
            store.close()
        return reply(start, "200 OK", json.dumps(games).encode(), "application/json")

    def stats(self, start: Start) -> Iterable[bytes]:
        """Who wins, and the dice against fair ones: ``companion stats --json``."""
        from companion.stats import as_json, players

        store = self.store()
        try:
            body = json.dumps(as_json(players(store), self.dice.tallies(store))).encode()
        finally:
            store.close()
        return reply(start, "200 OK", body, "application/json")

    def plays(self, start: Start, which: str) -> Iterable[bytes]:
        """BG Stats' share file of one finished game, or of them all."""
        from companion.bgstats import read_play, share_file
        from companion.exc import NotAPlay

        store = self.store()
        try:
            gids = [row.id for row in store.games("over", limit=2**31)] if which == "all" else [int(which)]
            body = json.dumps(share_file([read_play(store, gid) for gid in gids])).encode()
        except NotAPlay:
            return reply(start, "404 Not Found", NOT_FOUND, "text/plain")
        finally:
            store.close()
        # Not JSON to the browser: a file to keep, with the name BG Stats opens.
        name = "all-games" if which == "all" else f"game-{which}"
        return reply(start, "200 OK", body, "application/octet-stream",
                     [("Content-Disposition", f'attachment; filename="{name}.bgsplay"')])

    def download(self, start: Start, gid: int, kind: str) -> Iterable[bytes]:
        """A stored game's record, or its summary JSON, as a file."""
        store = self.store()
        try:
            session = Session(store, gid)
            body = session.record() if kind == "record" else json.dumps(session.summary(), indent=1) + "\n"
        except KeyError:
            return reply(start, "404 Not Found", NOT_FOUND, "text/plain")
        except Exception as err:  # a stored game that no longer replays: say so, keep serving
            log.warning("phone view: game %s cannot be read (%s)", gid, err)
            return reply(start, "409 Conflict", b"this game cannot be read back\n", "text/plain")
        finally:
            store.close()
        name = f"game-{gid}.{'record' if kind == 'record' else 'json'}"
        kind_type = "text/plain; charset=utf-8" if kind == "record" else "application/json"
        return reply(start, "200 OK", body.encode(), kind_type,
                     [("Content-Disposition", f'attachment; filename="{name}"')])


def reply(start: Start, status: str, body: bytes, kind: str,
          extra: list[tuple[str, str]] | None = None) -> list[bytes]:
    start(status, [("Content-Type", kind), ("Content-Length", str(len(body))),
                   ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"),
                   ("Referrer-Policy", "no-referrer"), *(extra or [])])
    return [body]


SD_LISTEN_FDS_START = 3  # the first socket systemd hands over (sd_listen_fds(3))


def systemd_socket() -> socket.socket | None:
    """The listening socket systemd passed in (socket activation), if it passed one.

    Under the unit the daemon has no network of its own (PrivateNetwork=yes): systemd
    listens on the host's network for it (systemd/companion-phone.socket) and hands over
    the socket. Accepting on it needs no address family of our own. A copy of the
    descriptor is taken, so the view can be turned off and on again.
    """
    if os.environ.get("LISTEN_PID") != str(os.getpid()) or int(os.environ.get("LISTEN_FDS", "0") or 0) < 1:
        return None
    return socket.socket(fileno=os.dup(SD_LISTEN_FDS_START))


class PhoneServer:
    """The running view: a waitress server on its own thread, fed by :meth:`publish`."""

    def __init__(self, address: str, port: int, token: str, store_path: str) -> None:
        from waitress.server import create_server

        self.hub = Hub()
        self.app = PhoneApp(self.hub, token, store_path)
        self.snapshots = Snapshots()
        handed = systemd_socket()
        where: dict[str, Any] = {"sockets": [handed]} if handed is not None else {"host": address, "port": port}
        self.server = create_server(
            self.app, **where, threads=THREADS, ident="companion",
            connection_limit=4 * MAX_PAGES, channel_timeout=30, cleanup_interval=10,
            max_request_header_size=8 * 1024, max_request_body_size=1024,
            outbuf_high_watermark=OUT_BUFFER,
            # The loop wakes for sockets and for our publishes (its trigger), so it does
            # not need to wake on a timer of its own often.
            asyncore_loop_timeout=30, expose_tracebacks=False,
            # Keep reading while a page streams, so that a client that has gone is seen.
            channel_request_lookahead=1,
        )
        # Set on each accepted socket (waitress takes these from its adjustments object,
        # not from keywords): a client that stops reading is cut off by the kernel after
        # STALL_MS, and at most SEND_BUFFER bytes wait for it there.
        self.server.adj.socket_options = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),
                                          (socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, STALL_MS),
                                          (socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)]
        self.port = int(self.server.effective_port)
        self.thread = threading.Thread(target=self.server.run, name="phone view", daemon=True)
        self.thread.start()

    def publish(self, app: HasSession, frame: Image.Image) -> None:
        data = self.snapshots.build(app, frame)
        if data is not None:
            session = app.session
            self.hub.publish(data, (session.gid, session.head) if session is not None else None)

    def renew(self, token: str) -> None:
        self.app.token = token
        self.hub.close_pages()

    def close(self) -> None:
        """Stop listening, end every page, and let the threads go."""
        from waitress import wasyncore

        self.hub.close_pages()
        self.server.task_dispatcher.shutdown(timeout=2)
        # The loop's own thread closes its sockets (waitress is not thread-safe otherwise).
        try:
            self.server.trigger.pull_trigger(lambda: wasyncore.close_all(self.server._map))
        except OSError:
            # The loop has closed its wake-up pipe itself (after an error of its own), so
            # nothing can hand it work: close what is left from here. Closing a socket
            # does not wake a select on it in another thread (nor free the port), shutting
            # it down does: the loop wakes, finds its map empty and ends.
            for channel in list(self.server._map.values()):
                with contextlib.suppress(OSError, AttributeError):
                    channel.socket.shutdown(socket.SHUT_RDWR)
            wasyncore.close_all(self.server._map)
        self.thread.join(timeout=5)

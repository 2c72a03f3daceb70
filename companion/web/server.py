"""The phone view's server: waitress in a thread of its own, serving a page that only reads.

Why waitress: measured on this project's machine, importing it costs 2.7 MB and 25 ms,
against 16 MB and 110 ms for tornado (which pulls in asyncio and ssl) and 11 MB for bottle;
it is pure Python, well kept, and has the limits a box on a home network needs (request
and header sizes, connection count, idle timeouts). Our part is a small WSGI application,
and the gate (:mod:`companion.web.gate`) that keeps connections without the link from
crowding out the pages that have it.

Nothing here writes: the store is opened read-only for each request that needs it, the
game arrives as bytes the main loop published, and no path is built from request input.
The main loop never waits on this side: :meth:`PhoneServer.publish` takes a lock only long
enough to swap a reference and append a change.

A live page is one server-sent event stream: the snapshot (the frame and the game's state)
after every change, and the record's changes (:mod:`companion.web.feed`) as numbered
events, so that a page that reconnects (``Last-Event-ID``, or ``?since=``) is sent only
what it missed. Older parts of the record are read a page at a time (``record?game=&before=``).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import socket
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from importlib import resources
from typing import Any
from urllib.parse import parse_qs

from PIL import Image
from waitress import wasyncore
from waitress.adjustments import Adjustments

from companion.bgstats import PushLinks, every_play, read_play, share_file
from companion.exc import NotAPlay, PageClosed
from companion.games import title
from companion.salvage import read_only
from companion.session import Session
from companion.stats import DiceBook, as_json, players
from companion.store import Store
from companion.web.feed import NO_GAME, PAGE, Change, RecordFeed, latest, part
from companion.web.gate import SHOWN_MOST, GatedServer, Link, pool_size
from companion.web.snapshot import HasSession, Snapshots

log = logging.getLogger(__name__)

MAX_PAGES = 8  # live pages at once; the ninth is refused politely
THREADS = MAX_PAGES + 3  # each live page holds a thread; the rest answer the other requests
DOWNLOADS = 2  # games read for download at once (each reads the whole game): a thread stays free
KEEPALIVE = 25.0  # seconds between comment lines on a quiet stream
STALL_MS = 15_000  # a client that takes none of our bytes for this long is dropped
SEND_BUFFER = 32 * 1024  # bytes the kernel may hold for one client
OUT_BUFFER = 64 * 1024  # bytes waitress may hold for one client before the writer waits
SLOT_PATIENCE = 1.0  # seconds a ninth page waits for a slot a client has just left
RING = 256  # record changes kept for pages that reconnect; one further back starts afresh
LARGEST_NUMBER = 10**9  # a game number or entry position asked for in a query

Start = Callable[[str, list[tuple[str, str]]], Any]
GAME_FILE = re.compile(r"games/([0-9]{1,9}|all)\.(record|json|bgsplay)")
EVENT_ID = re.compile(r"([0-9a-f]{8})\.([0-9]{1,18})")
NOT_FOUND = b"not found\n"


class Hub:
    """The latest snapshot, the record's latest changes, and the live pages waiting for more."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self.data = b""
        self.version = 0
        self.generation = 0  # bumped when a new token closes every page
        self.game: tuple[int, int] | None = None  # (id, head) of the game on the box
        self.boot = os.urandom(4).hex()  # names this server's run in event ids
        self.count = 0  # changes to the record so far, described in ``_record`` or not
        self._record: deque[tuple[int, bytes]] = deque(maxlen=RING)  # (count, event)
        self._pages: dict[int, Callable[[], bool]] = {}  # open streams: is the client gone?
        self._next_page = 0

    def publish(self, data: bytes | None, game: tuple[int, int] | None, change: bytes | None,
                untold: bool = False) -> None:
        """A new snapshot (None: the same as before), and the record's change, if any
        (``untold``: it changed, but no page was open to tell: pages start afresh)."""
        with self._changed:
            if data is not None:
                self.data = data
                self.version += 1
            self.game = game
            if change is not None or untold:
                self.count += 1
                if untold:
                    self._record.clear()
                else:
                    self._record.append((self.count, record_event(self.boot, self.count, change or b"")))
            self._changed.notify_all()

    def close_pages(self) -> None:
        with self._changed:
            self.generation += 1
            self._changed.notify_all()

    def open_page(self, gone: Callable[[], bool]) -> int | None:
        """A slot for a live page, or None when all are taken by clients still there. A
        client that has just left may not be seen yet (the server's loop reads its end a
        moment later): when all are taken, look again for :data:`SLOT_PATIENCE` seconds."""
        deadline = time.monotonic() + SLOT_PATIENCE
        with self._changed:
            while True:
                self._prune()
                if len(self._pages) < MAX_PAGES:
                    break
                if time.monotonic() >= deadline:
                    return None
                self._changed.wait(0.05)
            self._next_page += 1
            self._pages[self._next_page] = gone
            return self._next_page

    def close_page(self, page: int) -> None:
        with self._changed:
            self._pages.pop(page, None)

    def pages(self) -> int:
        """How many pages are open (their clients still there)."""
        with self._changed:
            self._prune()
            return len(self._pages)

    def _prune(self) -> None:
        left = [page for page, client_gone in self._pages.items() if client_gone()]
        for page in left:  # their streams wake, see they are closed, and free a thread
            del self._pages[page]
        if left:
            self._changed.notify_all()

    def since(self, last_id: str) -> int | None:
        """The change count an event id names, if it is one of this run's: else None."""
        found = EVENT_ID.fullmatch(last_id.strip())
        if found is None or found[1] != self.boot:
            return None
        return int(found[2])

    def catch_up(self, page: int, seen: Seen, timeout: float) -> Update | None:
        """What ``page`` has not had yet, once there is something (None after ``timeout``);
        raises :class:`PageClosed` when the page must go (a new token, or its client left)."""
        with self._changed:
            self._changed.wait_for(lambda: self.version != seen.version or self.count != seen.count
                                   or self.generation != seen.generation or page not in self._pages, timeout)
            if self.generation != seen.generation or page not in self._pages:
                raise PageClosed
            return self._update(seen)

    def first(self, since: int | None) -> tuple[Seen, Update]:
        """A page's start: all it needs (the record's changes since ``since`` when they are
        all still here, else a fresh start), and the marks to wait from."""
        with self._changed:
            seen = Seen(0, -1 if since is None else since, self.generation)
            update = self._update(seen)
            return seen, update or Update(b"", [], self.game, self.count)

    def _update(self, seen: Seen) -> Update | None:
        data = self.data if seen.version != self.version else b""
        events: list[bytes] | None = []
        if seen.count != self.count:
            missed = [event for count, event in self._record if count > seen.count]
            events = missed if 0 <= seen.count < self.count and len(missed) == self.count - seen.count else None
        if not data and events == []:
            return None
        seen.version, seen.count = self.version, self.count
        return Update(data, events, self.game, self.count)


class Seen:
    """What a page has been sent: the snapshot version and record change count."""

    def __init__(self, version: int, count: int, generation: int) -> None:
        self.version, self.count, self.generation = version, count, generation


class Update:
    """What a page is sent next: the snapshot, and the record's changes (None: they are not
    all kept, so the page starts its record afresh from ``game``)."""

    def __init__(self, data: bytes, events: list[bytes] | None, game: tuple[int, int] | None,
                 count: int) -> None:
        self.data, self.events, self.game, self.count = data, events, game, count


def record_event(boot: str, count: int, change: bytes) -> bytes:
    return b"event: record\nid: %s.%d\ndata: %s\n\n" % (boot.encode(), count, change)


def page_html() -> bytes:
    """The page: one file, its style and script inline, nothing loaded from elsewhere."""
    return resources.files("companion.web").joinpath("page.html").read_bytes()


class PhoneApp:
    """The WSGI application: every URL starts with the token; anything else is 404."""

    def __init__(self, hub: Hub, link: Link, store_path: str) -> None:
        self.hub = hub
        self.link = link
        self.store_path = store_path
        self.page = page_html()
        self.links = PushLinks()  # History's "Add to BG Stats" links, worked out once a game
        self.dice = DiceBook()  # the dice counts, counted again only for games that changed
        self.downloads = threading.BoundedSemaphore(DOWNLOADS)

    def __call__(self, environ: dict[str, Any], start: Start) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if not self.link.shown_by(path):
            return reply(start, "404 Not Found", NOT_FOUND, "text/plain")
        if environ.get("REQUEST_METHOD") not in ("GET", "HEAD"):
            return reply(start, "405 Method Not Allowed", b"this page only reads\n", "text/plain",
                         [("Allow", "GET, HEAD")])
        route = path.split("/", 2)[2]
        try:
            query = parse_qs(environ.get("QUERY_STRING", ""), max_num_fields=4)
        except ValueError:  # more fields than any route takes
            query = {}
        if route == "":
            return reply(start, "200 OK", self.page, "text/html; charset=utf-8")
        if route == "events":
            return self.events(environ, query, start)
        try:
            return self.read(route, query, start)
        except (sqlite3.Error, OSError) as err:  # a store being restored, or a damaged one
            log.warning("phone view: the games cannot be read (%s)", err)
            return reply(start, "503 Service Unavailable", b"the games cannot be read just now\n",
                         "text/plain", [("Retry-After", "5")])

    def read(self, route: str, query: dict[str, list[str]], start: Start) -> Iterable[bytes]:
        """The routes that read the store."""
        if route == "record":
            return self.older(query, start)
        if route == "games":
            return self.history(start)
        if route == "stats":
            return self.stats(start)
        found = GAME_FILE.fullmatch(route)
        if found and found[2] == "bgsplay":
            return self.downloading(start, lambda: self.plays(start, found[1]))
        if found and found[1] != "all":
            return self.downloading(start, lambda: self.download(start, int(found[1]), found[2]))
        return reply(start, "404 Not Found", NOT_FOUND, "text/plain")

    def downloading(self, start: Start, answer: Callable[[], Iterable[bytes]]) -> Iterable[bytes]:
        """A download (each reads a whole game, or all of them): :data:`DOWNLOADS` at once,
        so that a thread is always left for the page; the others are asked to retry."""
        if not self.downloads.acquire(blocking=False):
            return reply(start, "503 Service Unavailable", b"the box is busy with other downloads\n",
                         "text/plain", [("Retry-After", "2")])
        try:
            return answer()
        finally:
            self.downloads.release()

    # --- the live stream ---

    def events(self, environ: dict[str, Any], query: dict[str, list[str]], start: Start) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD") == "HEAD":  # no body, so no stream to hold a thread
            return reply(start, "200 OK", b"", "text/event-stream")
        gone = environ.get("waitress.client_disconnected", lambda: False)
        page = self.hub.open_page(gone)
        if page is None:
            return reply(start, "503 Service Unavailable",
                         f"{MAX_PAGES} pages are open already: close one and try again\n".encode(),
                         "text/plain", [("Retry-After", "30")])
        # A browser reconnecting names the last event it had; a page that opens its stream
        # again itself (after a refusal) says so in the address.
        last = environ.get("HTTP_LAST_EVENT_ID") or next(iter(query.get("since", [])), "")
        start("200 OK", [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store")])
        return self.stream(page, self.hub.since(last[:40]))

    def stream(self, page: int, since: int | None) -> Iterator[bytes]:
        try:
            seen, update = self.hub.first(since)
            yield b"retry: 3000\n\n"
            while True:
                yield from self.sent(update)
                try:
                    while (next_update := self.hub.catch_up(page, seen, KEEPALIVE)) is None:
                        yield b": still here\n\n"  # also finds clients that went away
                except PageClosed:
                    yield b"event: closed\ndata: {}\n\n"
                    return
                update = next_update
        finally:
            self.hub.close_page(page)

    def sent(self, update: Update) -> Iterator[bytes]:
        """The record's changes first, then the snapshot they lead to."""
        if update.events is None:
            yield record_event(self.hub.boot, update.count, self.fresh(update.game).json())
        else:
            yield from update.events
        if update.data:
            yield b"data: " + update.data + b"\n\n"

    def fresh(self, game: tuple[int, int] | None) -> Change:
        """The record's last part, for a page that starts afresh."""
        if game is None:
            return NO_GAME
        gid, head = game
        try:
            store = self.store()
            try:
                return latest(store, gid, head)
            finally:
                store.close()
        except (sqlite3.Error, OSError, KeyError) as err:  # a store that cannot be read now
            log.warning("phone view: the record of game %s cannot be read (%s)", gid, err)
            return Change(gid, head + 1, head, [], [], True)

    # --- reading the store ---

    def store(self) -> Store:
        return Store(self.store_path, connect=read_only)

    def older(self, query: dict[str, list[str]], start: Start) -> Iterable[bytes]:
        """Up to :data:`PAGE` entries of a game before entry ``before``, oldest first."""
        gid, before = (number(query, key) for key in ("game", "before"))
        if gid is None or before is None or before < 2:
            return reply(start, "400 Bad Request", b"record?game=NUMBER&before=NUMBER\n", "text/plain")
        store = self.store()
        try:
            head = store.game(gid).head
            found = part(store, gid, head, max(1, before - PAGE), before - 1)
        except KeyError:
            return reply(start, "404 Not Found", NOT_FOUND, "text/plain")
        finally:
            store.close()
        return reply(start, "200 OK", found.json(), "application/json")

    def history(self, start: Start) -> Iterable[bytes]:
        """Finished games, newest first: title, players, winners."""
        store = self.store()
        try:
            rows = store.readable_games("over")[0]  # one that cannot be read hides no other
            # The link to BG Stats is the play's own data: it leaves the page only when tapped.
            games = [{"id": row.id, "title": title(row.game),
                      "players": row.header[1].split()[1:] if len(row.header) > 1 else [],
                      "winners": list(row.winners), "bgstats": self.links.link(store, row)} for row in rows]
        finally:
            store.close()
        return reply(start, "200 OK", json.dumps(games).encode(), "application/json")

    def stats(self, start: Start) -> Iterable[bytes]:
        """Who wins, and the dice against fair ones: ``companion stats --json``."""
        store = self.store()
        try:
            body = json.dumps(as_json(players(store), self.dice.tallies(store))).encode()
        finally:
            store.close()
        return reply(start, "200 OK", body, "application/json")

    def plays(self, start: Start, which: str) -> Iterable[bytes]:
        """BG Stats' share file of one finished game, or of them all."""
        store = self.store()
        try:
            plays = every_play(store)[0] if which == "all" else [read_play(store, int(which))]
            if not plays:
                raise NotAPlay("no finished games")
            body = json.dumps(share_file(plays)).encode()
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
            session: Session[Any, Any] = Session(store, gid)  # replays from its latest checkpoint
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


def number(query: dict[str, list[str]], key: str) -> int | None:
    """A whole number from the query, within :data:`LARGEST_NUMBER`; None otherwise."""
    text = next(iter(query.get(key, [])), "")
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 10 and int(text) <= LARGEST_NUMBER \
        else None


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
        self.hub = Hub()
        self.link = Link(token)
        self.app = PhoneApp(self.hub, self.link, store_path)
        self.snapshots = Snapshots()
        self.feed = RecordFeed()
        handed = systemd_socket()
        where: dict[str, Any] = {"sockets": [handed]} if handed is not None else {"host": address, "port": port}
        adjustments = Adjustments(
            **where, threads=THREADS, ident="companion",
            # Pages that showed the link, and the gate's pool of connections that have not
            # (companion/web/gate.py), the server's own two sockets besides.
            connection_limit=2 + SHOWN_MOST + pool_size(), channel_timeout=30, cleanup_interval=1,
            max_request_header_size=8 * 1024, max_request_body_size=1024,
            outbuf_high_watermark=OUT_BUFFER,
            expose_tracebacks=False,
            # A client that resets, or that the kernel cuts off (TCP_USER_TIMEOUT below), is
            # an everyday event (a phone walking away): no traceback for it in the journal.
            log_socket_errors=False,
            # poll(), not select(): a descriptor numbered past 1023 must not stop the loop.
            asyncore_use_poll=True,
            # Keep reading while a page streams, so that a client that has gone is seen.
            channel_request_lookahead=1,
        )
        # Set on each accepted socket (waitress takes these from its adjustments object, not
        # from keywords): a client that stops reading is cut off by the kernel after
        # STALL_MS, and at most SEND_BUFFER bytes wait for it there.
        adjustments.socket_options = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),
                                      (socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, STALL_MS),
                                      (socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)]
        # waitress says at INFO which path a client left (the token is in it) and at WARNING
        # how deep its queue is (every request of a flood): neither belongs in the journal.
        logging.getLogger("waitress").setLevel(logging.ERROR)
        if handed is not None:
            sockinfo = (handed.family, handed.type, handed.proto, handed.getsockname())
            self.server = GatedServer(self.app, {}, _sock=handed, adj=adjustments, bind_socket=False,
                                      sockinfo=sockinfo, link=self.link)
        else:
            self.server = GatedServer(self.app, {}, adj=adjustments, link=self.link)
        self.port = int(self.server.effective_port)
        self.thread = threading.Thread(target=self.server.run, name="phone view", daemon=True)
        self.thread.start()

    def publish(self, app: HasSession, frame: Image.Image) -> None:
        """On the loop's thread, after a frame went to the panel: the snapshot, and what
        changed in the record (worked out only while a page is open to be told)."""
        data = self.snapshots.build(app, frame)
        session = app.session
        game = (session.gid, session.head) if session is not None else None
        if self.hub.pages():
            try:
                change = self.feed.change(session)
            except sqlite3.Error as err:  # the pages start their record afresh: the box goes on
                log.warning("phone view: the record's change cannot be read (%s)", err)
                self.hub.publish(data, game, None, untold=True)
                return
            self.hub.publish(data, game, change.json() if change is not None else None)
        else:
            self.hub.publish(data, game, None, untold=self.feed.skip(session))

    def renew(self, token: str) -> None:
        self.link.renew(token)
        self.hub.close_pages()
        # The gate belongs to the server's loop: it is told there.
        with contextlib.suppress(OSError):  # the loop has stopped: nothing left to tell
            self.server.trigger.pull_trigger(self.server.gate.renewed)

    def close(self) -> None:
        """Stop listening, end every page, and let the threads go."""
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

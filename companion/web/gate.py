"""Who may hold a connection to the phone view: anyone who shows the link is always let in.

waitress bounds the size of a request, the idle time of a connection and how many it holds,
and we use those knobs (:class:`GatedServer` is made with them). Two things it does not do,
which let anyone on the network keep every page out without knowing the link:

- its idle timeout counts any byte as activity, so a connection that sends one header byte
  every few seconds is never closed, and there is no deadline to finish a request head;
- its connection limit is first come, first served: once that many sockets are open, it
  stops accepting, and a phone with the link waits behind them in the kernel's queue.

So, on top of it (waitress has no hooks for either, hence the subclasses):

- a connection *shows the link* when a request head it sent names the token. Until it has,
  it is held in a pool of its own: at most :data:`PER_SOURCE` from one address and
  :attr:`Gate.most` in all. A new connection is always accepted; when the pool is full,
  the oldest one that has not shown the link is closed to make room. A phone's connection
  shows the link within a round trip of being accepted, long before a flood of newer ones
  could push it out, and from then on nothing without the link can close it.
- a request head must be complete :data:`HEAD_SECONDS` after its first byte, and a
  connection that has not shown the link is closed :data:`HEAD_SECONDS` after it was
  opened, once no request of its is being answered: a request without the link is answered
  once (404) and the connection closed.
- the loop accepts every connection waiting (up to a batch) each time it wakes, instead of
  waitress's one, so that a phone's connection does not queue behind a flood in the kernel.

Everything here runs on waitress's loop thread, which owns the channels.
"""

from __future__ import annotations

import errno
import hmac
import logging
import resource
import time
from collections import OrderedDict
from typing import Any

from waitress import wasyncore
from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser
from waitress.server import TcpWSGIServer

log = logging.getLogger(__name__)

HEAD_SECONDS = 10.0  # to finish a request head; also how long a connection may go without the link
PER_SOURCE = 16  # connections one address may hold open without having shown the link
SHOWN_MOST = 64  # connections that have shown the link (several phones, a few sockets each)
WITHOUT_MOST = 192  # connections that have not, from everybody together
ACCEPT_BATCH = 64  # connections accepted each time the loop wakes
IDLE_WAKE = 30.0  # seconds the loop may sleep when no connection waits for a deadline
SPARE_FILES = 128  # descriptors kept for the daemon itself (store, copies, ports, pins)


class Link:
    """The token the page's address carries, and a count of how often it was replaced."""

    def __init__(self, token: str) -> None:
        self.token = token
        self.generation = 0

    def renew(self, token: str) -> None:
        self.token = token
        self.generation += 1

    def shown_by(self, path: str) -> bool:
        """Whether a request path starts with the token (compared in constant time, so the
        answer's timing says nothing about the token)."""
        given = path.split("/", 2)[1] if path.count("/") >= 2 else ""
        return hmac.compare_digest(given.encode("utf-8", "replace"), self.token.encode())


class LinkParser(HTTPRequestParser):  # type: ignore[misc]
    """waitress's request parser, telling its channel when a head is in and what it names."""

    def __init__(self, adj: Any, channel: GatedChannel) -> None:
        super().__init__(adj)
        self.channel = channel
        self.began = time.monotonic()  # made when the first byte of a request arrives

    def parse_header(self, header_plus: bytes) -> None:
        super().parse_header(header_plus)
        if not self.channel.headed(self.path):
            self.headers["CONNECTION"] = "close"  # one answer (404), then the connection goes


class GatedChannel(HTTPChannel):  # type: ignore[misc]
    """One connection, known to the gate from its accept to its close."""

    server: GatedServer

    def __init__(self, server: GatedServer, sock: Any, addr: Any, adj: Any, map: Any = None) -> None:
        self.opened = time.monotonic()
        self.shown = -1  # the link's generation when this connection showed it; -1: never
        self.parser_class = lambda adj: LinkParser(adj, self)
        super().__init__(server, sock, addr, adj, map)

    def headed(self, path: str) -> bool:
        """A request head has arrived (on the loop thread): does it show the link?"""
        return self.server.gate.headed(self, path)

    def del_channel(self, map: Any = None) -> None:
        self.server.gate.forget(self)
        super().del_channel(map)


class Gate:
    """The connections that have not shown the link, oldest first, and those that have."""

    def __init__(self, link: Link, most: int) -> None:
        self.link = link
        self.most = most
        self.waiting: OrderedDict[GatedChannel, None] = OrderedDict()  # not shown, oldest first
        self.by_source: dict[str, OrderedDict[GatedChannel, None]] = {}
        self.shown: set[GatedChannel] = set()
        self.crowded = False  # whether the pool has overflowed since it was last empty (for the log)

    def admit(self, channel: GatedChannel, full: bool) -> None:
        """A new connection: into the pool, making room by closing the oldest of its
        source's, or else of everybody's (also when the server holds all it may: ``full``)."""
        mine = self.by_source.get(str(channel.addr[0]))
        if mine is not None and len(mine) >= PER_SOURCE:
            self.drop(next(iter(mine)))
        elif self.waiting and (full or len(self.waiting) >= self.most):
            self.drop(next(iter(self.waiting)))
        self.waiting[channel] = None
        self.by_source.setdefault(str(channel.addr[0]), OrderedDict())[channel] = None

    def drop(self, channel: GatedChannel) -> None:
        if not self.crowded:
            self.crowded = True
            log.info("phone view: many connections without the link; closing the oldest of them")
        channel.handle_close()  # forget() takes it out of the pool

    def headed(self, channel: GatedChannel, path: str) -> bool:
        if not self.link.shown_by(path):
            return channel.shown == self.link.generation
        if channel.shown != self.link.generation:
            self._leave_pool(channel)
            channel.shown = self.link.generation
            self.shown.add(channel)
        return True

    def _leave_pool(self, channel: GatedChannel) -> None:
        self.waiting.pop(channel, None)
        source = self.by_source.get(str(channel.addr[0]))
        if source is not None:
            source.pop(channel, None)
            if not source:
                del self.by_source[str(channel.addr[0])]
        if not self.waiting:
            self.crowded = False

    def forget(self, channel: GatedChannel) -> None:
        self._leave_pool(channel)
        self.shown.discard(channel)

    def renewed(self) -> None:
        """A new link: connections that showed the old one are back in the pool, as if new."""
        now = time.monotonic()
        for channel in self.shown:
            channel.opened = now
            self.waiting[channel] = None
            self.by_source.setdefault(str(channel.addr[0]), OrderedDict())[channel] = None
        self.shown.clear()

    def overdue(self, now: float) -> list[GatedChannel]:
        """Connections past a deadline: a request head begun too long ago, or no link
        shown since long enough after opening (and no answer being written to them)."""
        late = [channel for channel in self.waiting if now - channel.opened > HEAD_SECONDS
                and not channel.requests]
        late += [channel for channel in self.shown if channel.request is not None
                 and now - channel.request.began > HEAD_SECONDS]
        return late

    def next_deadline(self, now: float) -> float:
        """Seconds until the loop must look at the deadlines again."""
        if not self.waiting:
            return IDLE_WAKE
        return max(0.05, next(iter(self.waiting)).opened + HEAD_SECONDS - now)


def pool_size() -> int:
    """How many connections without the link may be held: :data:`WITHOUT_MOST`, or fewer
    when the process may open few files. Under systemd/companion.service that is 1024
    (systemd's DefaultLimitNOFILE=1024:524288; the unit sets no LimitNOFILE=), of which the
    view then holds at most 258, a quarter."""
    files = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if files == resource.RLIM_INFINITY:
        return WITHOUT_MOST
    return max(PER_SOURCE, min(WITHOUT_MOST, (files - SPARE_FILES) // 2 - SHOWN_MOST))


class GatedServer(TcpWSGIServer):  # type: ignore[misc]
    """waitress's TCP server with the gate: accepts in batches, never stops accepting while
    a connection without the link can make room, and keeps the deadlines."""

    channel_class = GatedChannel
    next_channel_cleanup = 0.0  # waitress's: when its idle timeout is next checked

    def __init__(self, *args: Any, link: Link, **kwargs: Any) -> None:
        self.gate = Gate(link, pool_size())
        self.paused_until = 0.0  # out of file descriptors: accept again after this
        super().__init__(*args, **kwargs)

    def readable(self) -> bool:
        now = time.time()
        if now >= self.next_channel_cleanup:
            self.next_channel_cleanup = now + self.adj.cleanup_interval
            self.maintenance(now)
        room = len(self._map) < self.adj.connection_limit or bool(self.gate.waiting)
        return bool(self.accepting) and room and time.monotonic() >= self.paused_until

    def maintenance(self, now: float) -> None:
        super().maintenance(now)  # waitress's idle timeout
        for channel in self.gate.overdue(time.monotonic()):
            channel.handle_close()

    def handle_accept(self) -> None:
        for _ in range(ACCEPT_BATCH):
            try:
                accepted = self.accept()
            except OSError as err:
                if err.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                    log.warning("phone view: out of file descriptors (%s); not accepting for a second",
                                err.strerror)
                    self.paused_until = time.monotonic() + 1.0
                return
            if accepted is None:  # nobody else waiting
                return
            conn, addr = accepted
            try:
                self.set_socket_options(conn)
            except OSError:  # gone before we got to it
                conn.close()
                continue
            channel = self.channel_class(self, conn, self.fix_addr(addr), self.adj, map=self._map)
            self.gate.admit(channel, full=len(self._map) > self.adj.connection_limit)
            if not (len(self._map) < self.adj.connection_limit or self.gate.waiting):
                return

    def run(self) -> None:
        # waitress's loop wakes on a fixed period; ours wakes when the next deadline is due.
        try:
            while self._map:
                wasyncore.poll2(self.gate.next_deadline(time.monotonic()), self._map)
        except (SystemExit, KeyboardInterrupt):
            self.task_dispatcher.shutdown()

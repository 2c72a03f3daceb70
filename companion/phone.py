"""The phone view's switch and its secret link.

The phone view is a read-only web page of the game for everyone at the table. It is off
unless the configuration or the players turn it on. This module is all of it that is loaded
while it is off: the web server and its page are imported only when the view starts.

The link carries a random token of 128 bits, written in capitals so that the whole address
fits a QR code in its compact alphanumeric mode (the QR on the box is 29 modules wide).

>>> looks_like_token(new_token())
True
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import logging
import os
import pathlib
import socket
import struct
from typing import TYPE_CHECKING

from companion.config import PhoneConfig, quoted, read_saved, set_aside_note
from companion.exc import ConfigError
from companion.smallfile import write_small

if TYPE_CHECKING:  # only for the types: the server module is heavy and loaded on demand
    from PIL import Image

    from companion.web.server import PhoneServer
    from companion.web.snapshot import HasSession

log = logging.getLogger(__name__)

STATE_FILE = "phone.json"
TOKEN_BYTES = 16  # 128 bits
SIOCGIFADDR = 0x8915  # Linux: an interface's IPv4 address


def new_token() -> str:
    """A fresh random token: 128 bits in base32 capitals (26 characters)."""
    # os.urandom is what secrets.token_bytes calls; the secrets module would load OpenSSL
    # (through hmac), 3.5 MB resident, into a daemon that has the view off.
    return base64.b32encode(os.urandom(TOKEN_BYTES)).decode("ascii").rstrip("=")


def looks_like_token(value: object) -> bool:
    """Whether a stored value can be a token (a damaged file gets a new one)."""
    return (isinstance(value, str) and len(value) == 26
            and all(c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567" for c in value))


def lan_addresses() -> list[str]:
    """The box's IPv4 addresses other than loopback, read from the kernel (no traffic)."""
    found: list[str] = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        for _, name in socket.if_nameindex():
            try:
                packed = fcntl.ioctl(probe.fileno(), SIOCGIFADDR,
                                     struct.pack("256s", name[:15].encode()))
            except OSError:  # an interface without an IPv4 address
                continue
            address = socket.inet_ntoa(packed[20:24])
            if not address.startswith("127."):
                found.append(address)
    return found


def read_choice(path: pathlib.Path, enabled: bool) -> tuple[bool, str] | None:
    """The saved choice (``enabled`` when the file has none) and token in ``path``; None when
    there is no file; ConfigError naming the key when it is anything but what
    :meth:`PhoneView._save` writes."""
    saved = read_saved(path)
    if saved is None:
        return None
    choice = saved.flag("enabled", enabled)
    token = saved.text("token", "")
    if not looks_like_token(token):
        raise saved.fail("token", f"must be 26 base32 capitals, not {quoted(token)}")
    saved.done()
    return choice, token


class PhoneView:
    """Whether the view is on, its token, and the server while it runs.

    The players' choice (on or off) and the token are kept in the state directory, so a
    restart keeps both; the configuration's ``enabled`` is the default before any choice.
    The file is a convenience: a damaged one is set aside (one line in the log) and the
    configuration and a new token used; a failed write is one line in the log, never a crash.
    """

    def __init__(self, config: PhoneConfig, state_dir: pathlib.Path | None, store_path: str) -> None:
        self.config = config
        self.state_dir = state_dir
        self.store_path = store_path
        #: What phone.json holds now, (enabled, token): nothing is written while it is so;
        #: and what could not be written (said once, not at each try).
        self._kept = self._load()
        self._unsaved: tuple[bool, str] | None = None
        self.enabled, self.token = self._kept or (config.enabled, new_token())
        self.server: PhoneServer | None = None
        self.failure = ""  # why the server could not start, shown on the Settings page

    # --- the players' choices ---

    def _path(self) -> pathlib.Path | None:
        return None if self.state_dir is None else self.state_dir / STATE_FILE

    def _load(self) -> tuple[bool, str] | None:
        """The saved choice and token, every key checked; None when there is none, or when
        the file was damaged (then set aside, in one line of the log)."""
        path = self._path()
        if path is None:
            return None
        try:
            return read_choice(path, self.config.enabled)
        except ConfigError as err:
            log.warning("%s; a new link", set_aside_note(path, err, "phone view settings"))
            return None

    def _save(self) -> str:
        """Keep the choice and the token, readable by the service's user only (the token is
        the key to the page), unless the file already holds them; why not, or "".

        When the token cannot be kept, the file holding the old one is removed if it can
        be, so that a link made new never works again after a restart.
        """
        path = self._path()
        choice = (self.enabled, self.token)
        if path is None or choice in (self._kept, self._unsaved):
            return ""
        try:
            write_small(path, json.dumps({"enabled": self.enabled, "token": self.token}).encode(), 0o600)
        except OSError as err:
            if self._kept is not None and self._kept[1] != self.token:
                with contextlib.suppress(OSError):
                    path.unlink()
                    self._kept = None
            self._unsaved = choice
            problem = f"phone view not saved: {err.strerror or err}"
            log.error("%s: %s", path, problem)
            return problem
        self._kept, self._unsaved = choice, None
        return ""

    def turn(self, on: bool) -> str:
        """Switch the view on or off, and remember the choice; why it was not remembered, or ""."""
        self.enabled = on
        problem = self._save()
        if on:
            self.start()
        else:
            self.stop()
        return problem

    def renew(self) -> str:
        """A new token: every open page is closed, and the old link stops working; why the
        new one was not kept for the next start, or ""."""
        self.token = new_token()
        problem = self._save()
        if self.server is not None:
            self.server.renew(self.token)
        return problem

    # --- the server ---

    def start(self) -> None:
        """Serve the page if the view is on (importing the web side only now)."""
        if not self.enabled or self.server is not None:
            return
        from companion.web.server import PhoneServer

        try:
            self.server = PhoneServer(self.config.address, self.config.port, self.token, self.store_path)
        except OSError as err:  # the port is taken, or the address is not this box's
            self.failure = f"cannot listen on {self.config.address}:{self.config.port}: {err.strerror}"
            log.error("phone view: %s", self.failure)
            return
        self.failure = ""
        self._save()  # a token made just now must survive a restart (written only then)
        log.info("phone view on at port %s", self.server.port)

    def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            self.server = None

    def publish(self, app: HasSession, frame: Image.Image) -> None:
        """Hand the open pages the game as it stands now (nothing while the view is off)."""
        if self.server is not None:
            self.server.publish(app, frame)

    def url(self) -> str:
        """The address to scan, in capitals for the QR code's alphanumeric mode."""
        port = self.server.port if self.server is not None else self.config.port
        host = self.config.address
        if host in ("0.0.0.0", ""):
            # Under the unit the daemon sees no network (systemd listens for it), so the
            # box's mDNS name stands in: Raspberry Pi OS answers for NAME.local.
            host = next(iter(lan_addresses()), f"{socket.gethostname()}.local")
        return f"HTTP://{host}:{port}/{self.token}/".upper()

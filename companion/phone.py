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
import fcntl
import json
import logging
import os
import pathlib
import socket
import struct
from typing import TYPE_CHECKING, Any

from companion.config import PhoneConfig

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


class PhoneView:
    """Whether the view is on, its token, and the server while it runs.

    The players' choice (on or off) and the token are kept in the state directory, so a
    restart keeps both; the configuration's ``enabled`` is the default before any choice.
    """

    def __init__(self, config: PhoneConfig, state_dir: pathlib.Path | None, store_path: str) -> None:
        self.config = config
        self.state_dir = state_dir
        self.store_path = store_path
        saved = self._load()
        self.enabled = bool(saved.get("enabled", config.enabled))
        token = saved.get("token")
        self.token = str(token) if looks_like_token(token) else new_token()
        self.server: PhoneServer | None = None
        self.failure = ""  # why the server could not start, shown on the Settings page

    # --- the players' choices ---

    def _load(self) -> dict[str, Any]:
        if self.state_dir is None:
            return {}
        try:
            saved = json.loads((self.state_dir / STATE_FILE).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as err:
            log.warning("phone view settings unreadable (%s): starting from the configuration", err)
            return {}
        return saved if isinstance(saved, dict) else {}

    def _save(self) -> None:
        """Atomically, readable by the service's user only: the token is the key to the page."""
        if self.state_dir is None:
            return
        path = self.state_dir / STATE_FILE
        tmp = path.with_suffix(".tmp")
        handle = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump({"enabled": self.enabled, "token": self.token}, out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)

    def turn(self, on: bool) -> None:
        """Switch the view on or off, and remember the choice."""
        self.enabled = on
        self._save()
        if on:
            self.start()
        else:
            self.stop()

    def renew(self) -> None:
        """A new token: every open page is closed, and the old link stops working."""
        self.token = new_token()
        self._save()
        if self.server is not None:
            self.server.renew(self.token)

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
        self._save()  # a token made just now must survive a restart
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

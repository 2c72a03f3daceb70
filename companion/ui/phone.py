"""Settings > Phone view > Show link: the page's address as a QR code a phone can scan.

The code is drawn dark on a lit square, as printed codes are (phone cameras expect that),
two pixels a module; the address in capitals fits a 29-module code (version 3), so the
code with its quiet zone is 64 pixels square, the height of the screen.
"""

from __future__ import annotations

from collections.abc import Callable

from PIL import ImageDraw

from companion.intents import Intent
from companion.ui.draw import BLACK, HEIGHT, WHITE, WIDTH, text
from companion.ui.widgets import Host, Screen

MODULE = 2  # pixels per QR module


def qr_modules(url: str) -> list[list[bool]]:
    """The dark modules of the smallest QR code (error level L or better) holding ``url``.

    >>> len(qr_modules("HTTP://192.168.1.20:8080/ABCDEFGHIJKLMNOPQRSTUVWXYZ/"))
    29
    """
    import segno  # only when the link is shown

    code = segno.make_qr(url, error="l", boost_error=True)
    return [[bool(bit) for bit in row] for row in code.matrix]


def address_lines(url: str) -> list[str]:
    """The box's address in pieces narrow enough for the space beside the code.

    >>> address_lines("HTTP://192.168.100.200:8080/TOKEN/")
    ['192.168.', '100.200', ':8080']
    >>> address_lines("HTTP://RASPBERRYPI.LOCAL:8080/TOKEN/")
    ['RASPBERRY', 'PI.LOCAL', ':8080']
    """
    host, _, port = url.removeprefix("HTTP://").split("/")[0].rpartition(":")
    octets = host.split(".")
    if len(octets) == 4 and all(part.isdigit() for part in octets):
        pieces = [".".join(octets[:2]) + ".", ".".join(octets[2:])]
    else:
        pieces = [host[at:at + 9] for at in range(0, len(host), 9)][:3]
    return [*pieces, f":{port}"]


class LinkScreen(Screen):
    """The QR code on the left, the address in words on the right; any key goes back."""

    title = "Phone view"

    def __init__(self, url: Callable[[], str]) -> None:
        self.url = url
        self._drawn: tuple[str, list[list[bool]]] | None = None

    def modules(self) -> list[list[bool]]:
        url = self.url()
        if self._drawn is None or self._drawn[0] != url:
            self._drawn = (url, qr_modules(url))
        return self._drawn[1]

    def draw(self, draw: ImageDraw.ImageDraw) -> None:
        modules = self.modules()
        # Two pixels a module up to version 3 (29 modules); a longer address gets one.
        scale = MODULE if len(modules) * MODULE <= HEIGHT - 4 else 1
        side = len(modules) * scale
        quiet = (HEIGHT - side) // 2
        draw.rectangle((0, 0, side + 2 * quiet - 1, HEIGHT - 1), fill=WHITE)
        for y, row in enumerate(modules):
            for x, dark in enumerate(row):
                if dark:
                    left, top = quiet + x * scale, quiet + y * scale
                    draw.rectangle((left, top, left + scale - 1, top + scale - 1), fill=BLACK)
        right = side + 2 * quiet + 3
        for number, line in enumerate(["Scan me:", *address_lines(self.url())]):
            text(draw, (right, 11 + number * 12), line, 11, width=WIDTH - right)

    def on(self, intent: Intent, host: Host) -> None:
        host.pop()

"""Settings > Test keys & screen: try every key and every other input, and show patterns
that find dead pixels and a wrong ``--rotate``.

The key test sees each key's raw edges (the daemon hands them over instead of turning them
into intents), so every key, select and back included, only shows its name: none of them
moves the screen. The way out is to **hold any key for two seconds** and let go (the top bar
says so). Where no key can be held (the terminal emulator's keys are taps), three presses of
back within two seconds also leave, and so does a ``back`` that comes from no key (a
scripted ``--keys`` run). Inputs that are not keys (an encoder's turns, a tilt switch's
shakes) send intents marked with their name: the test counts what each one sent. Nothing
here touches a game: the screens only draw.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from PIL import ImageDraw

from companion.games.base import counted
from companion.intents import Intent
from companion.ui.draw import HEADER, HEIGHT, WHITE, WIDTH, header, lines, text
from companion.ui.widgets import Host, Screen

HOLD_TO_LEAVE = 2.0  # seconds: longer than any long press, short enough to find
BACKS_TO_LEAVE = 3  # presses of back within HOLD_TO_LEAVE seconds (bounces do not count)
#: Seconds: a press this soon after the same key's release is contact bounce (the default
#: debounce time; the emulator's taps of one key come 0.04 s apart).
BOUNCE = 0.02
#: The small lines under the key's name: the first baseline, how many, how far apart.
DETAILS, DETAIL_ROWS, DETAIL_PITCH = HEADER + 22, 4, 9


class KeyEdge(Protocol):
    """A raw level change on a key (``companion.io.buttons.Edge``)."""

    @property
    def role(self) -> str: ...
    @property
    def pressed(self) -> bool: ...
    @property
    def at(self) -> float: ...
    @property
    def source(self) -> str: ...


class KeyTest(Screen):
    """Every key shows its name, where it is wired, how long it was held and any contact
    bounce; the keys not tried yet are listed at the bottom."""

    title = "Keys"

    def __init__(self, expected: Sequence[str]) -> None:
        self.expected = list(expected)
        self.seen: set[str] = set()
        self.event, self.where, self.what = "Press each key", "", ""
        self.down: dict[str, float] = {}  # key -> when it went down
        self.released: dict[str, float] = {}  # key -> when it last came up
        self.bounces: dict[str, int] = {}
        self.backs: list[float] = []  # when back was last pressed (not bounces)
        self.sent: dict[str, dict[str, int]] = {}  # input -> intent -> how many it sent

    def edge(self, edge: KeyEdge, host: Host) -> None:
        """One raw edge of a key."""
        role = edge.role
        self.event, self.where = role, edge.source or "key"
        if edge.pressed:
            if edge.at - self.released.get(role, edge.at - 2 * BOUNCE) < BOUNCE:
                self.bounces[role] = self.bounces.get(role, 0) + 1
            elif role == "back":
                self.backs = [t for t in self.backs if edge.at - t < HOLD_TO_LEAVE] + [edge.at]
                if len(self.backs) >= BACKS_TO_LEAVE:
                    host.pop()
                    return
            self.down.setdefault(role, edge.at)
            self.what = "down"
            return
        held = edge.at - self.down.pop(role, edge.at)
        self.released[role] = edge.at
        if held >= HOLD_TO_LEAVE:
            host.pop()
            return
        self.seen.add(role)
        bounced = self.bounces.get(role, 0)
        self.what = f"held {held:.2f} s" + (f", {counted(bounced, 'bounce')}" if bounced else "")

    def on(self, intent: Intent, host: Host) -> None:
        """An input that is not a key (it names itself), or an intent from no key (the
        keyboard's digits, undo and redo; a scripted run)."""
        if intent.source:
            sent = self.sent.setdefault(intent.source, {})
            sent[intent.kind] = sent.get(intent.kind, 0) + 1
            self.seen.add(intent.source)
            self.event, self.where = intent.source, f"sent {intent.kind}"
            self.what = ", ".join(f"{kind} {count}" for kind, count in sorted(sent.items()))
        elif intent.kind == "back":
            host.pop()
        else:
            self.event = intent.kind + (f" {intent.value}" if intent.kind == "digit" else "")
            self.where, self.what = intent.source or "not a GPIO key", ""

    def draw(self, draw: ImageDraw.ImageDraw) -> None:
        """The key's name; under it, in small lines, where it is wired and how it was held,
        then the keys still to try."""
        header(draw, self.title, f"hold {HOLD_TO_LEAVE:.0f} s: leave")
        text(draw, (2, HEADER + 12), self.event, 12)
        left = [name for name in self.expected if name not in self.seen]
        to_try = f"{len(left)} to try: {' '.join(left)}" if left else "Every key works"
        lines(draw, (2, DETAILS), "\n".join(words for words in (self.where, self.what, to_try) if words),
              10, WIDTH - 4, DETAIL_ROWS, DETAIL_PITCH)


def checkerboard(draw: ImageDraw.ImageDraw, phase: int) -> None:
    for y in range(HEIGHT):
        for x in range((y + phase) % 2, WIDTH, 2):
            draw.point((x, y), fill=WHITE)


def white(draw: ImageDraw.ImageDraw) -> None:
    draw.rectangle((0, 0, WIDTH - 1, HEIGHT - 1), fill=WHITE)


def border(draw: ImageDraw.ImageDraw) -> None:
    """The outermost pixels all round, and a triangle in the top left: on a panel mounted
    the other way round (a wrong ``--rotate``) the triangle is in another corner."""
    draw.rectangle((0, 0, WIDTH - 1, HEIGHT - 1), outline=WHITE)
    draw.polygon([(3, 3), (20, 3), (3, 20)], fill=WHITE)
    text(draw, (24, 14), "top left", 12)


#: The patterns in the order shown: a name and how to draw it.
PATTERNS: tuple[tuple[str, Callable[[ImageDraw.ImageDraw], None]], ...] = (
    ("white", white),
    ("checkerboard", lambda draw: checkerboard(draw, 0)),
    ("checkerboard, shifted", lambda draw: checkerboard(draw, 1)),
    ("border", border),
)


class PatternTest(Screen):
    """Full-screen patterns: any key shows the next, back (or left) leaves; after the last
    pattern the menu comes back. The picture is not shifted for burn-in while shown."""

    title = "Screen patterns"

    def __init__(self) -> None:
        self.at = 0

    @property
    def pattern(self) -> str:
        return PATTERNS[self.at][0]

    def draw(self, draw: ImageDraw.ImageDraw) -> None:
        PATTERNS[self.at][1](draw)

    def on(self, intent: Intent, host: Host) -> None:
        if intent.kind in ("back", "left") or self.at == len(PATTERNS) - 1:
            host.pop()
        else:
            self.at += 1

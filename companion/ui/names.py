"""Typing a name with the arrows: the name editor New game opens for a name the lists do not
hold (a player's, a penguin colour's).

A name is what records.md allows, and only that: 1 to 12 of ``A-Z a-z 0-9 - _``. The keys
are three rows under the name: two rows of letters (or of digits), and a row of the other
keys: the other letters' case, the digits, Del and Done. The name starts in capitals and
goes on in small letters after its first one, as most names are written.

The same presses work on every build. Up and down pick a row; select goes into it; then up
and down pick a key along the row and select types it, back on the rows. A joystick's left
and right go into the row and along it at once, so a letter there is a push or two and
select. Back (or select held, on a build with no back key) leaves a row, or deletes the
last letter, or with nothing typed goes back. The digits keys type digits too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from PIL import ImageDraw

from companion.intents import Intent
from companion.ui.draw import BLACK, HEADER, HEIGHT, WHITE, WIDTH, Area, header, notice, notice_top, text
from companion.ui.widgets import Host, Screen

#: The letters' rows of each key set, by the key that shows that set.
CAPITALS, SMALL, DIGITS = "ABC", "abc", "123"
KEYSETS = {CAPITALS: ("ABCDEFGHIJKLM", "NOPQRSTUVWXYZ"),
           SMALL: ("abcdefghijklm", "nopqrstuvwxyz"),
           DIGITS: ("0123456789", "-_")}
DELETE, DONE = "Del", "Done"
MOST = 12  # letters in a name (records.md)
ROW = 16  # pixels per row of keys: a menu's row
PITCH = 9  # pixels per letter key
WORD_CELL = 30  # pixels per key of the last row (the words)


@dataclass(frozen=True)
class Cursor:
    """Where the editor's cursor is: the key set shown, the row, the key last used in each
    row, and whether it is on a key (``picking``) or on the row as a whole."""

    keyset: str = CAPITALS
    row: int = 0
    cols: tuple[int, int, int] = (0, 0, 3)  # the last row starts on Done
    picking: bool = False

    @property
    def rows(self) -> tuple[tuple[str, ...], ...]:
        """The keys of each row in this key set."""
        first, second = KEYSETS[self.keyset]
        others = tuple(name for name in KEYSETS if name != self.keyset)
        return tuple(first), tuple(second), (*others, DELETE, DONE)

    @property
    def col(self) -> int:
        """The key at hand in the row (the one last used, within this set's row)."""
        return min(self.cols[self.row], len(self.rows[self.row]) - 1)

    @property
    def key(self) -> str:
        """The key select types (or presses) now."""
        return self.rows[self.row][self.col]

    def along(self, step: int) -> Cursor:
        """On the key ``step`` along the row, round its ends."""
        cols = list(self.cols)
        cols[self.row] = (self.col + step) % len(self.rows[self.row])
        return replace(self, cols=(cols[0], cols[1], cols[2]), picking=True)


def moved(cursor: Cursor, kind: str) -> Cursor | None:
    """Where a press takes the cursor, when all it does is move it (None: it types, deletes,
    finishes or leaves). The editor's presses and the driver's search both go through here.

    >>> moved(Cursor(), "down").row, moved(Cursor(), "select").picking
    (1, True)
    >>> moved(Cursor(), "left").key, moved(Cursor(picking=True), "select")
    ('M', None)
    """
    if not cursor.picking:
        if kind in ("up", "down"):
            return replace(cursor, row=(cursor.row + (1 if kind == "down" else -1)) % 3)
        if kind == "select":
            return replace(cursor, picking=True)
        if kind in ("left", "right"):
            return cursor.along(1 if kind == "right" else -1)
        return None
    if kind in ("up", "left", "down", "right"):
        return cursor.along(1 if kind in ("down", "right") else -1)
    if kind == "back":
        return replace(cursor, picking=False)
    if kind == "select" and cursor.key in KEYSETS:
        return replace(cursor, keyset=cursor.key, row=0, picking=False)
    return None


#: Where the editor's message goes: up from the foot over the keys, as far as it needs.
NOTICE: Area = (HEADER + 1, HEIGHT - 1)


class NameEditor(Screen):
    """Type one name; ``done`` gets it once Done is pressed on a name ``refusal`` finds
    nothing against (it says why a name cannot be taken here: already playing, say)."""

    def __init__(self, title: str, corner: str, done: Callable[[str], None],
                 refusal: Callable[[str], str] = lambda name: "") -> None:
        self.title = title
        self.corner = corner
        self.done = done
        self.refusal = refusal
        self.typed = ""
        self.cursor = Cursor()

    def draw(self, draw: ImageDraw.ImageDraw) -> None:
        if self.typed:
            header(draw, self.typed + ("_" if len(self.typed) < MOST else ""), self.corner)
        else:
            header(draw, self.title, self.corner)
        # A message (why Done is refused) takes the rows of keys it covers, until the next press.
        covered = notice_top(self.message, NOTICE) if self.message else HEIGHT
        for row, keys in enumerate(self.cursor.rows):
            top = HEADER + 1 + row * ROW
            if top + ROW > covered:
                break
            if row == self.cursor.row:  # framed; on the row as a whole, a menu's solid tab too
                draw.rectangle((0, top + 1, WIDTH - 1, top + ROW - 1), outline=WHITE)
                if not self.cursor.picking:
                    draw.rectangle((0, top + 1, 2, top + ROW - 1), fill=WHITE)
            cell = PITCH if row < 2 else WORD_CELL
            left = (WIDTH - cell * len(keys)) // 2
            for col, key in enumerate(keys):
                here = self.cursor.picking and row == self.cursor.row and col == self.cursor.col
                x = left + col * cell
                if here:
                    draw.rectangle((x, top + 2, x + cell - 1, top + ROW - 2), fill=WHITE)
                text(draw, (x + cell // 2, top + 12), key, 12, BLACK if here else WHITE, anchor="ms")
        if self.message:
            notice(draw, NOTICE, self.message)

    def on(self, intent: Intent, host: Host) -> None:
        kind = intent.kind
        if kind == "context":  # the long press: back, where there is no back key
            kind = "back"
        if kind == "digit":
            self.type(str(intent.value))
        elif kind == "back" and not self.cursor.picking:
            if self.typed:
                self.delete()
            else:
                host.pop()
        elif (after := moved(self.cursor, kind)) is not None:
            self.cursor = after
        elif kind == "select":
            key = self.cursor.key
            if key == DELETE:
                self.delete()
            elif key == DONE:
                self.finish(host)
            else:
                self.type(key)

    def type(self, letter: str) -> None:
        """One more letter; the cursor goes back to the rows. The first letter of a name in
        capitals turns the keys to small letters."""
        if len(self.typed) >= MOST:
            self.message = f"{MOST} letters at most"
            return
        self.typed += letter
        keyset = SMALL if self.typed == letter and self.cursor.keyset == CAPITALS else self.cursor.keyset
        self.cursor = replace(self.cursor, keyset=keyset, picking=False)

    def delete(self) -> None:
        """The last letter goes (the cursor stays on Del, for the next); with none left, the
        next letter is a capital again."""
        self.typed = self.typed[:-1]
        if not self.typed and self.cursor.keyset == SMALL:
            self.cursor = replace(self.cursor, keyset=CAPITALS)

    def finish(self, host: Host) -> None:
        reason = self.refusal(self.typed) if self.typed else "Type a letter first"
        if reason:
            self.message = reason
            return
        host.pop()
        self.done(self.typed)

"""What the phone page shows, as one immutable value built by the thread that owns state.

The main loop calls :func:`facts` after a frame has gone to the display; the web threads
only ever read the bytes it produced, so they never touch the session.
"""

from __future__ import annotations

import base64
import json
from typing import Any, Protocol, TypedDict

from PIL import Image

from companion.games.base import Summary
from companion.session import Session


class HasSession(Protocol):
    """The part of the app a snapshot reads."""

    session: Session[Any, Any] | None


def frame_bits(frame: Image.Image) -> str:
    """The 128x64 frame as base64 of its packed bits, row by row, most significant first.

    >>> frame_bits(Image.new("1", (8, 1), 1))
    '/w=='
    """
    return base64.b64encode(frame.convert("1").tobytes()).decode("ascii")


class GameFacts(TypedDict):
    """The game part of a snapshot, as the phone page reads it."""

    id: int
    head: int
    title: str
    actor: str
    question: str
    summary: Summary


def game_facts(session: Session[Any, Any]) -> GameFacts:
    """The game as records.md summarises it, plus whose turn and the question on the box."""
    ask = session.prompt()
    return {
        "id": session.gid,
        "head": session.head,
        "title": session.game.title,
        "actor": ask.actor if ask is not None else "",
        "question": ask.question if ask is not None else "",
        "summary": session.summary(),
    }


class Snapshots:
    """Builds the published bytes, reusing the game's part while the game has not moved."""

    def __init__(self) -> None:
        self.version = 0
        self._state: object = None  # the game state the game part was built from
        self._game: GameFacts | None = None
        self._pixels = b""

    def build(self, app: HasSession, frame: Image.Image) -> bytes | None:
        """The next snapshot as JSON bytes, or None when nothing a page shows has changed."""
        session = app.session
        # States are immutable values: the same object means the same game position (an
        # undo followed by a different entry reaches the same head with a new state).
        state = session.state if session is not None else None
        pixels = frame.tobytes()
        if self.version and pixels == self._pixels and state is self._state:
            return None
        self._pixels = pixels
        if state is not self._state or not self.version:
            self._state = state
            self._game = game_facts(session) if session is not None else None
        self.version += 1
        return json.dumps({"version": self.version, "frame": frame_bits(frame), "game": self._game},
                          separators=(",", ":")).encode()

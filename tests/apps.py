"""An app opened on a stored game at its play screen, and intents pressed into it, for the
tests that drive the real app as the keys do."""

from __future__ import annotations

import random

from companion.config import Config
from companion.games import game_by_id
from companion.games.base import Line
from companion.intents import Intent
from companion.record import Header
from companion.session import Session
from companion.store import Store
from companion.ui.app import App


def opened(store: Store, game: str, players: tuple[str, ...],
           *lines: str) -> tuple[App, Session]:
    """A new game with these lines logged, open on its play screen in a fresh app."""
    found = game_by_id(game)
    assert found is not None
    session = Session.new(store, Header(found, players))
    for text in lines:
        session.play([Line.parse(text)])
    app = App(store, Config(), rng=random.Random(3))
    assert app.open(session.gid)
    return app, session


def press(app: App, *kinds: str | int) -> None:
    """Intents into the app as the keys send them; a number is a digit key."""
    for kind in kinds:
        app.handle(Intent("digit", kind) if isinstance(kind, int) else Intent(kind))

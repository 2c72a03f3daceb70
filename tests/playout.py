"""Random playouts driven only by what each game's prompt offers (no game knowledge)."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from typing import Any

from companion.dice import device_roll
from companion.games.base import Choice, Form, Game, Grid, IllegalLine, Line, Prompt, Roll, usable
from companion.record import Header
from companion.session import Session
from companion.store import Store

#: Seat names for random games, enough for any game's largest table.
NAMES = ("Ann", "Bob", "Cat", "Dan", "Eve")
#: Re-rolls before giving up. A nearly full Leaf-Climbers board may leave one square of 36
#: for a leaf: 2000 tries miss it with odds of about 1e-25.
TRIES = 2000


def answer(game: Game[Any, Any], state: Any, ask: Prompt, rng: random.Random) -> Line:
    """A legal line drawn from the prompt: extras now and then, else a required answer."""
    required, extras = usable(ask.answers), usable(ask.extras)
    pool = required if required and (not extras or rng.random() < 0.85) else extras
    option = rng.choice(pool)
    if isinstance(option, Choice):
        return option.line
    if isinstance(option, Grid):
        return rng.choice(option.legal)
    for _ in range(TRIES):
        if isinstance(option, Roll):
            line = option.line(tuple(rng.randint(1, s) for s in option.sides))
        else:
            assert isinstance(option, Form)
            line = option.line(tuple(rng.randint(f.low, f.high) for f in option.fields))
        try:
            game.apply(state, line)
            return line
        except IllegalLine:
            if isinstance(option, Roll) and not option.reroll_refused:
                raise
    raise AssertionError(f"no legal line found for {option}")


def playout(game: Game[Any, Any], players: tuple[str, ...], rng: random.Random, steps: int = 400,
            options: dict[str, str] | None = None) -> tuple[Any, list[Line]]:
    """Play up to ``steps`` lines; return the final state and the lines."""
    state = game.start(players, game.option_values(options or {}))
    lines: list[Line] = []
    for _ in range(steps):
        ask = game.prompt(state)
        # Over: stop, or now and then log a line the rules still accept after the end.
        if ask is None or (not ask.answers and (not usable(ask.extras) or rng.random() < 0.5)):
            break
        line = answer(game, state, ask, rng)
        state = game.apply(state, line)
        lines.append(line)
    return state, lines


def players_for(game: Game[Any, Any], extra: int) -> tuple[str, ...]:
    """The first names for a table of the game's fewest players plus ``extra`` (capped)."""
    return NAMES[:min(game.max_players, game.min_players + extra)]


def next_entry(session: Session, rng: random.Random) -> tuple[list[Line], bool]:
    """A legal entry from the prompt: a device roll (maybe chained) or one answered line."""
    ask = session.prompt()
    assert ask is not None
    rolls = [a for a in ask.answers if isinstance(a, Roll)]
    if rolls and rng.random() < 0.5:
        return device_roll(session.game, session.state, rng.choice(rolls), rng), True
    return [answer(session.game, session.state, ask, rng)], False


def wander(path: str, header: Header, ops: Iterable[str], rng: random.Random) -> Iterator[Session]:
    """A stored game driven by ``ops``, yielded after each: ``p`` plays a random entry (not
    once over), ``u`` undoes, ``r`` redoes, ``!`` is a power cut (the store is opened again,
    and the game must come back in the same state)."""
    store = Store(path)
    try:
        session = Session.new(store, header)
        for op in ops:
            if op == "p" and not session.over():
                session.play(*next_entry(session, rng))
            elif op == "u" and session.head > 0:
                session.undo()
            elif op == "r" and session.redo_entry() is not None:
                session.redo()
            elif op == "!":
                gid, state = session.gid, session.state
                store.close()
                store = Store(path)
                session = Session(store, gid)
                assert session.state == state
            yield session
    finally:
        store.close()


def box_game(store: Store, game_id: str, seed: int, steps: int = 120) -> Session:
    """A game played on the box as a table might: the device rolls the dice (after an
    undo, it uses the same faces again or rolls anew), other answers are picked, and now
    and then entries are undone."""
    from companion.games import GAMES

    rng = random.Random(seed)
    game = GAMES[game_id]
    session = Session.new(store, Header(game, players_for(game, 1)))
    for _ in range(steps):
        ask = session.prompt()
        if ask is None:
            break
        if session.head and rng.random() < 0.15:
            for _ in range(rng.randint(1, min(3, session.head))):
                session.undo()
            continue
        rolls = [a for a in ask.answers if isinstance(a, Roll)]
        if rolls:
            offered = session.roll_again(rolls[0]) is not None
            if offered and rng.random() < 0.5:
                session.use_again(rolls[0])
            else:
                session.play(session.roll(rolls[0], rng), rolled=True, again=offered)
        else:
            session.play([answer(game, session.state, ask, rng)])
    return session

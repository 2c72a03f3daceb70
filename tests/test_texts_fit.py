"""Issue 26 §1: every refusal, result and check the engines can produce, each at its longest
(the widest names a roster can hold, options at their widest), and every number-entry
state, is drawn whole where the box shows it. The texts are made by tests/texts.py, not
listed by hand; the drawing layer's check (``companion.ui.draw.checking``) judges each frame.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import pytest

from companion.config import Config
from companion.dice import device_roll
from companion.games import GAMES
from companion.games.base import Field, Form, Grid, Roll, usable
from companion.intents import Intent
from companion.record import Header
from companion.session import Session
from companion.store import Store
from companion.ui.app import App
from companion.ui.board import BoardScreen, plain_board
from companion.ui.draw import Fault, checking, recording
from companion.ui.driver import Driver
from companion.ui.play import RESULT_SECONDS, PlayScreen, result_line
from companion.ui.widgets import Menu, Numbers, Preview, span_of
from tests.playout import answer
from tests.texts import ONE_OF_MANY, harvest, widest_names, widest_options

GAME_IDS = sorted(GAMES)
STEPS = 300  # lines of a game walked through for its number entries


def opened(game_id: str, steps: int = 0, seed: int = 26) -> tuple[App, Session]:
    """A game of the most players with the widest names and options, ``steps`` random
    entries in, open on its play screen (the store in memory)."""
    game = GAMES[game_id]
    names = widest_names(game.max_players)
    header = Header(game, names, tuple(widest_options(game, names).items()))
    store = Store(":memory:")
    session = Session.new(store, header)
    rng = random.Random(seed)
    for _ in range(steps):
        if session.over():
            break
        session.play([answer(game, session.state, session.prompt(), rng)])
    app = App(store, Config(roster=names), rng=rng)
    assert app.open(session.gid) and app.session is not None
    return app, app.session  # the session the screens show


def with_short_names(words: str) -> str:
    """Words with the widest names replaced by short ones (results join when they fit)."""
    for wide, short in zip(widest_names(5), ("Ann", "Bob", "Cat", "Dan", "Eve")):
        words = words.replace(wide, short)
    return words


def faults_of(app: App) -> list[Fault]:
    with checking() as found:
        app.frame()
    return found


def shown_whole(app: App, message: str) -> list[str]:
    """The faults of ``message`` shown on the screen on top (on a page of its own if long)."""
    depth = len(app.stack)
    app.toast(message)
    found = [f"{fault} ({type(app.top).__name__})" for fault in faults_of(app)]
    del app.stack[depth:]
    app.top.message = ""
    return found


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_refusal_at_its_longest_is_shown_whole_wherever_it_is_shown(game_id: str) -> None:
    """On the play screen, on the board, under a number entry and over a menu."""
    app, session = opened(game_id)
    play = app.top
    assert isinstance(play, PlayScreen)
    screens = [
        BoardScreen(Grid("", session.players[0], "move", 6, 6, ()), plain_board, session.summary,
                    lambda line: "", "where?"),
        Numbers("Enter faces", [Field("d6", 1, 6)], lambda values: None, play.backdrop,
                question=play.question_row),
    ]
    found: dict[str, str] = {}
    for refusal in harvest(game_id).refusals:
        for screen in (None, *screens):
            if screen is not None:
                app.push(screen)
            for fault in shown_whole(app, refusal):
                found.setdefault(refusal, fault)
            app.to_play_screen()
    assert not found, list(found.items())[:8]


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_result_and_check_at_its_longest_is_shown_whole(game_id: str) -> None:
    """A result where the panel goes (and the question's row, when it needs it); the check
    before logging in the play screen's rows."""
    app, session = opened(game_id)
    play = app.top
    assert isinstance(play, PlayScreen)
    found: dict[str, str] = {}
    made = harvest(game_id)
    for result in made.results:
        play.result = result
        for fault in faults_of(app):
            found.setdefault(result, str(fault))
    play.result = ""
    for told in made.previews:
        app.push(Preview(session.players[0], told, lambda: None, None, play.header_row,
                         play.question(session.prompt())))
        for fault in faults_of(app):
            found.setdefault(told, str(fault))
        app.pop()
    assert not found, list(found.items())[:8]


def number_entries(game_id: str) -> Iterator[tuple[App, Numbers]]:
    """Each kind of number entry a game asks for (dice to type in, forms), at the state
    where a random game of the widest names first asks it, open on the real play screen."""
    game = GAMES[game_id]
    seen: set[tuple[str, ...]] = set()
    for seed in (1, 2):
        app, session = opened(game_id, seed=seed)
        rng = random.Random(seed)
        for _ in range(STEPS):
            ask = session.prompt()
            if ask is None or not usable((*ask.answers, *ask.extras)):
                break
            for option in (*ask.answers, *ask.extras):
                if not isinstance(option, (Roll, Form)):
                    continue
                key = (type(option).__name__, option.actor, option.verb, *_shape(option))
                if key in seen:
                    continue
                seen.add(key)
                app.to_play_screen()
                play = app.top
                assert isinstance(play, PlayScreen)
                play.changed()
                if isinstance(option, Roll):  # faces that name squares: as numbers once a digit is typed
                    play.enter_faces(option, None if option.board is None else 1)
                else:
                    play.fill_form(option)
                entry = app.top
                assert isinstance(entry, Numbers)
                yield app, entry
                app.to_play_screen()
            rolls = [a for a in ask.answers if isinstance(a, Roll)]
            if rolls and rng.random() < 0.5:
                session.play(device_roll(game, session.state, rng.choice(rolls), rng), rolled=True)
            else:
                session.play([answer(game, session.state, ask, rng)])
            app.to_play_screen()
            top = app.top
            assert isinstance(top, PlayScreen)
            top.changed()


def _shape(option: Roll | Form) -> tuple[str, ...]:
    if isinstance(option, Roll):
        return (option.label, *option.labels, *map(str, option.sides), *option.names)
    return (option.label, *(f"{f.label}{f.low}-{f.high}{f.names}" for f in option.fields))


#: Games that ask for no number on the box: Quick Lemmings' cards are picked on a table of
#: the cards, its refills and finishes are choices.
NUMBERLESS = {"quick-lemmings"}


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_number_entry_state_is_drawn_whole(game_id: str) -> None:
    """Every number of every entry, at every value it can take, and the reason a digit
    it cannot take gets, with the widest names and options."""
    found: dict[str, str] = {}
    count = 0
    for app, entry in number_entries(game_id):
        for at, spec in enumerate(entry.numbers):
            entry.at = at
            for value in range(spec.low, spec.high + 1):
                entry.values[at] = value
                count += 1
                for fault in faults_of(app):
                    found.setdefault(f"{entry.title} {spec.label}={spec.word(value)}", str(fault))
            entry.message = f"{spec.label}: {span_of(spec)}"  # as a digit it cannot take says
            for fault in faults_of(app):
                found.setdefault(f"{entry.title}: {entry.message}", str(fault))
            entry.message = ""
    assert (count > 0) != (game_id in NUMBERLESS)
    assert not found, list(found.items())[:8]


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_one_of_a_thing_is_never_said_in_the_plural(game_id: str) -> None:
    """Issue 26 §8 ("1 gleebs to place"): every count goes through ``counted``. What the
    engine says, and every string on the play screen all through a random game; and no
    result reads "Bob wins!; Cat crushed"."""
    made = harvest(game_id)
    said = [words for texts in (made.refusals, made.results, made.previews, made.asks)
            for words in texts if ONE_OF_MANY.search(words)]
    said += [told for events in made.together
             if re.search(r"[!.?];", told := result_line([with_short_names(e) for e in events]))]
    game = GAMES[game_id]
    app, session = opened(game_id)
    rng = random.Random(8)
    for _ in range(STEPS):
        with recording() as drawn:
            app.frame()
        said += [d.words for d in drawn if ONE_OF_MANY.search(d.words)]
        ask = session.prompt()
        if ask is None or not usable(ask.answers):
            break
        session.play([answer(game, session.state, ask, rng)])
        told = result_line(session.results())
        if re.search(r"[!.?];", told):  # "Bob wins!; Cat crushed"
            said.append(told)
        app.remote()
        app.tick(0.0)
        app.tick(RESULT_SECONDS)  # the result goes: the panel shows
    assert not said, said


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_menu_line_and_title_starts_with_a_capital(game_id: str) -> None:
    """Issue 26 §8 (the pages "piles, cards, players, tiles"): the menus of a new game, of
    each option, and the game menu with each page it opens."""
    game = GAMES[game_id]
    app = App(Store(":memory:"), Config(), rng=random.Random(1))
    said: set[str] = set()

    def look() -> None:
        top = app.top
        if isinstance(top, Menu):
            said.update([top.title, *(item.label for item in top.items)])

    def press(intent: Intent) -> None:
        look()
        app.handle(intent)
        look()

    options = tuple((key, spec.choices[-1]) for key, spec in game.options.items() if spec.choices)
    Driver(app, press).new_game(Header(game, Config().roster[:game.min_players], options))
    app.handle(Intent("context"))
    look()
    lower = sorted(words for words in said if words[:1].islower())
    assert not lower, lower

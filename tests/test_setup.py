"""New game (issue 26 §6): every legal header can be set up on the box. Names the roster
does not hold are typed with the arrows and remembered; who starts is picked where the rules
say the table picks; every option of records.md is set on the set-up list; and the common
set-up takes no more presses than it did."""

from __future__ import annotations

import json
import pathlib
import random
import string
from collections.abc import Iterator

import pytest

from companion.ai import advisor
from companion.config import MOST_REMEMBERED, Config, remembered_after, settings_path, with_settings
from companion.exc import DriverError
from companion.games import GAMES
from companion.games.base import FIRST_SEAT, RESERVED_NAMES, Game
from companion.games.quick_lemmings import deal_sizes
from companion.intents import Intent
from companion.record import Header, replay_text
from companion.store import Store
from companion.ui.app import App
from companion.ui.draw import recording
from companion.ui.driver import Driver
from companion.ui.games import screen_title
from companion.ui.names import MOST, Cursor, NameEditor
from companion.ui.play import PlayScreen
from companion.ui.setup import MOST_OF_ONE, START, Count, CountsEntry, NewGame, Seat
from companion.ui.widgets import Menu, Page
from tests.harness import Harness
from tests.layout import layout_faults, python_in

NAME_LETTERS = string.ascii_letters + string.digits + "-_"


class Box:
    """The real app on a store in ``directory``, pressed as the keys press it, counting."""

    def __init__(self, directory: pathlib.Path, config: Config | None = None, seed: int = 1) -> None:
        self.store = Store(str(directory / f"games-{seed}.sqlite"))
        self.app = App(self.store, config or Config(), rng=random.Random(seed))
        self.count = 0
        self.driver = Driver(self.app, self.press)

    def press(self, intent: Intent) -> None:
        self.count += 1
        self.app.handle(intent)

    def keys(self, *kinds: str) -> None:
        for kind in kinds:
            self.press(Intent(kind))

    def header(self) -> Header:
        """The header the box stored for the game it plays."""
        assert self.app.session is not None
        return replay_text("\n".join(self.store.game(self.app.session.gid).header) + "\n").header


@pytest.fixture
def box(tmp_path: pathlib.Path) -> Iterator[Box]:
    made = Box(tmp_path)
    yield made
    made.store.close()


# --- the common set-up, in presses ---

#: Presses from Home to the first play screen with the roster's names and every default
#: (seats shuffled where the rules shuffle them, nobody handed to the companion), measured
#: before the set-up list: Microbot's two option questions then took one press more. Since
#: the players' menu opens on the count the rules are written for (issue 26 section 8:
#: Leaf-Climbers' 4), four Leaf-Climbers take two presses fewer and two take two more.
BEFORE = {("microbot-racers", 2): 6, ("leaf-climbers", 4): 9, ("leaf-climbers", 2): 9,
          ("penguin-panic", 3): 10, ("gleebs-and-grues", 2): 8, ("quick-lemmings", 3): 12}


@pytest.mark.parametrize(("game", "players"), list(BEFORE))
def test_the_common_set_up_takes_no_more_presses_than_before(box: Box, game: str, players: int) -> None:
    box.keys("select")  # New game
    menu = box.app.top
    assert isinstance(menu, Menu)
    box.keys(*["down"] * (list(GAMES).index(game) - menu.cursor), "select")
    if GAMES[game].min_players != GAMES[game].max_players:
        move = players - GAMES[game].min_players - box.app.top.cursor  # type: ignore[attr-defined]
        box.keys(*["down" if move > 0 else "up"] * abs(move), "select")
    while not isinstance(box.app.top, PlayScreen) and box.count < 30:
        box.keys("select")  # whatever each screen offers first
    assert box.count <= BEFORE[game, players]
    header = box.header()
    assert sorted(header.players) == ["Ann", "Bob", "Cat", "Dan", "Eve"][:players] and header.options == ()


# --- typing a name ---


def open_editor(box: Box) -> NameEditor:
    """New game > Microbot Racers > seat 1: New name (one press up from the first name)."""
    box.keys("select", "select", "up", "select")
    editor = box.app.top
    assert isinstance(editor, NameEditor)
    return editor


def test_a_name_is_typed_with_up_down_and_select_alone(box: Box) -> None:
    editor = open_editor(box)
    before = box.count
    box.driver.type_name("Zoe")
    # Z: down a row, in, one up round the row, select; o: in, two along; e: up a row, in,
    # four along; Done: up round to the last row, in (it starts on Done), select.
    assert box.count - before == 18
    assert box.app.top.title == "Seat 2 of 2: who?"  # type: ignore[union-attr]
    assert editor.typed == "Zoe"
    box.keys("select", "select")  # Ann for seat 2; Start game
    assert box.header().players == ("Zoe", "Ann")


def test_the_name_starts_in_capitals_and_goes_on_in_small_letters(box: Box) -> None:
    editor = open_editor(box)
    box.keys("select", "select")  # A
    assert editor.typed == "A" and editor.cursor.rows[0][0] == "a"
    box.keys("select", "select")  # a
    box.keys("down", "down", "select", "up", "select")  # the last row starts on Done: Del is one up
    assert editor.typed == "A"
    box.keys("select")  # Del again: nothing typed, capitals again
    assert editor.typed == "" and editor.cursor.rows[0][0] == "A"


def test_digits_and_the_marks_a_name_may_hold(box: Box) -> None:
    editor = open_editor(box)
    box.keys("up", "select", "down", "down", "select")  # the last row (on Done): 123
    assert editor.cursor.rows[:2] == (tuple("0123456789"), ("-", "_"))
    box.keys("down", "select", "down", "select")  # _
    box.app.handle(Intent("digit", 7))  # a digit key types its digit
    assert editor.typed == "_7"


def test_every_character_records_allow_and_no_other_can_be_typed(box: Box) -> None:
    editor = open_editor(box)
    keys = {key for keyset in ("ABC", "abc", "123") for row in
            type(editor.cursor)(keyset=keyset).rows[:2] for key in row}
    assert keys == set(NAME_LETTERS)


def test_a_name_has_twelve_letters_at_most(box: Box) -> None:
    editor = open_editor(box)
    for _ in range(MOST + 1):
        box.keys("select", "select")
    assert editor.typed == "A" + "a" * (MOST - 1) and editor.message == "12 letters at most"


def test_done_refuses_no_name_a_record_word_and_a_name_already_playing(box: Box) -> None:
    editor = open_editor(box)
    box.keys("up", "select", "select")  # Done at once
    assert box.app.top is editor and editor.message == "Type a letter first"
    box.keys("back")  # out of the key row
    box.driver.type_name("Ann")
    box.keys("up", "select")  # seat 2: New name
    with pytest.raises(DriverError, match="Ann is already seat 1"):
        box.driver.type_name("Ann")
    box.keys("back")  # out of the key row
    again = box.app.top
    assert isinstance(again, NameEditor) and again.typed == "Ann"
    box.keys("back", "back", "back")  # back on the rows: each back deletes a letter
    assert again.typed == ""
    box.keys("back")  # nothing typed: back to the seat
    assert isinstance(box.app.top, Menu)
    box.keys("up", "select")
    with pytest.raises(DriverError, match="table is a record word"):
        box.driver.type_name("table")


def test_the_long_press_is_back_in_the_editor(box: Box) -> None:
    editor = open_editor(box)
    box.keys("select", "select")
    box.keys("context")
    assert editor.typed == ""
    box.keys("context")
    assert isinstance(box.app.top, Menu)


# --- remembered names ---


def test_a_typed_name_is_remembered_in_the_settings_and_offered_next_time(tmp_path: pathlib.Path) -> None:
    box = Harness(tmp_path)
    driver = Driver(box.app, lambda intent: box.intent(intent.kind, intent.value))
    try:
        header = replay_text("game microbot-racers\nplayers Zoe Ann\n").header
        driver.new_game(header)
        assert json.loads(settings_path(tmp_path).read_text())["names"] == ["Zoe"]
        driver.leave_game()
        box.app.config = with_settings(Config(), tmp_path)[0]  # as `companion run` starts
        assert box.app.config.remembered == ("Zoe",)
        box.presses("down", "select", "select")  # New game (under Resume now) > Microbot Racers
        seat = box.app.top
        assert isinstance(seat, Menu)
        assert [item.label for item in seat.items] == ["New name", "Ann", "Bob", "Cat", "Dan", "Eve", "Zoe", "P1"]
    finally:
        box.close()


def test_remembered_names_are_bounded_the_least_recently_used_dropped() -> None:
    many = tuple(f"N{n}" for n in range(MOST_REMEMBERED))
    assert remembered_after(many, ["New"]) == ("New", *many[:-1])
    assert remembered_after(many, ["N5", "Ann"], roster=["Ann"]) == ("N5", *many[:5], *many[6:])
    assert len(remembered_after((), [f"M{n}" for n in range(20)])) == MOST_REMEMBERED


@pytest.mark.parametrize("names", [
    "not a list", ["Ann", "Ann"], ["a b"], ["table"], [7], ["x" * 13], [f"N{n}" for n in range(MOST_REMEMBERED + 1)],
])
def test_damaged_remembered_names_set_the_settings_file_aside(tmp_path: pathlib.Path, names: object) -> None:
    settings_path(tmp_path).write_text(json.dumps({"screen": {"dim_after": 30}, "names": names}))
    config, note = with_settings(Config(), tmp_path)
    assert config == Config() and "names" in note
    assert not settings_path(tmp_path).exists() and list(tmp_path.glob("settings.json.damaged-*"))


def test_a_settings_file_from_before_names_were_kept_is_read_as_it_is(tmp_path: pathlib.Path) -> None:
    settings_path(tmp_path).write_text(json.dumps({"screen": {"dim_after": 30}}))
    config, note = with_settings(Config(), tmp_path)
    assert note == "" and config.screen.dim_after == 30 and config.remembered == ()


# --- who starts ---


def to_setup(box: Box, game: str, players: int) -> Menu:
    """New game > the game > so many players from the roster: the set-up list."""
    box.driver.choose("New game")
    box.driver.choose(screen_title(game))
    box.driver.answer(Count(players))
    for seat, name in enumerate(("Ann", "Bob", "Cat", "Dan", "Eve")[:players], 1):
        box.driver.answer(Seat(seat, name))
    listed = box.app.top
    assert isinstance(listed, Menu) and listed.items[0].label == "Start game"
    return listed


def start_with_first(box: Box, game: str, players: int, choice: int) -> Header:
    """The set-up list's First (its second line), then a choice of who starts, then Start."""
    to_setup(box, game, players)
    box.keys("down", "select")
    assert box.app.top.title == "Who starts?"
    box.keys(*["down"] * choice, "select", "up", "select")
    return box.header()


def test_quick_lemmings_turns_the_seats_round_to_who_starts(box: Box) -> None:
    header = start_with_first(box, "quick-lemmings", 3, 2)  # First: Cat
    assert header.players == ("Cat", "Ann", "Bob")  # the order round the table kept


def test_gleebs_and_grues_writes_who_starts_as_its_option(box: Box) -> None:
    header = start_with_first(box, "gleebs-and-grues", 2, 1)  # First: Bob
    assert header.players == ("Ann", "Bob") and header.options == (("first", "Bob"),)


def test_a_random_first_player_is_picked_at_the_start_and_said(tmp_path: pathlib.Path) -> None:
    firsts = set()
    for seed in range(8):
        box = Box(tmp_path, seed=seed)
        header = start_with_first(box, "gleebs-and-grues", 2, 2)  # First: Random
        first = dict(header.options).get("first", header.players[0])
        assert box.app.top.message == f"{first} starts"
        firsts.add(first)
        box.store.close()
    assert firsts == {"Ann", "Bob"}


# --- options ---


def test_every_option_of_every_game_can_be_set_on_the_box() -> None:
    """A kit's conformance: an option is a few choices, says how the box asks it, or names
    who starts."""
    for game in GAMES.values():
        for key, spec in game.options.items():
            assert spec.choices or spec.ask is not None or key == game.starter, (game.id, key)
        assert game.starter in ("", FIRST_SEAT, *game.options), game.id


def open_deck(box: Box, players: int) -> CountsEntry:
    to_setup(box, "quick-lemmings", players)
    box.keys("down", "down", "down", "select")  # First, Lemmings, Deck
    entry = box.app.top
    assert isinstance(entry, CountsEntry)
    return entry


def test_a_deck_is_set_as_how_many_cards_of_each_value(box: Box) -> None:
    entry = open_deck(box, 2)
    assert entry.values == [2, 2, 3, 2, 2, 0, 0, 0, 0, 0]  # the standard deck
    box.keys("select", "select", "down", "select", *["select"] * 6, "up", "up", "select")  # two 2s, two 9s
    listed = box.app.top
    assert isinstance(listed, Menu) and listed.items[listed.cursor].hint == "12 cards"
    box.keys("up", "up", "up", "select")
    assert dict(box.header().options) == {"deck": "0,0,1,1,2,2,3,3,4,4,9,9"}


def test_a_deck_the_rules_refuse_is_said_and_stays_to_change(box: Box) -> None:
    entry = open_deck(box, 2)
    box.keys("select", "select", "down", "down", "down", *["select"] * 8)  # no 2
    again = box.app.top
    assert isinstance(again, CountsEntry) and again is not entry
    assert again.message == "the deck needs a 2 to start each terrain pile"
    assert again.values == [2, 2, 0, 2, 2, 0, 0, 0, 0, 0]  # as they were: one to change
    box.keys("select", "select", "up", *["select"] * 8)  # one 2
    listed = box.app.top
    assert isinstance(listed, Menu) and listed.items[listed.cursor].hint == "9 cards"


def test_a_deck_too_small_for_the_players_is_refused(box: Box) -> None:
    open_deck(box, 4)
    box.keys("down", "down", "select", "down", "down", "select", "down", "select")  # no 0s, no 1s, two 2s
    box.keys("down", "down", "select", "down", "down", "select", *["select"] * 5)  # no 3s, no 4s
    entry = box.app.top
    assert isinstance(entry, CountsEntry)
    assert entry.message == "4 players need 18 cards dealt; this deck leaves 5"


def test_a_deck_of_no_cards_is_refused(box: Box) -> None:
    open_deck(box, 2)
    box.keys("down", "down", "select", "down", "down", "select", "down", "down", "down", "select")
    box.keys("down", "down", "select", "down", "down", "select", *["select"] * 5)
    entry = box.app.top
    assert isinstance(entry, CountsEntry) and entry.message == "No cards: give some"


def test_colours_are_named_one_by_one_and_must_differ(box: Box) -> None:
    to_setup(box, "penguin-panic", 2)
    box.keys("down", "down", "select")  # Seats, Colours
    box.keys("select", "down", "down", "down", "down", "down", "select")  # colour 1: white
    box.keys("select", "down", "down", "down", "down", "down", "select")  # colour 2: white too
    box.keys("up", "up", "up", "select")  # Done
    page = box.app.top
    assert isinstance(page, Page) and " ".join(page.lines) == "the colour names must all differ"
    box.keys("select")  # read: back on the list
    box.keys("down", "down", "select", "up", "select")  # colour 2: a new name
    box.driver.type_name("Teal")
    box.keys("up", "up", "up", "select")  # Done
    box.keys("up", "up", "select")  # Start game
    assert dict(box.header().options) == {"colours": "white,Teal,green,blue,purple"}


# --- every legal header, generated ---


def random_name(rng: random.Random, taken: set[str]) -> str:
    while True:
        name = rng.choice([
            rng.choice(("Ann", "Bob", "Cat", "Dan", "Eve", "P1", "P3")),
            "".join(rng.choice(NAME_LETTERS) for _ in range(rng.randint(1, 12))),
            rng.choice(string.ascii_uppercase) + "".join(rng.choice(string.ascii_lowercase)
                                                         for _ in range(rng.randint(0, 7))),
        ])
        if name not in taken and name not in RESERVED_NAMES:
            taken.add(name)
            return name


def number_word(rng: random.Random, value: int) -> str:
    """A record number, now and then with leading zeros (legal, and not how the box writes it)."""
    return "0" * rng.choice((0, 0, 0, 1, 2)) + str(value)


def random_header(rng: random.Random) -> tuple[Game[object], list[str]]:
    """A legal header drawn over records.md's option space: any names, any seat count, each
    option given or not, in any order, with any of its values."""
    game = rng.choice(list(GAMES.values()))
    taken: set[str] = set()
    players = [random_name(rng, taken) for _ in range(rng.randint(game.min_players, game.max_players))]
    options: list[tuple[str, str]] = []
    for key in game.options:
        if rng.random() < 0.4:
            continue
        if game.id == "microbot-racers":
            value = number_word(rng, rng.randint(1, 9)) if key == "laps" else rng.choice(("easy", "hard"))
        elif key == "first":
            value = rng.choice(players)
        elif key == "colours":
            value = ",".join(random_name(rng, set()) if rng.random() < 0.5 else colour
                             for colour in rng.sample(("red", "yellow", "green", "blue", "purple", "white",
                                                       "pink", "Gold", "x-1", "grey_2"), 5))
            if len(set(value.split(","))) < 5:
                continue
        elif key == "lemmings":
            value = number_word(rng, rng.randint(1, 3))
        else:  # a deck: a 2, and enough cards for the deal
            deck = [2] + [rng.randint(0, 9) for _ in range(rng.randint(0, 14))]
            need = -(-sum(deal_sizes(len(players))) // 5) + 1  # cards a terrain: one starts its pile
            deck += [rng.randint(0, 9) for _ in range(max(0, need - len(deck)))]
            if rng.random() < 0.1:
                deck += [rng.randint(0, 9)] * rng.randint(10, MOST_OF_ONE - 20)
            rng.shuffle(deck)
            value = ",".join(number_word(rng, v) if rng.random() < 0.1 else str(v) for v in deck)
        options.append((key, value))
    rng.shuffle(options)
    lines = [f"game {game.id}", "players " + " ".join(players), *(f"option {k} {v}" for k, v in options)]
    return game, lines


def test_random_legal_headers_are_typed_by_the_driver(tmp_path: pathlib.Path) -> None:
    rng = random.Random(26)
    seen: set[tuple[str, str]] = set()
    for attempt in range(100):
        game, lines = random_header(rng)
        header = replay_text("\n".join(lines) + "\n").header  # legal, or the generator is wrong
        box = Box(tmp_path, seed=attempt)
        box.driver.new_game(header)
        stored = box.header()
        # The same game: the players in their seats, every option as the rules read it.
        assert stored.players == header.players, lines
        assert stored.start() == header.start(), lines
        # Written as the box writes a header: the game's options in its order, none at its
        # default, numbers without leading zeros, a deck in order (so such a record's stored
        # header differs in text from it, and replays to the same game).
        assert [k for k, _ in stored.options] == [k for k in game.options if k in dict(stored.options)]
        for key, value in stored.options:
            spec = game.options[key]
            assert spec.parse(value) != spec.parse(spec.default or stored.players[0])
            parsed = spec.parse(value)
            assert value == (",".join(map(str, parsed)) if isinstance(parsed, tuple) else str(parsed)), (key, value)
        seen.update((game.id, key) for key, _ in header.options)
        box.store.close()
    assert seen >= {(g.id, k) for g in GAMES.values() for k in g.options}  # every option was given


# --- every new screen, in every state, at its longest ---

LONGEST = ("WWWWWWWWWWWW", "Mmmmmmmmmmmj", "gggggggggggg", "_-_-_-_-_-_-", "QQQQQQQQQQQQ")


def faults_of(app: App) -> list[str]:
    with recording() as drawn:
        image = app.frame()
    return layout_faults(image, tuple(drawn)) + python_in(tuple(drawn))


def test_the_name_editor_is_whole_and_clear_in_every_state(box: Box) -> None:
    editor = open_editor(box)
    found: set[str] = set()
    for typed in ("", LONGEST[0][:-1], LONGEST[0]):  # every key at hand, on its row or lit
        for keyset in ("ABC", "abc", "123"):
            for row, keys in enumerate(Cursor(keyset=keyset).rows):
                for col in range(len(keys)):
                    cols = [0, 0, 3]
                    cols[row] = col
                    for picking in (False, True):
                        editor.typed = typed
                        editor.cursor = Cursor(keyset, row, (cols[0], cols[1], cols[2]), picking)
                        found.update(faults_of(box.app))
    for typed in ("", "W", *LONGEST):  # every message, over every row
        for row in range(3):
            for message in ("Type a letter first", f"{MOST} letters at most",
                            f"{LONGEST[0]} is already seat 5", f"{LONGEST[0]} is a record word"):
                editor.typed, editor.message = typed, message
                editor.cursor = Cursor(row=row, picking=True)
                found.update(faults_of(box.app))
    assert not found, sorted(found)[:10]


def test_the_set_up_screens_are_whole_and_clear_with_the_longest_names_and_values(tmp_path: pathlib.Path) -> None:
    found: set[str] = set()
    box = Box(tmp_path, Config(roster=LONGEST))
    for game_id, game in GAMES.items():
        setup = NewGame(box.app, game_id)
        setup.count_wanted = game.max_players
        box.app.home.new_game()
        setup.ask_name()
        found.update(faults_of(box.app))
        setup.names = list(LONGEST[:game.max_players])
        setup.first = LONGEST[1] if game.starter else ""
        setup.companion = LONGEST[0] if advisor(game_id) else ""
        for key, spec in game.options.items():
            if spec.choices:
                setup.values[key] = spec.choices[-1]
        if "colours" in game.options:  # none of them a player's name (a name may be shortened)
            setup.values["colours"] = ",".join(f"{name[:-1]}{seat}" for seat, name in enumerate(LONGEST))
        if "deck" in game.options:
            setup.values["deck"] = ",".join(str(v % 10) for v in range(990))
        setup.show_setup()
        listed = box.app.top
        assert isinstance(listed, Menu)
        for row, item in enumerate(listed.items):
            listed.cursor = row
            found.update(faults_of(box.app))
            if item.answer == START:
                continue
            item.run()  # its question, at its longest
            for step in range(12):
                top = box.app.top
                if isinstance(top, Menu):
                    top.cursor = min(step, len(top.items) - 1)
                elif isinstance(top, CountsEntry):
                    top.at = step % len(top.numbers)
                    top.message = "4 players need 18 cards dealt; this deck leaves 15" if step % 2 else ""
                found.update(faults_of(box.app))
            while box.app.top is not listed:
                box.app.pop()
        del box.app.stack[1:]
    box.store.close()
    assert not found, sorted(found)[:10]

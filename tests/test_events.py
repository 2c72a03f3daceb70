"""Every result in words: after each confirmed entry each game says what happened, built
from the change of state by a pure function beside its rules (its kit's ``events``), after
the end screen's words when the entry ended the game, and the play screen shows it in one
banner (two lines at most) until the next press or for about 2 s.
"""

from __future__ import annotations

import pathlib
import random

import pytest

from companion.games import GAMES, results
from companion.games.base import Line, usable
from companion.record import Header, replay_text
from companion.session import Session
from companion.ui.draw import WIDTH, length
from companion.ui.driver import Driver
from companion.ui.play import RESULT_SECONDS, PlayScreen, result_line
from companion.ui.rows import result_rows
from companion.ui.widgets import Numbers
from tests.entries import with_states
from tests.harness import Harness
from tests.playout import answer

GOLDEN = pathlib.Path(__file__).parent / "golden"
RECORDS = [p for p in sorted(GOLDEN.glob("*/*.record")) if p.with_suffix(".json").exists()]
NOT_WORDS = ("{", "[", "None", "True", "False", "()")


def told(record: str) -> list[tuple[str, ...]]:
    """The events of each action line of a record, each line logged as its own entry."""
    replayed = replay_text(record)
    game = replayed.header.game
    state = replayed.header.start()
    out = []
    for line in replayed.actions:
        after = game.apply(state, line)
        out.append(results(game, state, after, [line]))
        state = after
    return out


def last(record: str) -> tuple[str, ...]:
    return told(record)[-1]


def shows_result(box: Harness, words: str) -> bool:
    """Whether the result banner on screen says ``words``, row by row, at its type size."""
    size, rows = result_rows(words)
    # (a row's trailing comma reaches into the next row's line space: matched without it)
    return all(box.shows(row.rstrip(",;"), size) for row in rows)


def fits(words: str) -> bool:
    size, rows = result_rows(words)
    return len(rows) <= 2 and all(length(row, size) <= WIDTH - 4 for row in rows)


# --- every game, every entry ---


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_entry_of_a_golden_game_is_told_in_plain_words_that_fit(path: pathlib.Path) -> None:
    replayed = replay_text(path.read_text())
    game = replayed.header.game
    for before, after, entry in with_states(replayed):
        events = results(game, before, after, entry.lines)
        assert events, entry.lines
        for event in events:
            assert event and not any(bad in event for bad in NOT_WORDS), event
            assert fits(event), event  # the most important one always shows whole
        shown = result_line(events)
        assert fits(shown) and shown.lower().startswith(events[0].lower())


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_the_end_is_told_once_in_the_end_screens_words(path: pathlib.Path) -> None:
    """The entry that ends a game says who won first, as the end screen does, and nothing
    else, before or after, says it again (a game's words tell the moves, not the end)."""
    replayed = replay_text(path.read_text())
    game = replayed.header.game
    for before, after, entry in with_states(replayed):
        events = results(game, before, after, entry.lines)
        outcome = game.outcome(after)
        ended = outcome is not None and not game.over(before)
        if ended:
            assert outcome is not None and events[0] == outcome.headline()
        said_again = [e for e in events[ended:] if e.lower().endswith(("win!", "wins!"))]
        assert not said_again, entry.lines


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_any_legal_entry_is_told(game_id: str) -> None:
    game = GAMES[game_id]
    players = ("Ann", "Bob", "Cat")[:max(2, min(3, game.max_players))]
    for seed in range(4):
        rng = random.Random(seed)
        state = Header(game, players).start()
        for _ in range(300):
            ask = game.prompt(state)
            if ask is None or not (ask.answers or usable(ask.extras)):
                break
            line = answer(game, state, ask, rng)
            after = game.apply(state, line)
            assert all(fits(e) for e in results(game, state, after, [line])), line
            state = after


# --- each kind of event, per game ---

MICROBOT = """game microbot-racers
players Ann Bob
option side hard
table roll 3 5
Ann pick move-3
Bob pick move-2
Bob pick repair
Ann pick jump-2
Ann pick drift-left
Bob pass
Bob do repair pit
Ann do move-3
"""


def test_microbot_tells_rolls_checks_damage_and_the_end() -> None:
    events = told(MICROBOT)
    assert events[0] == ("Ann is P1: Ann 3, Bob 5",)
    assert events[1] == ("Ann picks move-3",)
    assert events[6] == ("Bob passes", "Bob acts first")
    assert events[7] == ("Bob pit stop: health 6",)
    assert events[8] == ("Ann does move-3",)
    race = MICROBOT + "Ann hazard\n"
    assert last(race) == ("Ann: hazard, 1-5 is safe",)
    assert last(race + "Ann roll 6\n") == ("Ann 6: hazard failed, health 5",)
    assert last(race + "Ann roll 2\n") == ("Ann 2: hazard passed",)
    switched = MICROBOT + "Ann switch\n"
    assert last(switched) == ("Ann hit a switch: the track changes",)
    assert last(switched + "Bob hazard\n") == ("Bob: on a puddle, 1-5 is safe",)
    assert last(switched + "Bob hazard\nBob roll 6\n") == ("Bob 6: puddle failed, health 5",)
    assert last(switched + "Bob hazard\nBob roll 1\n") == ("Bob 1: puddle passed",)
    assert last(MICROBOT + "Ann lap\n") == ("Ann: lap 1 of 3",)
    bob = race + "Ann roll 2\nBob do move-2\n"
    assert last(bob + "Bob impact robot\n") == ("Bob hit Ann: health 5 and 5",)
    assert last(bob + "Bob impact block\n") == ("Bob hit a block: health 5",)
    jump = bob + "Ann do jump-2\n"
    assert last(jump) == ("Ann jumps: 1-4 lands",)
    assert last(jump + "Ann roll 1\n") == ("Ann 1: jump landed",)
    assert last(jump + "Ann roll 5\n") == ("Ann 5: jump failed, health 5", "drift-left forfeited",
                                           "turn 1 over")


def test_microbot_tells_ties_privileges_and_every_ending() -> None:
    game = GAMES["microbot-racers"]
    start = "game microbot-racers\nplayers Ann Bob\noption laps 1\n"
    assert last(start + "table roll 4 4\n") == ("a tie: Ann 4, Bob 4, roll again",)
    s = replay_text(start).state
    ties = [Line.parse("table roll 4 4"), Line.parse("table roll 2 1")]
    after = game.apply(game.apply(s, ties[0]), ties[1])
    assert results(game, s, after, ties) == ("Bob is P1: Ann 2, Bob 1", "after a tie")
    assert last(start + "Ann first\n") == ("Ann is P1 (privilege used)",)
    assert last(start + "Ann first\nBob first\n") == ("both took P1: both lose it, roll",)
    lap = start + "table roll 1 2\nAnn pick move-1\nBob pick move-2\nBob pass\nAnn pass\nAnn pass\nBob pass\n"
    assert last(lap + "Bob do move-2\nBob lap\n") == ("Bob wins!", "Bob: lap 1 of 1")
    golden = {e for path in GOLDEN.glob("microbot-racers/*.record") if path.with_suffix(".json").exists()
              for events in told(path.read_text()) for e in events}
    assert {"Ann wins!", "Both robots wrecked!", "repair forfeited"} <= golden


LEAVES = """game leaf-climbers
players Ann Bob Cat
table drop 2
table leaf 3 3
"""


def test_leaf_climbers_tells_the_drop_the_leaves_moves_crushes_and_the_end() -> None:
    events = told(LEAVES + "table leaf 6 6\nAnn roll 3\nAnn move 2 1\nBob roll 1\nBob stay\n")
    assert events[0] == ("d20 2",)
    assert events[1] == ("leaf on c3 r3",)  # the next question says how many are to come
    assert events[2][0] == "leaf on c6 r6"
    assert "Bob under a leaf" in events[2]  # Bob starts on c6 r6
    assert events[3] == ("Ann rolled 3",)  # the next question says the points
    assert events[4] == ("Ann to c2 r1",)
    assert events[5] == ("Bob rolled 1",)
    assert events[6] == ("Bob stays on c6 r6",)
    crushed = told(LEAVES + "table leaf 6 6\nAnn roll 1\nAnn stay\nBob roll 1\nBob stay\nCat roll 1\nCat stay\n")
    assert crushed[-1][:2] == ("Cat stays on c1 r6", "leaves land: 2 squares rise") or \
        "Bob crushed at c6 r6" in crushed[-1]
    assert crushed[-1][0] == "Bob crushed at c6 r6"
    golden = {e for path in GOLDEN.glob("leaf-climbers/*.record") if path.with_suffix(".json").exists()
              for events in told(path.read_text()) for e in events}
    assert {"Cat crushed at c4 r6", "Bob wins!", "Everyone crushed!"} <= golden


def test_a_device_drop_of_many_leaves_is_counted_not_listed() -> None:
    game = GAMES["leaf-climbers"]
    replayed = replay_text((GOLDEN / "leaf-climbers/all-blue-four.record").read_text())
    before, after, entry = with_states(replayed)[9]
    assert len(entry.lines) == 18
    assert results(game, before, after, entry.lines)[:2] == ("d20 17", "17 leaves fall")


PENGUINS = (GOLDEN / "penguin-panic/two-players-full.record").read_text()


def test_penguin_panic_tells_fish_escapes_dice_and_the_end() -> None:
    events = [e for each in told(PENGUINS) for e in each]
    for event in ("round 1: 12 in line, bag 28", "Ann: space 7, die for 2", "Bob: space 4, -4 fish (1)",
                  "order Bob, Ann", "Bob bribes bear 2", "Bob 2 6", "Bob +1 fish (2)",
                  "circle 2: red escapes to Bob", "Ann buys a die: -2 fish (3)",
                  "Bob 6 6: all sixes, again", "circle 4: a blue is out", "Bob swaps two penguins",
                  "Ann +3 fish (7)", "line empty: new round"):
        assert event in events
    assert sum(e.endswith(" wins!") for e in events) == 1


def test_penguin_panic_tells_a_place_with_no_fish_and_an_extended_line() -> None:
    golden = {e for path in GOLDEN.glob("penguin-panic/*.record") if path.with_suffix(".json").exists()
              for events in told(path.read_text()) for e in events}
    assert "Ann: no fish (4)" in golden
    assert "Ann adds 5 to the line" in golden


GLEEBS = (GOLDEN / "gleebs-and-grues/spec-played-out.record").read_text()


def test_gleebs_tells_grues_placements_stacks_meals_pins_and_the_end() -> None:
    events = [e for each in told(GLEEBS) for e in each]
    for event in ("K1 b2, K2 c3, K3 d4", "Ann: B1 on a1", "all placed: moves begin",
                  "Ann: B1 onto G1 at a2", "K2 eats G2 at c4", "K3 eats Y3 at d1"):
        assert event in events
    golden = {e for path in GOLDEN.glob("gleebs-and-grues/*.record") if path.with_suffix(".json").exists()
              for each in told(path.read_text()) for e in each}
    assert any(e.startswith("K") and " pins " in e for e in golden)
    assert "The grues win!" in golden
    ended = [each for path in GOLDEN.glob("gleebs-and-grues/*.record") if path.with_suffix(".json").exists()
             for each in told(path.read_text()) if "Bob has no stack" in each]
    assert ended and all(each[0] == "Ann wins!" for each in ended)
    assert any(e.startswith("no move: skip to") for e in golden)


LEMMINGS = "game quick-lemmings\nplayers Ann Bob Cat\n"


def test_quick_lemmings_tells_piles_points_tiles_refills_and_lemmings_home() -> None:
    events = told(LEMMINGS + "Ann play forest 1\nBob play swamp 3\nCat refill 1\nAnn finish\n")
    assert events[0] == ("Ann forest 1: 3 points",)
    assert events[1] == ("Bob swamp 3: 3 points, new pile", "lay a swamp tile")
    assert events[2] == ("Cat refills: 6 cards",)
    assert events[3] == ("Ann's lemming home: 1/2",)
    assert last(LEMMINGS + "Ann finish\nAnn finish\n") == ("Ann wins!", "Ann's lemming home: 2/2")
    golden = {e for path in GOLDEN.glob("quick-lemmings/*.record") if path.with_suffix(".json").exists()
              for each in told(path.read_text()) for e in each}
    assert {"lay a meadow tile", "no tile left to lay", "discards shuffled into the draw pile"} <= golden


# --- on the screen ---


def test_the_result_shows_after_the_entry_and_goes_after_about_two_seconds(tmp_path: pathlib.Path) -> None:
    box = Harness(tmp_path)
    driver = Driver(box.app, lambda intent: box.intent(intent.kind, intent.value))
    driver.new_game(Header(GAMES["microbot-racers"], ("Ann", "Bob")))
    driver.line(Line.parse("table roll 3 5"))  # faces typed in
    session = box.app.session
    assert session is not None and session.head == 1
    assert shows_result(box, "Ann is P1: Ann 3, Bob 5")
    deadline = box.daemon.deadline()
    assert deadline is not None and deadline - box.now <= RESULT_SECONDS  # the loop will wake
    box.wait(RESULT_SECONDS + 0.5)
    assert not shows_result(box, "Ann is P1: Ann 3, Bob 5")
    assert box.shows("Ann: pick 1 of 3", 11)  # the question was in view all along
    box.close()


def test_the_result_goes_on_time_under_numbers_being_entered(tmp_path: pathlib.Path) -> None:
    """Numbers keep the play screen's panel in view, and with it the result over it: it
    goes after its 2 s there too, not when the numbers are done."""
    box = Harness(tmp_path)
    open_at(box, MICROBOT)
    Driver(box.app, lambda intent: box.intent(intent.kind, intent.value)).line(Line.parse("Ann hazard"))
    screen = box.app.top
    assert isinstance(screen, PlayScreen) and screen.result
    told = screen.result
    assert shows_result(box, told)
    while not box.shows("Enter faces"):
        box.press("down")
    box.press("select")  # Ann's die, entered under the panel
    assert isinstance(box.app.top, Numbers) and shows_result(box, told)
    box.wait(RESULT_SECONDS + 0.5)
    assert isinstance(box.app.top, Numbers) and not shows_result(box, told)
    box.close()


def undo_on_the_box(box: Harness) -> None:
    box.long_press()
    box.presses("down", "select")  # the game menu's line under "Back to the game": Undo


def open_at(box: Harness, record: str) -> None:
    """Store the record's lines as entries and open the game on the box."""
    replayed = replay_text(record)
    session = Session.new(box.store, replayed.header)
    for line in replayed.actions:
        session.play([line])
    box.app.open(session.gid)


def test_a_press_leaves_the_result_its_time_and_an_undo_takes_it_away(tmp_path: pathlib.Path) -> None:
    box = Harness(tmp_path)
    open_at(box, MICROBOT + "Ann hazard\nAnn roll 2\nBob do move-2\n")
    screen = box.app.top
    assert isinstance(screen, PlayScreen)
    screen.check(Line.parse("Bob impact robot"))  # as if chosen on the screen
    box.daemon.refresh()
    assert screen.result == "Bob hit Ann: health 5 and 5"
    box.press("down")  # looking through the answers: the result stays its 2 s
    assert shows_result(box, "Bob hit Ann: health 5 and 5")
    undo_on_the_box(box)
    assert screen.result == "" and box.shows("Undone: Bob impact", 11)
    box.close()


def test_a_failed_check_is_said_in_words_not_only_by_a_hollow_pip(tmp_path: pathlib.Path) -> None:
    box = Harness(tmp_path)
    open_at(box, MICROBOT + "Ann hazard\n")
    Driver(box.app, lambda intent: box.intent(intent.kind, intent.value)).line(Line.parse("Ann roll 6"))
    assert box.app.session is not None and box.app.session.summary()["health"]["Ann"] == 5
    assert shows_result(box, "Ann 6: hazard failed, health 5")
    box.close()


def test_an_entry_from_a_serial_line_is_told_too(tmp_path: pathlib.Path) -> None:
    box = Harness(tmp_path)
    open_at(box, "game quick-lemmings\nplayers Ann Bob\n")
    box.daemon.console.line(b"Ann play water 4")
    screen = box.app.top
    assert isinstance(screen, PlayScreen)
    assert screen.result.startswith("Ann water 4: 4 points, new pile")  # as much as fits
    box.close()


FORFEIT = """game microbot-racers
players Ann Bob
option side hard
table roll 1 2
Ann pick move-1
Bob pick move-2
Bob pass
Ann pick turn-left
Ann pick jump-2
Bob pass
Bob do move-2
Ann do move-1
"""


def test_microbot_tells_the_forfeit_in_the_entry_that_caused_it() -> None:
    # the news first: the banner has room for it
    assert last(FORFEIT + "Ann do turn-left\n") == ("jump-2 forfeited: no run-up", "Ann does turn-left",
                                                     "turn 1 over")
    assert result_line(last(FORFEIT + "Ann do turn-left\n")).startswith("Jump-2 forfeited: no run-up")
    # a repair keeps the run-up: nothing is lost
    repaired = FORFEIT.replace("turn-left", "repair") + "Ann do repair\n"
    assert last(repaired) == ("Ann repairs: health 6",)
    # another player's pick, lost at the last pick (no move yet in the race)
    start = ("game microbot-racers\nplayers Ann Bob\noption side hard\ntable roll 1 2\nAnn pick jump-2\n"
             "Bob pick move-1\nBob pass\nAnn pass\nAnn pass\nBob pass\n")
    assert last(start) == ("Ann's jump-2 forfeited: no run-up", "Bob passes", "Bob acts first")


def test_penguin_panic_tells_which_way_all_sixes_with_ability_1_went() -> None:
    wild = ("game penguin-panic\nplayers Ann Bob Cat\ntable line\nAnn ability 7\nBob ability 1\n"
            "Cat ability 6\nBob bribe 1\nCat bribe 2\nAnn bribe 3\nBob roll 6 6\n")
    assert last(wild) == ("Bob 6 6: place or roll",)
    assert last(wild + "Bob place 3 1 0\n") == ("Bob placed on the 6s: circle 3", "Bob: no fish (0)")
    assert last(wild + "Bob roll 2 4\n") == ("Bob rolls all again: 2 4",)
    assert last(wild + "Bob roll 6 6\n") == ("Bob rolls all again: 6 6: place or roll",)
    forced = "game penguin-panic\nplayers Ann Bob\n" + "\n".join(
        ["table line", "Ann ability 7", "Bob ability 6", "Bob bribe 1", "Ann bribe 2", "Bob bribe 3",
         "Ann bribe 4", "Bob roll 6 6 6"]) + "\n"
    assert last(forced) == ("Bob 6 6 6: all sixes, again",)
    assert last(forced + "Bob roll 1 2 3\n") == ("Bob 1 2 3",)  # no choice: the dice were rolled again

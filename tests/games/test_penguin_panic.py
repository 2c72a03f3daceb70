"""Penguin Panic (RULES.md section 2, records.md ``penguin-panic``): each rule as players
see it, illegal lines with their error class, and the penguin-count invariant."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.dice import device_roll
from companion.games.base import (
    BadArguments,
    Choice,
    Form,
    GameOver,
    Line,
    NotYourTurn,
    Outcome,
    Roll,
    UnknownVerb,
)
from companion.games.frozen import replace
from companion.games.penguin_panic import (
    SET_POINTS,
    AbilityUsed,
    AlreadyBought,
    AlreadyPlaced,
    AlreadyRolled,
    BadGroup,
    BagShort,
    BearTaken,
    CircleDone,
    CircleNotRolled,
    LineEmpty,
    NoSuchColour,
    NotPlaced,
    NotRolled,
    NotYourAbility,
    OutOfOrder,
    OutOfStep,
    PenguinPanic,
    RerollNeeded,
    SpaceTaken,
    State,
    Termination,
    TooFewFish,
    TooLateToBuy,
    TooManyRemoved,
    WrongDice,
    parse_colours,
    set_score,
)
from tests.games.records import Records
from tests.games.scenarios import ROUND_2P, WILD, penguins, placements, whole_game
from tests.playout import playout

GAME = PenguinPanic()
NAMES = ("Ann", "Bob", "Cat", "Dan", "Eve")
SUMMARY_KEYS = {"round", "fish", "abilities", "order", "bribes", "bag", "line", "board", "gone",
                "escaped", "scores"}

#: Round 1 of a three-player game: everyone takes the free space; Cat (5) goes first.
ROUND_3P = ("table line", "Ann ability 7", "Bob ability 6", "Cat ability 5",
            "Cat bribe 1", "Bob bribe 2", "Ann bribe 3")


BOOK = Records("penguin-panic")
record, replay, refused = BOOK.record, BOOK.replay, BOOK.refused


def state_after(*lines: str, **header: Any) -> State:
    """The state the record replays to."""
    state: State = BOOK.state_after(*lines, **header)
    return state


# --- setup ---


def test_start_five_fish_each_bag_40_board_10() -> None:  # [S]
    start = replay(players="Ann Bob Cat")
    assert start["fish"] == {"Ann": 5, "Bob": 5, "Cat": 5}
    assert (start["bag"], start["line"], start["board"], start["gone"]) == (40, 0, 10, 0)
    assert start["round"] == 1 and start["next"] == "table"


def test_fifty_penguins_ten_of_each_colour() -> None:  # [D]
    assert penguins(replay()) == 50


def test_turn_order_is_random_at_setup() -> None:  # [S]
    assert PenguinPanic.random_seats


def test_default_colours_and_colour_option() -> None:  # [D] option
    assert GAME.option_values({})["colours"] == ("red", "yellow", "green", "blue", "purple")
    lines = [*ROUND_2P, "Bob roll 1 2 3", "Bob place 1 2 0", "Bob complete 1 ink 3"]
    got = replay(*lines, options=("colours a,b,c,ink,e",))
    assert got["escaped"]["Bob"] == {"ink": 1}


@pytest.mark.parametrize("value", ["a,b,c,d", "a,b,c,d,e,f", "a,b,c,d,a", "a,b,c,d,e!", "a,b,,d,e"])
def test_bad_colour_options_are_refused(value: str) -> None:
    with pytest.raises(ValueError):
        parse_colours(value)


def test_two_to_five_players() -> None:  # [S]
    assert (GAME.min_players, GAME.max_players) == (2, 5)


# --- the line ---


def test_line_draws_twelve_from_the_bag() -> None:  # [S]
    got = replay("table line")
    assert (got["bag"], got["line"], got["round"]) == (28, 12, 1)
    assert got["next"] == "Ann"


def test_line_only_when_the_last_one_is_empty() -> None:
    refused(OutOfStep, "table line", "table line")
    refused(NotYourTurn, "Ann line")


def test_round_counter_counts_lines() -> None:
    lines = [*ROUND_2P, *placements(("Bob", "Ann"), 12, {"Bob": 3})]
    assert replay(*lines)["round"] == 1
    assert replay(*lines, "table line")["round"] == 2


# --- bribe phase ---


def test_highest_empty_space_is_free() -> None:  # [S]
    got = replay("table line", "Ann ability 7", "Bob ability 6", players="Ann Bob Cat")
    assert got["fish"] == {"Ann": 5, "Bob": 5, "Cat": 5}


def test_each_skipped_space_costs_one_fish() -> None:  # [S]
    got = replay("table line", "Ann ability 5", "Bob ability 3", players="Ann Bob Cat")
    assert got["fish"] == {"Ann": 3, "Bob": 2, "Cat": 5}  # Bob skips 7, 6 and 4: 3 fish


def test_two_players_skipping_costs_two_fish() -> None:  # [S]
    got = replay("table line", "Ann ability 7", "Bob ability 4")
    assert got["fish"] == {"Ann": 5, "Bob": 1}


def test_cannot_pay_more_fish_than_you_have() -> None:  # [D]
    refused(TooFewFish, "table line", "Ann ability 7", "Bob ability 3")  # 6 fish
    ask = GAME.prompt(state_after("table line", "Ann ability 7"))
    assert ask is not None
    assert [c.line.args[0] for c in ask.answers if isinstance(c, Choice)] == ["6", "5", "4"]


def test_ability_choices_show_the_cost() -> None:
    ask = GAME.prompt(state_after("table line", "Ann ability 7"))
    assert ask is not None and ask.actor == "Bob" and ask.topic == "bribe"
    hints = {c.line.args[0]: c.hint for c in ask.answers if isinstance(c, Choice)}
    assert hints == {"4": "4 fish", "5": "2 fish", "6": "free"}
    assert ask.question == "Bob: ability? 5 fish"


def test_bribe_phase_summary_has_each_spaces_cost_for_the_chooser() -> None:
    assert replay("table line", "Ann ability 5", players="Ann Bob Cat")["costs"] == [
        5, 4, 3, 2, None, 1, 0]  # space 1 skips 7, 6, 4, 3 and 2
    assert replay(*ROUND_3P, players="Ann Bob Cat")["costs"] == []


def test_a_paid_space_is_confirmed_with_its_price_a_free_one_is_not() -> None:
    state = state_after("table line", "Ann ability 7")
    assert GAME.preview(state, Line.parse("Bob ability 6")) == ""
    assert GAME.preview(state, Line.parse("Bob ability 4")) == (
        "Space 4, swap two: pay 4 fish, keep 1. -1 on every gain.")


def test_ability_space_taken_or_out_of_turn() -> None:
    refused(SpaceTaken, "table line", "Ann ability 7", "Bob ability 7")
    refused(NotYourTurn, "table line", "Bob ability 7")
    refused(BadArguments, "table line", "Ann ability 8")
    refused(OutOfStep, "Ann ability 7")


def test_new_turn_order_by_ascending_space() -> None:  # [S]
    lines = ("table line", "Ann ability 7", "Bob ability 6")
    assert replay(*lines, players="Ann Bob Cat")["order"] == ["Ann", "Bob", "Cat"]
    got = replay(*lines, "Cat ability 1", players="Ann Bob Cat")
    assert got["order"] == ["Cat", "Bob", "Ann"]
    assert got["abilities"] == {"Ann": 7, "Bob": 6, "Cat": 1}
    assert got["next"] == "Cat"


def test_bribes_in_the_new_order_one_disk_a_bear() -> None:  # [S]
    lines = ROUND_3P[:5]
    refused(NotYourTurn, *lines, "Ann bribe 2", players="Ann Bob Cat")
    refused(BearTaken, *lines, "Bob bribe 1", players="Ann Bob Cat")
    got = replay(*ROUND_3P, players="Ann Bob Cat")
    assert got["bribes"] == {"Ann": [3], "Bob": [2], "Cat": [1]}
    assert got["next"] == "Cat"  # one pass with three players, then the turns


def test_two_players_bribe_twice_each() -> None:  # [S]
    got = replay(*ROUND_2P[:6])
    assert got["next"] == "Ann"
    assert replay(*ROUND_2P)["bribes"] == {"Ann": [2, 4], "Bob": [1, 3]}


def test_bribe_choices_are_free_bears() -> None:
    ask = GAME.prompt(state_after(*ROUND_2P[:5]))
    assert ask is not None
    assert [c.line.args for c in ask.answers if isinstance(c, Choice)] == [("3",), ("4",), ("5",)]


def test_bribes_only_after_every_ability() -> None:
    refused(OutOfStep, "table line", "Ann bribe 1")


def test_new_line_clears_abilities_and_bribes() -> None:
    lines = [*ROUND_2P, *placements(("Bob", "Ann"), 12, {"Bob": 3}), "table line"]
    got = replay(*lines)
    assert (got["abilities"], got["bribes"]) == ({}, {"Ann": [], "Bob": []})
    assert got["order"] == ["Bob", "Ann"] and got["next"] == "Bob"


# --- dice ---


def test_two_dice_three_with_ability_6() -> None:  # [S]
    assert replay(*ROUND_2P, "Bob roll 1 2 3")["next"] == "Bob"
    refused(WrongDice, *ROUND_2P, "Bob roll 1 2")
    refused(WrongDice, *ROUND_2P, "Bob roll 1 2 3", "Bob place 1 1 0", "Ann roll 1 2 3")


def test_extra_die_costs_three_fish() -> None:  # [S]
    got = replay(*ROUND_2P, "Bob buy", "Bob roll 1 2 3 4")  # 3 + 1: the most dice there are
    assert got["fish"]["Bob"] == 2


def test_extra_die_costs_two_with_ability_7() -> None:  # [S]
    got = replay(*ROUND_2P, "Bob roll 1 2 3", "Bob place 1 1 0", "Ann buy", "Ann roll 1 2 3")
    assert got["fish"]["Ann"] == 3


def test_one_extra_die_and_only_before_rolling() -> None:  # [S]
    refused(AlreadyBought, *ROUND_2P, "Bob buy", "Bob buy")
    refused(TooLateToBuy, *ROUND_2P, "Bob roll 1 2 3", "Bob buy")
    refused(TooLateToBuy, *ROUND_2P, "Bob roll 6 6 6", "Bob buy")  # not even after all sixes


def test_extra_die_must_be_affordable() -> None:  # [D]
    lines = ("table line", "Ann ability 7", "Bob ability 4", "Bob bribe 1", "Ann bribe 2",
             "Bob bribe 3", "Ann bribe 4")  # Bob has 1 fish left
    refused(TooFewFish, *lines, "Bob buy")
    ask = GAME.prompt(state_after(*lines))
    assert ask is not None and not any(e.line.verb == "buy" for e in ask.extras if isinstance(e, Choice))


def test_buy_offered_before_the_first_roll_only() -> None:
    def buys(*lines: str) -> list[str]:
        ask = GAME.prompt(state_after(*lines))
        assert ask is not None
        return [str(e.line) for e in ask.answers if isinstance(e, Choice) and e.line.verb == "buy"]

    assert buys(*ROUND_2P) == ["Bob buy"]
    assert buys(*ROUND_2P, "Bob buy") == []
    assert buys(*ROUND_2P, "Bob roll 6 6 6") == []
    assert buys(*ROUND_2P, "Bob roll 1 2 3", "Bob place 1 1 0") == ["Ann buy"]


def test_buy_a_die_is_asked_first_then_the_roll() -> None:
    ask = GAME.prompt(state_after(*ROUND_2P))
    assert ask is not None and ask.question == "Bob: buy a die?" and ask.actor == "Bob"
    buy, roll = ask.answers
    assert isinstance(buy, Choice) and buy.hint == "3 fish" and isinstance(roll, Roll)
    ask = GAME.prompt(state_after(*ROUND_2P, "Bob buy"))
    assert ask is not None and ask.question == "Bob: roll 4 dice"
    assert replay(*ROUND_2P)["next"] == "Bob"  # the optional buy changes no one's turn


def test_roll_prompt_has_the_right_number_of_dice() -> None:
    ask = GAME.prompt(state_after(*ROUND_2P, "Bob buy"))
    assert ask is not None
    roll = ask.answers[0]
    assert isinstance(roll, Roll) and roll.sides == (6, 6, 6, 6) and roll.actor == "Bob"


def test_all_sixes_are_rolled_again() -> None:  # [S]
    lines = (*ROUND_2P, "Bob roll 6 6 6")
    assert replay(*lines)["next"] == "Bob"
    assert replay(*lines, "Bob roll 6 6 2", "Bob place 2 1 0")["line"] == 11


def test_all_sixes_without_ability_1_must_be_rolled_again() -> None:  # [S]: no die names a circle
    refused(RerollNeeded, *ROUND_2P, "Bob roll 6 6 6", "Bob place 1 1 0")
    ask = GAME.prompt(state_after(*ROUND_2P, "Bob roll 6 6 6"))
    assert ask is not None and len(ask.answers) == 1 and isinstance(ask.answers[0], Roll)
    assert ask.question == "Bob: all 6, roll again"


THREE = {"players": "Ann Bob Cat"}


def test_all_sixes_with_ability_1_place_in_any_circle_or_roll_all_again() -> None:  # [S]
    sixes = (*WILD, "Bob roll 6 6")  # Bob holds ability 1
    for circle in range(1, 6):
        got = replay(*sixes, f"Bob place {circle} 1 0", **THREE)
        assert (got["board"], got["line"], got["next"]) == (11, 11, "Cat")
    got = replay(*sixes, "Bob roll 2 4", "Bob place 4 1 0", **THREE)
    assert (got["board"], got["next"]) == (11, "Cat")
    # rolled again: the new faces decide, and are not rolled a third time
    refused(CircleNotRolled, *sixes, "Bob roll 2 4", "Bob place 3 1 0", **THREE)
    refused(AlreadyRolled, *sixes, "Bob roll 2 4", "Bob roll 1 1", **THREE)
    # all sixes again: the same choice again
    assert replay(*sixes, "Bob roll 6 6", "Bob place 3 1 0", **THREE)["board"] == 11


def test_all_sixes_with_ability_1_asks_place_or_roll_all_again() -> None:
    ask = GAME.prompt(state_after(*WILD, "Bob roll 6 6", **THREE))
    assert ask is not None and ask.actor == "Bob" and ask.question == "Bob: 6s, place or roll"
    again, *places = ask.answers
    assert isinstance(again, Roll) and again.by_device == "Roll all again" and again.sides == (6, 6)
    assert [p.prefix for p in places if isinstance(p, Form)] == [(str(k),) for k in range(1, 6)]
    assert ask.answers[ask.likely] == places[0]  # the screen starts on placing
    details = GAME.details(state_after(*WILD, "Bob roll 6 6", **THREE))
    assert (details["dice"], details["circles"]) == ([6, 6], [1, 2, 3, 4, 5])


class Faces(random.Random):
    """Dice that show the given faces in turn."""

    def __init__(self, *faces: int) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        return self.faces.pop(0)


def test_a_device_roll_of_all_sixes_goes_on_rolling_only_without_ability_1() -> None:
    forced = state_after(*ROUND_2P)  # Bob: three dice, no ability 1
    ask = GAME.prompt(forced)
    assert ask is not None
    roll = next(a for a in ask.answers if isinstance(a, Roll))
    assert [str(x) for x in device_roll(GAME, forced, roll, Faces(6, 6, 6, 1, 2, 6))] == [
        "Bob roll 6 6 6", "Bob roll 1 2 6"]
    wild = state_after(*WILD, **THREE)
    ask = GAME.prompt(wild)
    assert ask is not None
    roll = next(a for a in ask.answers if isinstance(a, Roll))
    assert [str(x) for x in device_roll(GAME, wild, roll, Faces(6, 6, 1, 2))] == ["Bob roll 6 6"]


def test_a_six_is_dead() -> None:  # [S]
    refused(CircleNotRolled, *ROUND_2P, "Bob roll 2 6 6", "Bob place 3 1 0")
    ask = GAME.prompt(state_after(*ROUND_2P, "Bob roll 2 6 2"))
    assert ask is not None
    assert [f.prefix for f in ask.answers if isinstance(f, Form)] == [("2",)]


def test_ability_1_makes_a_six_any_circle() -> None:  # [S]
    lines = (*WILD, "Bob roll 6 2")
    assert replay(*lines, "Bob place 5 1 0", players="Ann Bob Cat")["board"] == 11
    ask = GAME.prompt(state_after(*lines, players="Ann Bob Cat"))
    assert ask is not None and len(ask.answers) == 5


def test_roll_only_when_needed() -> None:
    refused(NotRolled, *ROUND_2P, "Bob place 1 1 0")
    refused(AlreadyPlaced, *ROUND_2P, "Bob roll 1 2 3", "Bob place 1 1 0", "Bob roll 1 2 3")
    refused(OutOfStep, "table line", "Ann roll 1 2")


def test_turn_order_is_kept() -> None:
    refused(NotYourTurn, *ROUND_2P, "Ann roll 1 2")
    refused(NotYourTurn, *ROUND_2P, "Bob roll 1 2 3", "Ann roll 1 2")  # Bob has not placed
    refused(NotYourTurn, *ROUND_3P, "Cat roll 1 2", "Cat place 1 1 0", "Ann roll 1 2",
            players="Ann Bob Cat")


# --- placing and fish ---


def test_fish_gain_is_linked_minus_coloured_minus_penalty() -> None:  # [S]
    # worked example: ability 1, a group of 6 with one on a coloured igloo: 6 - 1 - 4 = 1
    got = replay(*WILD, "Bob roll 6 2", "Bob place 4 6 1", players="Ann Bob Cat")
    assert got["fish"]["Bob"] == 0 + 1  # Bob paid all 5 fish for space 1


def test_fish_gain_never_below_zero() -> None:  # [S]
    got = replay(*ROUND_2P, "Bob roll 1 2 3", "Bob place 1 1 1")
    assert got["fish"]["Bob"] == 5


def test_fish_track_stops_at_ten() -> None:  # [S]
    got = replay(*ROUND_2P, "Bob roll 1 2 3", "Bob place 1 10 0")
    assert got["fish"]["Bob"] == 10


@pytest.mark.parametrize(("space", "gain"), [(1, 1), (2, 2), (3, 3), (4, 4), (5, 3), (6, 4), (7, 4)])
def test_ability_penalties(space: int, gain: int) -> None:  # [S]
    state = state_after(*ROUND_2P)
    state = replace(state, spaces=(7, space))  # give Bob any ability, to see its penalty alone
    state = GAME.apply(state, Line.parse("Bob roll 1 2 3" if space == 6 else "Bob roll 1 2"))
    state = GAME.apply(state, Line.parse("Bob place 1 5 0"))
    assert state.fish[1] == 5 + gain


def test_placement_moves_a_penguin_from_line_to_board() -> None:  # [S]
    got = replay(*ROUND_2P, "Bob roll 1 2 3", "Bob place 3 1 0")
    assert (got["line"], got["board"], got["next"]) == (11, 11, "Ann")


def test_impossible_groups_are_refused() -> None:
    refused(BadGroup, *ROUND_2P, "Bob roll 1 2 3", "Bob place 1 2 3")  # G above L
    refused(BadArguments, *ROUND_2P, "Bob roll 1 2 3", "Bob place 1 11 0")
    refused(BadArguments, *ROUND_2P, "Bob roll 1 2 3", "Bob place 1 0 0")
    refused(BadArguments, *ROUND_2P, "Bob roll 1 2 3", "Bob place 1 1")
    state = replace(state_after(*ROUND_2P, "Bob roll 1 2 3"), board=3)
    with pytest.raises(BadGroup):
        GAME.apply(state, Line.parse("Bob place 1 5 0"))


def test_place_prompt_offers_one_form_per_rolled_circle() -> None:
    ask = GAME.prompt(state_after(*ROUND_2P, "Bob roll 4 1 4"))
    assert ask is not None and ask.topic == "place"
    forms = [f for f in ask.answers if isinstance(f, Form)]
    assert [(f.label, f.prefix) for f in forms] == [("circle 1", ("1",)), ("circle 4", ("4",))]
    assert [(f.low, f.high) for f in forms[0].fields] == [(1, 10), (0, 5)]


def test_rolled_dice_and_the_circles_they_allow_are_in_the_summary() -> None:
    got = replay(*ROUND_2P, "Bob roll 4 6 4")
    assert (got["dice"], got["circles"]) == ([4, 6, 4], [4])
    got = replay(*WILD, "Bob roll 6 2", players="Ann Bob Cat")
    assert got["circles"] == [1, 2, 3, 4, 5]
    assert replay(*ROUND_2P, "Bob roll 6 6 6")["dice"] == []  # all sixes: nothing to place by
    assert replay(*ROUND_2P, "Bob roll 1 2 3", "Bob place 1 1 0")["dice"] == []


def test_fish_gain_is_shown_as_its_sum_before_it_is_applied() -> None:
    # the worked example, with ability 1
    state = state_after(*WILD, "Bob roll 6 2", players="Ann Bob Cat")
    assert GAME.preview(state, Line.parse("Bob place 4 6 1")) == (
        "6 linked - 1 coloured\n- 4 ability = 1 fish")
    assert GAME.preview(state, Line.parse("Bob place 4 1 0")) == (
        "1 linked - 0 coloured\n- 4 ability = -3: no fish")
    state = state_after(*ROUND_2P, "Bob roll 1 2 3")
    assert GAME.preview(state, Line.parse("Bob place 1 10 0")) == (
        "10 linked - 0 coloured\n- 1 ability = 9 fish\n10 is the most: +5")
    assert GAME.preview(state, Line.parse("Bob roll 1 2 3")) == ""


# --- completed circles ---


def test_full_circle_escapee_goes_to_the_briber() -> None:  # [S]
    got = replay(*ROUND_2P, "Bob roll 1 2 3", "Bob place 2 3 0", "Bob complete 2 green 4")
    assert got["escaped"] == {"Ann": {"green": 1}, "Bob": {}}  # Ann bribed bear 2
    assert (got["board"], got["bag"], got["gone"]) == (7, 31, 0)
    assert got["scores"] == {"Ann": 1, "Bob": 0}


def test_full_unbribed_circle_loses_one_penguin_for_good() -> None:  # [S]
    got = replay(*ROUND_2P, "Bob roll 5 2 3", "Bob place 5 1 0", "Bob complete 5 red 3")
    assert got["escaped"] == {"Ann": {}, "Bob": {}}
    assert (got["board"], got["bag"], got["gone"]) == (8, 30, 1)


def test_one_players_circles_in_any_order_each_once_a_turn() -> None:  # [D]
    lines = (*ROUND_2P, "Bob roll 1 2 3", "Bob place 1 1 0", "Bob complete 3 red 2")
    got = replay(*lines, "Bob complete 1 blue 2")
    assert got["escaped"] == {"Ann": {}, "Bob": {"red": 1, "blue": 1}}
    assert replay(*ROUND_2P, "Bob roll 1 2 3", "Bob place 1 1 0", "Bob complete 1 blue 2",
                  "Bob complete 3 red 2")["escaped"] == got["escaped"]
    refused(CircleDone, *lines, "Bob complete 3 red 2")


#: Bob placed in circle 1. Turn order Bob, Ann; Bob bribed 1 and 3, Ann 2 and 4; 5 is unbribed.
BOB_PLACED = (*ROUND_2P, "Bob roll 1 2 3", "Bob place 1 1 0")
ANN_PLACED = (*BOB_PLACED, "Ann roll 2 5", "Ann place 2 1 0")


def test_full_circles_are_checked_in_the_briber_turn_order() -> None:  # [S]
    got = replay(*BOB_PLACED, "Bob complete 1 red 2", "Bob complete 2 blue 2")  # Bob's, then Ann's
    assert got["escaped"] == {"Ann": {"blue": 1}, "Bob": {"red": 1}}
    refused(OutOfOrder, *BOB_PLACED, "Bob complete 2 blue 2", "Bob complete 1 red 2")
    refused(OutOfOrder, *BOB_PLACED, "Bob complete 4 blue 2", "Bob complete 3 red 2")
    # Ann's turn: her own turn changes nothing for bribed circles, Bob's still come first
    assert replay(*ANN_PLACED, "Ann complete 3 red 2", "Ann complete 2 blue 2")["escaped"] == {
        "Ann": {"blue": 1}, "Bob": {"red": 1}}
    refused(OutOfOrder, *ANN_PLACED, "Ann complete 2 blue 2", "Ann complete 3 red 2")


def test_an_unbribed_circle_counts_as_the_current_players() -> None:  # [D]
    # Bob's turn: circle 5 is Bob's, before Ann's circles
    assert replay(*BOB_PLACED, "Bob complete 5 red 2", "Bob complete 2 blue 2")["gone"] == 1
    refused(OutOfOrder, *BOB_PLACED, "Bob complete 2 blue 2", "Bob complete 5 red 2")
    assert replay(*BOB_PLACED, "Bob complete 1 red 2", "Bob complete 5 blue 2")["gone"] == 1
    assert replay(*BOB_PLACED, "Bob complete 5 red 2", "Bob complete 1 blue 2")["gone"] == 1
    # Ann's turn: circle 5 is Ann's, after Bob's circles
    assert replay(*ANN_PLACED, "Ann complete 1 red 2", "Ann complete 5 blue 2")["gone"] == 1
    refused(OutOfOrder, *ANN_PLACED, "Ann complete 5 blue 2", "Ann complete 1 red 2")
    assert replay(*ANN_PLACED, "Ann complete 5 red 2", "Ann complete 2 blue 2")["gone"] == 1


def test_a_circle_out_of_order_is_refused_naming_the_one_that_comes_first() -> None:
    state = state_after(*BOB_PLACED, "Bob complete 2 blue 2")
    with pytest.raises(OutOfOrder) as err:
        GAME.apply(state, Line.parse("Bob complete 1 red 2"))
    assert str(err.value) == "circle 1 is checked before circle 2"
    with pytest.raises(OutOfOrder) as err:
        GAME.apply(state, Line.parse("Bob complete 5 red 2"))
    assert str(err.value) == "circle 5 is checked before circle 2"
    state = state_after(*ANN_PLACED, "Ann complete 5 blue 2")
    with pytest.raises(OutOfOrder) as err:
        GAME.apply(state, Line.parse("Ann complete 3 red 2"))
    assert str(err.value) == "circle 3 is checked before circle 5"


def full_circles(*lines: str, **header: Any) -> list[Form]:
    """The full-circle forms in the order of the extras: the likeliest, nearest the answers, first."""
    ask = GAME.prompt(state_after(*lines, **header))
    assert ask is not None and ask.answers
    return [e for e in ask.extras if isinstance(e, Form) and e.verb == "complete"]


def test_full_circles_are_listed_in_the_order_they_are_checked() -> None:
    forms = full_circles(*BOB_PLACED)  # Bob's placed circle 1 first, his 3 and 5, then Ann's
    assert [f.prefix for f in forms] == [("1",), ("3",), ("5",), ("2",), ("4",)]
    assert [f.label for f in forms] == ["full circle 1", "full circle 3", "full circle 5",
                                        "full circle 2", "full circle 4"]
    assert not any(f.refusal for f in forms)
    forms = full_circles(*ANN_PLACED)  # Ann's turn: 5 is hers, after Bob's; her placed 2 first
    assert [f.prefix for f in forms] == [("1",), ("3",), ("2",), ("4",), ("5",)]
    lines = ("table line", "Ann ability 7", "Bob ability 6", "Cat ability 5",
             "Cat bribe 1", "Bob bribe 2", "Ann bribe 3", "Cat roll 1 2", "Cat place 1 1 0",
             "Bob roll 4 5 6", "Bob place 5 1 0")
    forms = full_circles(*lines, **THREE)  # Cat, Bob, Ann; 4 and 5 unbribed: Bob's turn
    assert [f.prefix for f in forms] == [("1",), ("5",), ("2",), ("4",), ("3",)]


def test_after_a_full_circle_the_rules_of_this_step_are_the_checking_order() -> None:
    ask = GAME.prompt(state_after(*BOB_PLACED))
    assert ask is not None and ask.topic == "roll"  # Ann's roll is asked
    ask = GAME.prompt(state_after(*BOB_PLACED, "Bob complete 3 red 2"))
    assert ask is not None and ask.topic == "circles" and ask.actor == "Ann"
    ask = GAME.prompt(state_after(*BOB_PLACED, "Bob complete 3 red 2", "Ann roll 1 2"))
    assert ask is not None and ask.topic == "place"


def test_a_circle_that_may_no_longer_come_is_listed_marked_with_the_reason() -> None:
    forms = full_circles(*BOB_PLACED, "Bob complete 3 red 2", "Bob complete 2 blue 2")
    assert [(f.prefix, f.label, f.hint) for f in forms] == [
        (("1",), "full circle 1", "late"), (("5",), "full circle 5", "late"),
        (("4",), "full circle 4", "")]
    assert [f.refusal for f in forms] == [
        "circle 1 is checked before circle 2", "circle 5 is checked before circle 2", ""]
    state = state_after(*BOB_PLACED, "Bob complete 3 red 2", "Bob complete 2 blue 2")
    for form in forms[:2]:  # the reason on the list is the refusal's
        with pytest.raises(OutOfOrder) as err:
            GAME.apply(state, form.line((1, 2)))
        assert str(err.value) == form.refusal


def test_full_circle_only_after_own_placement() -> None:  # [S]
    refused(NotPlaced, *ROUND_2P, "Bob roll 1 2 3", "Bob complete 1 red 2")
    refused(NotPlaced, *ROUND_2P, "Bob roll 1 2 3", "Bob place 1 1 0", "Ann complete 1 red 2")
    # a line of another actor ends the turn
    refused(NotPlaced, *ROUND_2P, "Bob roll 1 2 3", "Bob place 1 1 0", "Ann roll 1 2",
            "Bob complete 1 red 2")
    refused(NotPlaced, "table line", "Ann complete 1 red 2")


def test_full_circle_counts_and_colours_checked() -> None:
    lines = (*ROUND_2P, "Bob roll 1 2 3", "Bob place 1 1 0")
    refused(NoSuchColour, *lines, "Bob complete 1 pink 2")
    refused(BadArguments, *lines, "Bob complete 1 red 1")
    refused(BadArguments, *lines, "Bob complete 1 red 8")
    refused(BadArguments, *lines, "Bob complete 6 red 2")
    state = replace(state_after(*lines), board=3)
    with pytest.raises(TooManyRemoved):
        GAME.apply(state, Line.parse("Bob complete 1 red 4"))


def test_full_circle_is_a_form_a_circle_with_the_colour_by_name() -> None:
    ask = GAME.prompt(state_after(*ROUND_2P, "Bob roll 1 2 3", "Bob place 3 1 0",
                                  "Bob complete 1 red 2"))
    assert ask is not None and ask.actor == "Ann"
    forms = [e for e in ask.extras if isinstance(e, Form) and e.verb == "complete"]
    assert [f.prefix for f in forms] == [("3",), ("5",), ("2",), ("4",)]  # 1 is logged
    form = forms[0]
    colour, out = form.fields
    assert form.actor == "Bob" and form.label == "full circle 3"
    assert [colour.word(v) for v in range(colour.low, colour.high + 1)] == [
        "red", "yellow", "green", "blue", "purple"]
    assert (out.low, out.high) == (2, 7)
    assert form.line((4, 3)) == Line("Bob", "complete", ("3", "blue", "3"))


def test_no_full_circle_form_once_all_five_are_logged() -> None:
    lines = [*ROUND_2P, "Bob roll 1 2 3", "Bob place 3 1 0"]
    lines += [f"Bob complete {k} red 2" for k in (3, 1, 5, 2, 4)]  # the order they are checked
    ask = GAME.prompt(state_after(*lines))
    assert ask is not None and not any(isinstance(e, Form) and e.verb == "complete" for e in ask.extras)


def test_full_circle_preview_says_where_the_penguins_go() -> None:
    state = state_after(*ROUND_2P, "Bob roll 1 2 5", "Bob place 2 3 0")
    assert GAME.preview(state, Line.parse("Bob complete 2 green 4")) == (
        "1 green escapes\nto Ann.\n3 back to the bag.")
    assert GAME.preview(state, Line.parse("Bob complete 5 red 3")) == (
        "No bribe: 1 red\nleaves the game.\n2 back to the bag.")


# --- abilities 4 and 5 ---

SWAPPER = ("table line", "Ann ability 7", "Bob ability 4", "Bob bribe 1", "Ann bribe 2",
           "Bob bribe 3", "Ann bribe 4")
EXTENDER = ("table line", "Ann ability 5", "Bob ability 4", "Bob bribe 1", "Ann bribe 2",
            "Bob bribe 3", "Ann bribe 4")


def test_swap_once_a_round_in_own_turn() -> None:  # [S]
    assert replay(*SWAPPER, "Bob swap")["next"] == "Bob"
    assert replay(*SWAPPER, "Bob roll 1 2", "Bob place 1 1 0", "Bob swap")["next"] == "Ann"
    refused(AbilityUsed, *SWAPPER, "Bob swap", "Bob roll 1 2", "Bob place 1 1 0", "Bob swap")
    refused(NotYourAbility, *SWAPPER, "Bob roll 1 2", "Bob place 1 1 0", "Ann swap")
    refused(NotYourTurn, *SWAPPER, "Bob roll 1 2", "Bob place 1 1 0", "Ann roll 1 2",
            "Bob swap")  # Ann's turn has begun


def test_extend_moves_penguins_from_bag_to_line() -> None:  # [S]
    got = replay(*EXTENDER, "Bob roll 1 2", "Bob place 1 1 0", "Ann extend 3")
    assert (got["bag"], got["line"], got["next"]) == (25, 14, "Ann")
    refused(AbilityUsed, *EXTENDER, "Bob roll 1 2", "Bob place 1 1 0", "Ann extend 0",
            "Ann extend 1")
    refused(BadArguments, *EXTENDER, "Bob roll 1 2", "Bob place 1 1 0", "Ann extend 6")
    refused(NotYourTurn, *EXTENDER, "Ann extend 1")
    state = replace(state_after(*EXTENDER, "Bob roll 1 2", "Bob place 1 1 0"), bag=2)
    with pytest.raises(BagShort):
        GAME.apply(state, Line.parse("Ann extend 3"))


def test_extended_line_means_more_turns() -> None:  # [S]
    lines = [*EXTENDER, "Bob roll 1 2", "Bob place 1 1 0", "Ann extend 2"]
    lines += ["Ann roll 1 2", "Ann place 1 1 0", *placements(("Bob", "Ann"), 10)]
    got = replay(*lines)
    assert (got["line"], got["next"]) == (2, "Bob")


def test_abilities_offered_as_extras() -> None:
    ask = GAME.prompt(state_after(*EXTENDER, "Bob roll 1 2", "Bob place 1 1 0"))
    assert ask is not None
    lines = {(e.actor if isinstance(e, Form) else e.line.actor, e.verb if isinstance(e, Form)
              else e.line.verb) for e in ask.extras}
    assert {("Bob", "swap"), ("Ann", "extend")} <= lines
    assert ("Ann", "buy") not in lines  # Ann has 1 fish left


def test_no_swap_or_extend_with_an_empty_line() -> None:
    refused(LineEmpty, *SWAPPER, *placements(("Bob", "Ann"), 12), "Bob swap")


# --- end of round and of game ---


def test_round_ends_when_the_line_is_empty() -> None:  # [S]
    got = replay(*ROUND_2P, *placements(("Bob", "Ann"), 12, {"Bob": 3}))
    assert (got["line"], got["board"], got["next"], got["over"]) == (0, 22, "table", False)


def test_game_ends_when_the_bag_cannot_fill_a_line() -> None:  # [S] + [D] fewer than 12
    got = replay(*whole_game())
    assert got["over"] and got["next"] is None and got["bag"] == 4
    assert got["winners"] == ["Bob"]  # all on 0 points and 0 escapees: Bob is first in order
    refused(GameOver, *whole_game(), "table line")


def test_after_the_end_only_the_last_players_full_circles_are_offered() -> None:  # records.md
    ask = GAME.prompt(state_after(*whole_game()))
    assert ask is not None and ask.answers == () and GAME.next_actor(state_after(*whole_game())) is None
    assert ask.extras and all(isinstance(f, Form) and f.actor == "Ann" and f.verb == "complete"
                              for f in ask.extras)
    # the end screen lists them in the order they are checked: Bob's bears, then Ann's
    assert [f.prefix for f in ask.extras if isinstance(f, Form)] == [("1",), ("3",), ("2",), ("4",), ("5",)]
    state = state_after(*whole_game(), "Ann complete 1 red 7", "Ann complete 2 blue 3")
    assert not GAME.over(state) and GAME.next_actor(state) == "table"  # the bag holds 12 again
    lines = [*ROUND_2P, *placements(("Bob", "Ann"), 12, {"Bob": 3})]
    state = replace(state_after(*lines), bag=4, board=1)  # too few on the board for a full circle
    assert GAME.over(state) and GAME.prompt(state) is None


def test_exactly_twelve_in_the_bag_is_enough() -> None:  # [D] "fewer than 12"
    lines = whole_game()
    # Ann placed the last penguin of round 3; two full circles give the bag 6 + 2
    got = replay(*lines, "Ann complete 1 red 7")
    assert got["over"] and got["bag"] == 10 and got["escaped"]["Bob"] == {"red": 1}
    got = replay(*lines, "Ann complete 1 red 7", "Ann complete 2 blue 3")
    assert not got["over"] and got["bag"] == 12 and got["next"] == "table"
    assert replay(*lines, "Ann complete 1 red 7", "Ann complete 2 blue 3", "table line")["bag"] == 0


def test_only_the_last_players_circles_after_the_end() -> None:
    refused(GameOver, *whole_game(), "Bob complete 1 red 7")
    refused(GameOver, *whole_game(), "Ann roll 1 2")


# --- scoring ---


@pytest.mark.parametrize(("counts", "points"), [
    ((0, 0, 2, 0, 0), 2), ((1, 0, 2, 0, 0), 4), ((1, 1, 1, 1, 1), 15), ((1, 1, 1, 1, 0), 10),
    ((1, 1, 1, 0, 0), 6), ((1, 1, 0, 0, 0), 3), ((2, 2, 2, 2, 2), 30), ((3, 1, 1, 0, 0), 8),
])
def test_sets_of_different_colours(counts: tuple[int, ...], points: int) -> None:  # [S]
    assert set_score(counts) == points


@cache
def best_grouping(counts: tuple[int, ...]) -> int:
    """The most points of any split of the escapees into sets of different colours, by
    trying every split (small counts only)."""
    if not any(counts):
        return 0
    held = [c for c, n in enumerate(counts) if n]
    best = 0
    for mask in range(1, 2 ** len(held)):
        chosen = {held[i] for i in range(len(held)) if mask >> i & 1}
        rest = tuple(n - (c in chosen) for c, n in enumerate(counts))
        best = max(best, SET_POINTS[len(chosen)] + best_grouping(rest))
    return best


@settings(max_examples=80, deadline=None)
@given(counts=st.tuples(*[st.integers(0, 3)] * 5))
def test_largest_sets_first_is_the_best_grouping(counts: tuple[int, ...]) -> None:  # [S]
    assert set_score(counts) == best_grouping(counts)


def ended(escaped: tuple[tuple[int, ...], ...], order: tuple[int, ...] = (1, 0)) -> State:
    """The finished two-player game with these escapees and this final turn order."""
    return replace(state_after(*whole_game()), escaped=escaped, order=order)


def test_highest_score_wins() -> None:  # [S]
    assert GAME.outcome(ended(((1, 1, 0, 0, 0), (2, 0, 0, 0, 0)))) == Outcome(Termination.BAG_SHORT, ("Ann",))


def test_tie_goes_to_most_escapees() -> None:  # [S]
    # Ann: a pair (3); Bob: three singles (3) and more penguins
    assert GAME.outcome(ended(((1, 1, 0, 0, 0), (3, 0, 0, 0, 0)))) == Outcome(Termination.BAG_SHORT, ("Bob",))


def test_then_to_the_earlier_turn_order() -> None:  # [S]
    same = ((1, 1, 0, 0, 0), (0, 0, 1, 1, 0))
    assert GAME.outcome(ended(same, order=(1, 0))) == Outcome(Termination.BAG_SHORT, ("Bob",))
    assert GAME.outcome(ended(same, order=(0, 1))) == Outcome(Termination.BAG_SHORT, ("Ann",))


# --- the record interface ---


def test_records_md_example() -> None:
    got = replay("table line", "Ann ability 7", "Bob ability 4", "Bob bribe 2", "Ann bribe 5",
                 "Bob bribe 1", "Ann bribe 3", "Bob roll 2 6", "Bob place 2 3 1",
                 "Bob complete 2 red 3", "Ann buy", "Ann roll 5 5 1", "Ann place 5 2 0")
    want = {"next": "Bob", "round": 1, "fish": {"Ann": 4, "Bob": 2}, "order": ["Bob", "Ann"],
            "bribes": {"Ann": [5, 3], "Bob": [2, 1]}, "bag": 30, "line": 10, "board": 9,
            "gone": 0, "escaped": {"Ann": {}, "Bob": {"red": 1}}, "scores": {"Ann": 0, "Bob": 1}}
    assert {k: got[k] for k in want} == want


def test_summary_has_every_key_and_player() -> None:
    got = replay(players="Ann Bob Cat")
    assert got.keys() >= SUMMARY_KEYS
    for key in ("fish", "bribes", "escaped", "scores"):
        assert set(got[key]) == {"Ann", "Bob", "Cat"}
    assert got["abilities"] == {}


def test_unknown_or_misplaced_lines() -> None:
    refused(UnknownVerb, "table line", "Ann dance")
    refused(NotYourTurn, "table roll 1 2")
    refused(BadArguments, "table line 3")


def test_pages_cover_every_topic_and_mark_house_defaults() -> None:
    assert "" in GAME.pages
    text = " ".join(GAME.pages.values())
    assert text.count("house default") >= 6
    for lines in ((), ("table line",), ROUND_2P, (*ROUND_2P, "Bob roll 1 2 3")):
        ask = GAME.prompt(state_after(*lines))
        assert ask is not None and ask.topic in GAME.pages


# --- invariants ---


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(2, 5))
def test_every_penguin_is_somewhere(seed: int, count: int) -> None:
    """bag + line + board + gone + escapees = 50 after every line of a random game."""
    state, lines = playout(GAME, NAMES[:count], random.Random(seed), steps=600)
    current = GAME.start(NAMES[:count], GAME.option_values({}))
    for line in lines:
        current = GAME.apply(current, line)
        details = GAME.details(current)
        assert penguins(details) == 50
        assert all(0 <= fish <= 10 for fish in details["fish"].values())
        assert min(details["bag"], details["line"], details["board"]) >= 0
    assert current == state

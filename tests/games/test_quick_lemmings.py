"""Quick Lemmings (RULES.md section 5, records.md ``quick-lemmings``): each rule as players
see it, illegal lines with their error class, and the card-count invariants."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.base import (
    BadArguments,
    Choice,
    GameOver,
    Grid,
    IllegalLine,
    Line,
    NotYourTurn,
    Outcome,
    UnknownVerb,
)
from companion.games.frozen import replace
from companion.games.quick_lemmings import (
    DEFAULT_DECK,
    TERRAINS,
    AllInSight,
    DeckTooSmall,
    EmptyHand,
    NotInDeck,
    QuickLemmings,
    State,
    Termination,
    TooManyDiscards,
    deal_sizes,
)
from companion.record import RecordError, replay_text
from tests.games.records import Records
from tests.games.scenarios import total
from tests.playout import playout

GAME = QuickLemmings()
NAMES = ("Ann", "Bob", "Cat", "Dan", "Eve")


BOOK = Records("quick-lemmings")
record, replay, refused = BOOK.record, BOOK.replay, BOOK.refused


def state_after(*lines: str, **header: Any) -> State:
    """The state the record replays to."""
    state: State = BOOK.state_after(*lines, **header)
    return state


def drain(*lines: str, **header: Any) -> list[str]:
    """The lines, then whole-hand refills while the draw pile holds a full hand."""
    out = list(lines)
    state = state_after(*out, **header)
    while state.draw >= 6:
        out.append(f"{state.players[state.turn]} refill {state.hands[state.turn]}")
        state = GAME.apply(state, Line.parse(out[-1]))
    return out


def reshuffled(*lines: str, **header: Any) -> tuple[State, State]:
    """The state with the draw pile nearly empty, and after a whole-hand refill that
    has to reshuffle."""
    before = state_after(*drain(*lines, **header), **header)
    seat = before.turn
    return before, GAME.apply(before, Line(before.players[seat], "refill", (str(before.hands[seat]),)))


# --- setup ---


def test_default_deck_has_eleven_cards_per_terrain() -> None:  # [D] option
    start = replay()
    assert total(start) == 55


def test_each_pile_starts_with_a_two() -> None:  # [S]
    assert replay()["piles"] == {t: [2] for t in TERRAINS}


def test_three_tiles_per_terrain_and_six_meadows() -> None:  # [P]
    assert replay()["tiles"] == {**dict.fromkeys(TERRAINS, 3), "meadow": 6}


def test_two_lemmings_each_by_default() -> None:  # [P]
    s = replay("Ann finish")
    assert not s["over"] and s["finished"] == {"Ann": 1, "Bob": 0}
    assert replay("Ann finish", "Ann finish")["winners"] == ["Ann"]


@pytest.mark.parametrize("count, sizes", [(2, [5, 6]), (3, [4, 5, 6]), (4, [3, 4, 5, 6]),
                                          (5, [2, 3, 4, 5, 6])])
def test_deal_starts_at_seven_minus_players_and_ends_at_six(count: int, sizes: list[int]) -> None:
    s = replay(players=" ".join(NAMES[:count]))  # [S]
    assert list(s["hands"].values()) == sizes
    assert s["draw"] == 55 - 5 - sum(sizes)
    assert list(deal_sizes(count)) == sizes


def test_before_any_play_no_points_no_tile_and_first_seat_starts() -> None:
    s = replay(players="Ann Bob Cat")
    assert (s["points"], s["tile"], s["discards"], s["next"]) == (0, None, 0, "Ann")


# --- options ---


def test_custom_deck_and_lemmings() -> None:
    s = replay("Ann finish", players="Ann Bob", options=("lemmings 1", "deck 0,2,2,9,9"))
    assert s["over"] and s["winners"] == ["Ann"]
    assert s["draw"] == 25 - 5 - 11


@pytest.mark.parametrize("option", ["lemmings 0", "lemmings 4", "deck 0,1,3,4,4",  # no 2
                                    "deck 2,2,2,2",  # 15 cards to deal, 5 players need 20
                                    "deck 2,2,x,2,2", "deck 2,2,10,2,2", "deck 2,,2,2,2"])
def test_bad_options_are_refused_on_their_line(option: str) -> None:
    five = " ".join(NAMES)
    with pytest.raises(RecordError) as err:
        replay_text(record("Ann refill 0", players=five, options=(option,)))
    assert err.value.line == 3


@pytest.mark.parametrize("count, legal", [(2, True), (3, True), (4, False), (5, False)])
def test_a_small_deck_is_checked_against_the_actual_deal(count: int, legal: bool) -> None:
    # Four cards a terrain: 5 x 3 = 15 cards to deal; the deal needs 11, 15, 18, 20.
    header: dict[str, Any] = {"players": " ".join(NAMES[:count]),
                              "options": ("lemmings 1", "deck 2,2,2,2")}
    if legal:
        assert replay(**header)["draw"] == 15 - sum(deal_sizes(count))
        return
    with pytest.raises(RecordError) as err:  # at the option line, not at the first action
        replay_text(record("Ann refill 0", **header))
    assert err.value.line == 4 and f"need {sum(deal_sizes(count))} cards" in err.value.reason
    with pytest.raises(DeckTooSmall):
        GAME.start(NAMES[:count], GAME.option_values({"deck": "2,2,2,2"}))


def test_the_deck_is_not_asked_when_setting_up_on_the_box() -> None:
    # The new-game screens ask only options with choices; a deck comes from a record.
    assert GAME.options["lemmings"].choices and not GAME.options["deck"].choices


# --- turns ---


def test_turn_passes_after_refill_and_play_but_not_after_finish() -> None:
    assert replay("Ann refill 0")["next"] == "Bob"
    assert replay("Ann play forest 1")["next"] == "Bob"
    assert replay("Ann play forest 1", "Ann finish")["next"] == "Bob"
    assert replay("Ann play forest 1", "Bob play water 1")["next"] == "Ann"


def test_out_of_turn_play_or_refill_is_refused() -> None:
    refused(NotYourTurn, "Bob refill 0")
    refused(NotYourTurn, "Ann refill 0", "Ann play forest 1")
    refused(NotYourTurn, "table refill 0")


def test_malformed_lines_are_refused() -> None:
    refused(UnknownVerb, "Ann draw 3")
    refused(BadArguments, "Ann play meadow 1")
    refused(BadArguments, "Ann play forest")
    refused(BadArguments, "Ann play forest 10")
    refused(BadArguments, "Ann refill")
    refused(BadArguments, "Ann refill 7")
    refused(BadArguments, "Ann finish 1")


# --- refill ---


def test_refill_discards_then_draws_up_to_six() -> None:  # [S]
    s = replay("Ann refill 3")  # 5 cards: 2 kept, 4 drawn
    assert s["hands"]["Ann"] == 6 and s["discards"] == 3 and s["draw"] == 39 - 4


def test_refill_of_nothing_fills_the_hand() -> None:  # [S]
    s = replay("Ann refill 0")
    assert s["hands"]["Ann"] == 6 and s["draw"] == 38 and s["discards"] == 0


def test_refill_cannot_discard_more_than_the_hand() -> None:
    refused(TooManyDiscards, "Ann refill 6")


def test_refill_keeps_the_last_play_on_show() -> None:
    s = replay("Ann play swamp 3", "Bob refill 2")
    assert (s["points"], s["tile"]) == (3, "swamp")


def test_empty_draw_pile_reshuffles_the_discards_and_drawing_goes_on() -> None:  # [S]
    before, after = reshuffled()
    seat = before.turn
    assert 0 < before.draw < 6 and after.hands[seat] == 6 and after.discards == 0
    # Every discard, the refilled hand included, went into the new draw pile.
    assert after.draw == before.discards + before.hands[seat] - (6 - before.draw)


def test_a_pile_with_every_zero_is_cut_to_one_zero_before_the_reshuffle() -> None:  # [S]
    lines = ("Ann play forest 0", "Bob play forest 0", "Ann play water 0")  # water: one 0
    before, after = reshuffled(*lines)
    assert before.piles[0] == (2, 0, 0) and before.piles[1] == (2, 0)
    assert after.piles[0] == (0,) and after.piles[1] == (2, 0)
    # The two cut cards were shuffled in with the discards.
    assert after.draw == before.discards + before.hands[before.turn] + 2 - (6 - before.draw)


def test_two_piles_with_both_zeros_are_both_cut_before_the_reshuffle() -> None:  # [S]
    lines = ("Ann play forest 0", "Bob play forest 0", "Ann play water 0", "Bob play water 0")
    before, after = reshuffled(*lines)
    assert before.piles[:2] == ((2, 0, 0), (2, 0, 0))
    assert after.piles[:2] == ((0,), (0,)) and after.piles[2:] == before.piles[2:]
    # Four cut cards (a 2 and a 0 from each) were shuffled in with the discards.
    assert after.draw == before.discards + before.hands[before.turn] + 4 - (6 - before.draw)
    assert after.discards == 0 and after.hands[before.turn] == 6


def test_a_custom_deck_cuts_a_pile_holding_every_zero() -> None:
    options = ("deck 0,0,0,2,9,9",)  # three zeros of each terrain
    lines = ("Ann play swamp 0", "Bob play swamp 0")
    _, after = reshuffled(*lines, options=options)
    assert after.piles[3] == (2, 0, 0)  # two of three: not cut
    lines += ("Ann play swamp 0",)
    refused(AllInSight, *lines, "Bob play swamp 0", options=options)
    _, after = reshuffled(*lines, options=options)
    assert after.piles[3] == (0,)


def test_a_deck_without_zeros_skips_the_cut() -> None:
    _, after = reshuffled("Ann play forest 1", options=("deck 1,2,2,3,3",))
    assert after.piles[0] == (2, 1) and after.discards == 0


def test_reshuffle_hides_the_discarded_piles_again() -> None:
    # The forest starter 2 is discarded; with the other two 2s played, all three are in sight.
    lines = ("Ann play forest 3", "Bob play forest 2", "Ann play forest 2")
    refused(AllInSight, *lines, "Bob play forest 2")
    _, after = reshuffled(*lines)
    # After the reshuffle the discarded starter may be back in a hand.
    after = GAME.apply(after, Line(after.players[after.turn], "play", ("forest", "2")))
    assert after.piles[0] == (3, 2, 2, 2) and after.points == 9


def test_hand_stays_short_when_no_card_is_left_anywhere() -> None:
    # Deck of five 2s, five players: 5 pile cards and 20 dealt leave no draw pile.
    header: dict[str, Any] = {"players": " ".join(NAMES), "options": ("deck 2,2,2,2,2",)}
    s = replay("Ann refill 0", **header)
    assert (s["hands"]["Ann"], s["draw"], s["discards"]) == (2, 0, 0)
    s = replay("Ann play desert 2", "Bob refill 2", **header)
    # Bob's own 2 discards are reshuffled and drawn back; nothing more exists.
    assert (s["hands"]["Bob"], s["draw"], s["discards"]) == (3, 0, 0)


# --- play ---


def test_card_not_above_the_lowest_joins_and_scores_the_pile() -> None:  # [S]
    s = replay("Ann play forest 2", "Bob play forest 1", "Ann play forest 1")
    assert s["piles"]["forest"] == [2, 2, 1, 1] and s["points"] == 6 and s["tile"] is None
    assert s["tiles"]["forest"] == 3 and s["discards"] == 0


def test_card_above_the_lowest_replaces_the_pile_and_lays_a_tile() -> None:  # [S]
    s = replay("Ann play forest 1", "Bob play forest 3")
    assert s["piles"]["forest"] == [3] and s["points"] == 3 and s["tile"] == "forest"
    assert s["tiles"]["forest"] == 2 and s["discards"] == 2


def test_meadow_tile_when_the_terrain_tiles_are_gone() -> None:  # [S]
    # Three new water piles use the three water tiles.
    lines = ["Ann play water 3", "Bob play water 4", "Ann play water 0", "Bob play water 1"]
    s = replay(*lines)
    assert s["tiles"]["water"] == 0 and s["tile"] == "water"
    s = replay(*lines, "Ann play water 2")
    assert s["tile"] == "meadow" and s["tiles"]["meadow"] == 5 and s["points"] == 2


#: Fourteen new piles with a deck of rising values: 6 terrain tiles, then the 6 meadows,
#: then nothing (tests/golden/quick-lemmings/tiles-run-out.record is the same game).
RISING = ("Ann play forest 3", "Bob play forest 4", "Ann play forest 5", "Bob play forest 6",
          "Ann play forest 7", "Bob play forest 8", "Ann play forest 9", "Bob play water 3",
          "Ann play water 4", "Bob play water 5", "Ann refill 0", "Bob play water 6",
          "Ann play water 7", "Bob refill 0", "Ann play water 8")
RISING_DECK = ("deck 2,3,4,5,6,7,8,9",)


def test_tiles_run_out_to_meadows_and_then_to_nothing() -> None:  # [S]
    tiles = [replay(*RISING[:n], options=RISING_DECK)["tile"] for n in range(1, len(RISING) + 1)]
    # A refill (the 11th and 14th line) keeps the last play's tile on show.
    assert tiles == ["forest"] * 3 + ["meadow"] * 4 + ["water"] * 4 + ["meadow"] * 3 + [None]
    s = replay(*RISING, options=RISING_DECK)
    assert s["tiles"] == {t: 0 if t in ("forest", "water") else 3 for t in TERRAINS} | {"meadow": 0}
    assert (s["points"], s["piles"]["water"]) == (8, [8])


def test_no_tile_left_at_all_is_still_a_new_pile() -> None:  # [S]
    state = replace(state_after(), tiles=(0, 0, 0, 0, 0, 0))
    after = GAME.apply(state, Line("Ann", "play", ("desert", "3")))
    assert after.tile is None and after.points == 3 and after.piles[4] == (3,)
    assert GAME.details(after)["discards"] == 1


def test_play_needs_a_card_in_hand() -> None:
    five = " ".join(NAMES)  # Ann is dealt 2
    refused(EmptyHand, "Ann play forest 1", "Bob refill 0", "Cat refill 0", "Dan refill 0",
            "Eve refill 0", "Ann play forest 1", "Bob refill 0", "Cat refill 0",
            "Dan refill 0", "Eve refill 0", "Ann play forest 0", players=five)


def test_value_not_in_the_deck_is_refused() -> None:
    refused(NotInDeck, "Ann play forest 5")
    refused(NotInDeck, "Ann play forest 1", options=("deck 0,2,2,9,9",))


def test_a_third_zero_is_refused() -> None:  # two zeros per terrain in the default deck
    refused(AllInSight, "Ann play desert 0", "Bob play desert 0", "Ann play desert 0")


def test_a_discarded_pile_card_stays_in_sight() -> None:
    lines = ["Ann play forest 1", "Bob play forest 1", "Ann play forest 3"]  # [2,1,1] discarded
    refused(AllInSight, *lines, "Bob play forest 1")
    assert replay(*lines, "Bob play forest 0")["points"] == 3


def test_the_summary_says_what_the_turn_played_and_what_each_card_would_give() -> None:
    s = replay("Ann play swamp 3")  # swamp pile: [3]; the starter 2 is discarded
    assert s["played"] == {"player": "Ann", "terrain": "swamp", "value": 3}
    swamp = {g["value"]: (g["points"], g["new_pile"], g["tile"]) for g in s["gains"]["swamp"]}
    assert swamp == {0: (3, False, None), 1: (4, False, None), 2: (5, False, None),
                     3: (6, False, None), 4: (4, True, "swamp")}
    forest = {g["value"]: (g["points"], g["new_pile"]) for g in s["gains"]["forest"]}
    assert forest == {0: (2, False), 1: (3, False), 2: (4, False), 3: (3, True), 4: (4, True)}
    assert replay("Ann play swamp 3", "Bob refill 0")["played"] is None


def test_a_card_that_cannot_be_in_a_hand_gains_nothing() -> None:
    s = replay("Ann play desert 0", "Bob play desert 0")
    assert [g["value"] for g in s["gains"]["desert"]] == [1, 2, 3, 4]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.integers(2, 5), st.integers(0, 60))
def test_each_cards_gain_is_what_playing_it_does(seed: int, count: int, steps: int) -> None:
    """The summary's gains (the prompt's richest card too) are read without playing each
    card: every one must be what the card does when it is played, on any position."""
    state, _ = playout(GAME, NAMES[:count], random.Random(seed), steps=steps)
    if state.over or not state.hands[state.turn]:
        return
    who = state.players[state.turn]
    gains = GAME.details(state)["gains"]
    for terrain, kind in enumerate(TERRAINS):
        for gain in gains[kind]:
            after = GAME.apply(state, Line(who, "play", (kind, str(gain["value"]))))
            laid = [name for name, old, new in zip((*TERRAINS, "meadow"), state.tiles, after.tiles,
                                                    strict=True) if new == old - 1]
            assert (gain["points"], gain["tile"], gain["new_pile"]) == (
                after.points, laid[0] if laid else None, after.piles[terrain] == (gain["value"],))
    # The cursor starts on the card worth most points: of two, the first pile's, the higher card.
    most = max(g["points"] for kind in TERRAINS for g in gains[kind])
    terrain = next(t for t, kind in enumerate(TERRAINS) if any(g["points"] == most for g in gains[kind]))
    value = max(g["value"] for g in gains[TERRAINS[terrain]] if g["points"] == most)
    grid = card_grid(state)
    assert grid.start == (terrain + 1, grid.row_words.index(str(value)) + 1)


# --- the end ---


def test_last_lemming_across_wins_at_once_even_in_another_players_turn() -> None:  # [S][D]
    s = replay("Ann refill 0", "Ann finish", "Ann finish")  # Bob's turn
    assert s["over"] and s["winners"] == ["Ann"] and s["next"] is None
    assert GAME.outcome(state_after("Ann refill 0", "Ann finish", "Ann finish")) == Outcome(
        Termination.ALL_ACROSS, ("Ann",))
    assert s["finished"] == {"Ann": 2, "Bob": 0}


def test_nothing_is_accepted_after_the_end() -> None:
    refused(GameOver, "Ann finish", "Ann finish", "Bob refill 0")
    refused(GameOver, "Ann finish", "Ann finish", "Bob finish")


def test_finish_is_for_players_only() -> None:
    refused(NotYourTurn, "table finish")


# --- prompts ---


def answers(state: State) -> list[str]:
    """The ready-made answers' lines."""
    ask = GAME.prompt(state)
    assert ask is not None
    return [str(a.line) for a in ask.answers if isinstance(a, Choice)]


def card_grid(state: State) -> Grid:
    """The prompt's table of the cards to play."""
    ask = GAME.prompt(state)
    assert ask is not None and isinstance(ask.answers[0], Grid) and ask.likely == 0
    return ask.answers[0]


def test_a_card_is_picked_on_a_table_of_the_piles_across_and_the_values_down() -> None:
    grid = card_grid(state_after())
    assert (grid.actor, grid.verb, grid.columns) == ("Ann", "play", TERRAINS)
    assert grid.row_words == ("4", "3", "2", "1", "0")  # rows count up from the foot: 0 at the top
    assert str(grid.line(((3, 2),))) == "Ann play mountain 3"
    assert grid.name((3, 2)) == "mountain 3"
    assert grid.note((3, 2)) == "3 pts\nnew pile\nlay mountain" and grid.note((2, 4)) == "3 pts\njoins"
    assert len(grid.legal) == 25  # every card may be in a hand


def test_the_cursor_starts_on_the_card_worth_most_points() -> None:
    # Water pile 4 4 3 2: the last 2 that may be in a hand joins it for 15 points.
    state = state_after("Ann play water 4", "Bob play water 4", "Cat play water 3", "Ann play water 2",
                        players="Ann Bob Cat")
    grid = card_grid(state)
    assert grid.name(grid.start) == "water 2"
    assert GAME.apply(state, grid.line((grid.start,))).points == 15
    fresh = card_grid(state_after())  # every pile a 2: a 4 anywhere or a 2 joining, 4 points
    assert grid.name(fresh.start) == "forest 4"  # the first of them, the higher card


def test_the_cards_follow_a_custom_deck_and_only_those_that_may_be_in_a_hand_are_marked() -> None:
    options = ("deck 0,2,2,9,9",)
    grid = card_grid(state_after(options=options))
    assert grid.row_words == ("9", "2", "0")
    assert grid.marked(()) == {(c, r) for c in range(1, 6) for r in range(1, 4)}
    with pytest.raises(NotInDeck, match="the deck has no 5"):
        GAME.apply(state_after(options=options), Line.parse("Ann play water 5"))


def test_a_card_that_cannot_exist_is_refused_with_the_reason() -> None:
    state = state_after("Ann play desert 0", "Bob play desert 0")
    grid = card_grid(state)
    assert (5, 5) not in grid.marked(())  # desert 0: both are in sight
    with pytest.raises(AllInSight, match="no desert 0 is left"):
        GAME.apply(state, grid.line(((5, 5),)))


def test_prompt_offers_refills_up_to_the_hand_with_what_they_draw() -> None:
    ask = GAME.prompt(state_after())
    assert ask is not None and ask.actor == "Ann" and ask.topic in GAME.pages
    refills = [(str(a.line), a.label, a.hint) for a in ask.answers if isinstance(a, Choice)]
    assert refills[0] == ("Ann refill 0", "Refill, drop 0", "draw 1")
    assert refills[2] == ("Ann refill 2", "Refill, drop 2", "draw 3")
    assert len(refills) == 6  # Ann holds 5


def test_prompt_offers_no_play_with_an_empty_hand() -> None:
    five = " ".join(NAMES)
    state = state_after("Ann play forest 1", "Bob refill 0", "Cat refill 0", "Dan refill 0",
                        "Eve refill 0", "Ann play forest 1", "Bob refill 0", "Cat refill 0",
                        "Dan refill 0", "Eve refill 0", players=five)
    assert answers(state) == ["Ann refill 0"]


def test_finish_is_an_extra_for_every_player_the_one_who_moved_last_first() -> None:
    ask = GAME.prompt(state_after("Ann finish"))
    assert ask is not None
    assert [(str(e.line), e.hint) for e in ask.extras if isinstance(e, Choice)] == [
        ("Bob finish", "home 1/2"), ("Ann finish", "wins")]
    ask = GAME.prompt(state_after("Ann play forest 1", "Bob refill 0", "Cat play water 2", players="Ann Bob Cat"))
    assert ask is not None  # Cat moved last; then round the table from Ann, whose turn it is
    assert [str(e.line) for e in ask.extras] == ["Cat finish", "Ann finish", "Bob finish"]


def test_pages_mark_the_house_defaults() -> None:
    assert "house default" in GAME.pages["setup"] and "house default" in GAME.pages[""]
    assert all(len(page) < 400 for page in GAME.pages.values())


# --- records.md ---


def test_worked_example() -> None:
    s = replay("Ann play forest 1", "Bob play swamp 3", "Cat refill 1", "Ann finish",
               players="Ann Bob Cat")
    assert s == {**s, "next": "Ann", "tile": "swamp", "points": 3, "draw": 34, "discards": 2,
                 "piles": {"forest": [2, 1], "water": [2], "mountain": [2], "swamp": [3],
                           "desert": [2]},
                 "tiles": {"forest": 3, "water": 3, "mountain": 3, "swamp": 2, "desert": 3,
                           "meadow": 6},
                 "hands": {"Ann": 3, "Bob": 4, "Cat": 6},
                 "finished": {"Ann": 1, "Bob": 0, "Cat": 0}}


# --- invariants ---

DECKS = (DEFAULT_DECK, "0,2,2,2,2", "2,2,2,2,2", "1,2,2,3,3", "0,0,0,2,9,9", "0,0,1,2,3,4,5,6")


def legal_lines(state: State) -> tuple[list[Line], list[Line]]:
    """Every legal required line (each card the form can enter that the rules take), and
    the extras."""
    ask = GAME.prompt(state)
    assert ask is not None
    required: list[Line] = []
    for answer in ask.answers:
        if isinstance(answer, Choice):
            required.append(answer.line)
            continue
        assert isinstance(answer, Grid)
        every = [answer.line(((c, r),)) for c in range(1, answer.cols + 1) for r in range(1, answer.rows + 1)]
        for line in every:
            try:
                GAME.apply(state, line)
            except IllegalLine:
                assert line not in answer.legal
                continue
            assert line in answer.legal
            required.append(line)
    return required, [e.line for e in ask.extras if isinstance(e, Choice)]


@settings(max_examples=150, deadline=None)
@given(count=st.integers(2, 5), deck=st.sampled_from(DECKS),
       picks=st.lists(st.integers(0, 10**6), max_size=250))
def test_cards_are_conserved_and_nothing_goes_negative(count: int, deck: str,
                                                       picks: list[int]) -> None:
    players = NAMES[:count]
    state = GAME.start(players, GAME.option_values({"deck": deck, "lemmings": "3"}))
    cards = len(TERRAINS) * len(deck.split(","))
    for pick in picks:
        if GAME.over(state):
            break
        required, extras = legal_lines(state)
        pool = extras if pick % 40 == 0 else required  # finishes now and then
        state = GAME.apply(state, pool[pick // 40 % len(pool)])
        s = GAME.details(state)
        assert total(s) == cards
        assert all(n >= 0 for n in s["tiles"].values())
        assert all(0 <= n <= 6 for n in s["hands"].values())
        assert s["draw"] >= 0 and s["discards"] >= 0
        for terrain, pile, seen in zip(TERRAINS, state.piles, state.seen):
            assert pile, f"the {terrain} pile is never empty"
            assert list(pile) == sorted(pile, reverse=True)  # each card joins at or below
            assert all(pile.count(v) + seen.count(v) <= state.deck.count(v) for v in state.deck)


@settings(max_examples=60, deadline=None)
@given(count=st.integers(2, 5), deck=st.sampled_from(DECKS),
       picks=st.lists(st.integers(0, 10**6), max_size=120))
def test_the_gains_shown_are_what_each_play_gives(count: int, deck: str, picks: list[int]) -> None:
    """The ``gains`` the piles screen shows: exactly the cards the rules would take now, each
    with the points, new pile and tile that playing it gives."""
    state = GAME.start(NAMES[:count], GAME.option_values({"deck": deck}))
    for pick in picks:
        required, _ = legal_lines(state)
        seat = state.turn
        if state.hands[seat]:
            plays = {(line.args[0], int(line.args[1])): GAME.apply(state, line)
                     for line in required if line.verb == "play"}
            shown = GAME.details(state)["gains"]
            assert set(plays) == {(t, g["value"]) for t in TERRAINS for g in shown[t]}
            for terrain, gains in shown.items():
                for gain in gains:
                    after = plays[terrain, gain["value"]]
                    assert (gain["points"], gain["tile"]) == (after.points, after.tile)
                    assert gain["new_pile"] == (len(after.piles[TERRAINS.index(terrain)]) == 1)
        state = GAME.apply(state, required[pick % len(required)])

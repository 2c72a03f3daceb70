"""The game-record contract of records.md, in-process: common grammar, header, summary keys.

Game-independent: Microbot Racers (exactly 2 players) is the vehicle; other games appear
where the player count or the options matter. The relevant sentences of records.md are
copied next to the tests that prove them (the project's tests never read the spec file).
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import GAMES
from companion.record import (
    Header,
    RecordError,
    Replayed,
    UnreadableRecord,
    format_record,
    replay_bytes,
    replay_text,
    summary,
)
from tests.examples import HEADER, LAP_WIN, ROLL, SPEC_EXAMPLE
from tests.playout import playout

#: Legal after HEADER: Bob rolls lower, so Bob is P1 and picks first.


def refused_at(text: str) -> int:
    """The physical line at which ``text`` is rejected as an illegal record."""
    with pytest.raises(RecordError) as caught:
        replay_text(text)
    assert caught.value.reason.strip(), "an illegal line needs a reason a player understands"
    return caught.value.line


def unreadable(data: bytes) -> str:
    """The message for bytes that are not a record at all (exit 2 in the command)."""
    with pytest.raises(UnreadableRecord) as caught:
        replay_bytes(data)
    return str(caught.value)


def state_of(text: str) -> Any:
    return replay_text(text).state


# --- Common grammar: "UTF-8 text, read whole before replay" ---


def test_utf8_text_beyond_ascii_is_read_in_comments() -> None:
    text = "# Zoë's game — ♟ 日本語 😀\n" + HEADER + ROLL + "Bob pick move-2  # Zoë: ça roule\n"
    assert summary(replay_bytes(text.encode("utf-8")))["next"] == "Ann"


@pytest.mark.parametrize("data", [
    HEADER.encode() + ROLL.encode() + b"# caf\xe9 (Latin-1, not UTF-8)\n",
    b"game microbot-racers\nplayers Ann B\xf6b\n",
    b"\xff" + HEADER.encode(),
    HEADER.encode() + b"table roll 3 2\n\x80",
    HEADER.encode() + b"# \xc0\xaf is an overlong '/'\n",
    HEADER.encode() + b"# \xed\xa0\x80 is an encoded surrogate\n",
    HEADER.encode() + b"# truncated \xe2\x82",
], ids=["latin1-comment", "in-a-name", "first-byte", "last-byte", "overlong", "surrogate",
        "truncated-at-end"])
def test_a_byte_that_is_not_utf8_anywhere_makes_the_record_unreadable(data: bytes) -> None:
    assert "\n" not in unreadable(data)


def test_the_whole_file_is_decoded_before_replay_so_a_bad_byte_beats_an_earlier_illegal_line() -> None:
    data = HEADER.encode() + b"table roll 9 9\n" + b"# \xff\n"
    unreadable(data)


def test_a_byte_order_mark_is_accepted_and_does_not_shift_line_numbers() -> None:
    text = HEADER + ROLL + "Bob pick move-2\n"
    with_bom = b"\xef\xbb\xbf" + text.encode()
    assert replay_bytes(with_bom).state == state_of(text)
    assert refused_at("\ufeff" + HEADER + "table roll 9 9\n") == 3


def test_a_byte_order_mark_is_accepted_before_comments_and_blank_lines() -> None:
    data = b"\xef\xbb\xbf# a record\n\n" + HEADER.encode()
    assert summary(replay_bytes(data))["game"] == "microbot-racers"


def test_a_byte_order_mark_later_in_the_file_is_not_a_separator() -> None:
    assert refused_at(HEADER + "\ufefftable roll 3 2\n") == 3


def test_crlf_line_ends_are_accepted_alone_or_mixed_with_lf() -> None:
    text = HEADER + ROLL + "Bob pick move-2   # P1\n\n"
    lf = state_of(text)
    assert state_of(text.replace("\n", "\r\n")) == lf
    mixed = "game microbot-racers\r\nplayers Ann Bob\ntable roll 3 2\r\nBob pick move-2\n"
    assert state_of(mixed) == lf


def test_the_last_line_may_end_without_a_line_end() -> None:
    assert state_of(HEADER + "table roll 3 2") == state_of(HEADER + ROLL)


# --- "Only LF and CR-LF end a line" ---


def test_a_lone_cr_inside_a_line_is_not_a_line_end_and_is_refused() -> None:
    assert refused_at(HEADER + "table roll 3 2\rBob pick move-2\n") == 3


def test_a_lone_cr_at_the_end_of_the_file_is_not_a_line_end_and_is_refused() -> None:
    assert refused_at(HEADER + "table roll 3 2\r") == 3


def test_a_cr_before_a_crlf_is_a_lone_cr_and_is_refused() -> None:
    assert refused_at(HEADER + "table roll 3 2\r\r\n") == 3


def test_a_lone_cr_in_a_comment_does_not_start_a_new_line() -> None:
    text = HEADER + "# one line\ronly\n" + "table roll 3 +2\n"
    assert refused_at(text) == 4


def test_a_file_with_cr_only_line_ends_has_no_game_line_that_names_a_known_game() -> None:
    unreadable((HEADER + ROLL).replace("\n", "\r").encode())


@pytest.mark.parametrize("char", ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c"],
                         ids=["LS", "PS", "NEL", "VT", "FF", "FS"])
def test_other_unicode_line_breaks_do_not_end_a_line(char: str) -> None:
    assert refused_at(HEADER + "table roll 3 2" + char + "Bob pick move-2\n") == 3
    assert refused_at(HEADER + "# a comment" + char + "still the comment\ntable roll +3 2\n") == 4


# --- "`#` starts a comment to the end of the line. Blank lines are ignored." ---


@pytest.mark.parametrize("text", [
    "# a record\ngame microbot-racers\nplayers Ann Bob\ntable roll 3 2\n",
    "game microbot-racers # the race\nplayers Ann Bob # seats\ntable roll 3 2 # dice\n",
    "game microbot-racers#x\nplayers Ann Bob#Cat\ntable roll 3 2#4 5\n",
    "game microbot-racers\nplayers Ann Bob\n   # indented\n\t# tabbed\ntable roll 3 2 ## # ###\n",
    "game microbot-racers\nplayers Ann Bob\n# table roll 9 9 is not read\ntable roll 3 2\n# end",
], ids=["own-line", "after-tokens", "no-space-before-hash", "indented-and-repeated", "commented-out-action"])
def test_a_hash_starts_a_comment_anywhere_on_a_line(text: str) -> None:
    assert state_of(text) == state_of(HEADER + ROLL)


def test_a_comment_on_an_option_line_is_not_part_of_the_value() -> None:
    commented = HEADER + "option laps 2# two laps\n"
    assert replay_text(commented).header.options == (("laps", "2"),)


def test_blank_and_whitespace_only_lines_are_ignored_everywhere() -> None:
    text = ("\n \n\t\ngame microbot-racers\n\n  \t \nplayers Ann Bob\n\n"
            "option laps 2\n \ntable roll 3 2\n\n\n")
    plain = HEADER + "option laps 2\n" + ROLL
    assert state_of(text) == state_of(plain)


# --- "Tokens are separated by spaces or tabs." ---


def test_spaces_and_tabs_in_any_mix_and_number_separate_tokens() -> None:
    text = ("\tgame \t microbot-racers  \nplayers\tAnn\t\tBob\n"
            "  table   roll\t3 \t2\t \n\t Bob\tpick  move-2 \n")
    assert state_of(text) == state_of(HEADER + ROLL + "Bob pick move-2\n")


@pytest.mark.parametrize("space", ["\xa0", "\u3000", "\u2003", "\x0b", "\x0c", "\u200b"],
                         ids=["nbsp", "ideographic", "em-space", "VT", "FF", "zero-width"])
def test_other_whitespace_does_not_separate_tokens(space: str) -> None:
    assert refused_at(HEADER + f"table roll 3{space}2\n") == 3


# --- "Keywords are lower case." ---


@pytest.mark.parametrize("text", [
    "Game microbot-racers\nplayers Ann Bob\n",
    "GAME microbot-racers\nplayers Ann Bob\n",
    "game Microbot-Racers\nplayers Ann Bob\n",
])
def test_an_upper_case_game_keyword_or_id_is_no_game_line(text: str) -> None:
    unreadable(text.encode())


@pytest.mark.parametrize("line, text", [
    (2, "game microbot-racers\nPlayers Ann Bob\n"),
    (3, HEADER + "Option laps 2\n"),
    (3, HEADER + "option Laps 2\n"),
    (3, HEADER + "option side Hard\n"),
    (3, HEADER + "Table roll 3 2\n"),
    (3, HEADER + "table Roll 3 2\n"),
    (4, HEADER + ROLL + "Bob PICK move-2\n"),
    (4, HEADER + ROLL + "Bob pick Move-2\n"),
], ids=["Players", "Option", "Laps", "Hard", "Table", "Roll", "PICK", "Move-2"])
def test_keywords_in_any_other_case_are_refused(line: int, text: str) -> None:
    assert refused_at(text) == line


# --- "Numbers are ASCII digits (leading zeros allowed; no sign)." ---


@pytest.mark.parametrize("faces", ["03 2", "3 02", "003 0002", "0003 00000000002"])
def test_numbers_may_have_leading_zeros(faces: str) -> None:
    assert state_of(HEADER + f"table roll {faces}\n") == state_of(HEADER + ROLL)


@pytest.mark.parametrize("face", ["+3", "-3", "３", "٣", "३", "³", "3.0", "0x3", "3_0", "1e0", "III"],
                         ids=["plus", "minus", "fullwidth", "arabic-indic", "devanagari",
                              "superscript", "decimal", "hex", "underscore", "exponent", "roman"])
def test_a_die_face_that_is_not_ascii_digits_is_refused(face: str) -> None:
    assert refused_at(HEADER + f"table roll {face} 2\n") == 3


def test_an_option_number_may_have_leading_zeros() -> None:
    assert state_of(HEADER + "option laps 02\n") == state_of(HEADER + "option laps 2\n")


@pytest.mark.parametrize("value", ["+2", "２", "-2", "2.0"])
def test_an_option_number_with_a_sign_or_non_ascii_digits_is_refused(value: str) -> None:
    assert refused_at(HEADER + f"option laps {value}\n") == 3


# --- "A line with extra tokens is illegal." ---


@pytest.mark.parametrize("line, text", [
    (1, "game microbot-racers racing\nplayers Ann Bob\n"),
    (3, HEADER + "option laps 2 3\n"),
    (3, HEADER + "table roll 3 2 1\n"),
    (4, HEADER + ROLL + "Bob pick move-2 move-3\n"),
    (4, HEADER + ROLL + "Bob pass now\n"),
], ids=["game", "option", "roll", "pick", "pass"])
def test_a_line_with_extra_tokens_is_illegal(line: int, text: str) -> None:
    assert refused_at(text) == line


def test_an_option_line_without_a_value_is_illegal() -> None:
    assert refused_at(HEADER + "option laps\n") == 3


# --- "Lines are counted physically" ---


@pytest.mark.parametrize("text, line", [
    (HEADER + "table roll 9 2\n", 3),
    ("# header\n\ngame microbot-racers\n\n# seats\nplayers Ann Bob\n\n\n# go\ntable roll 9 2\n", 10),
    ("\r\n# header\r\ngame microbot-racers\r\n\r\nplayers Ann Bob\r\n\r\ntable roll 9 2\r\n", 7),
    ("\ufeff\n\ngame microbot-racers\nplayers Ann Bob\n" + ROLL + "\n \n\t\n# x\nBob pick move-9\n", 10),
], ids=["plain", "comments-and-blanks", "crlf", "bom"])
def test_lines_are_counted_physically_with_comments_and_blank_lines(text: str, line: int) -> None:
    assert refused_at(text) == line


def test_the_first_illegal_line_rejects_the_whole_record() -> None:
    assert refused_at(HEADER + "table roll 9 2\n" + "table roll 8 2\n") == 3


# --- Header: "`game ID`, the first non-blank, non-comment line" ---

#: Each game ID of records.md with a legal player count (leaf 2-4, penguin 2-5,
#: microbot exactly 2, gleebs exactly 2, quick 2-5).
SPEC_GAMES = {
    "leaf-climbers": (2, 4),
    "penguin-panic": (2, 5),
    "microbot-racers": (2, 2),
    "gleebs-and-grues": (2, 2),
    "quick-lemmings": (2, 5),
}
NAMES = ("Ann", "Bob", "Cat", "Dan", "Eve", "Fay")


def players(count: int) -> str:
    return "players " + " ".join(NAMES[:count])


@pytest.mark.parametrize("game_id", SPEC_GAMES)
def test_every_game_id_of_the_spec_is_known(game_id: str) -> None:
    replayed = replay_text(f"game {game_id}\n{players(2)}\n")
    assert summary(replayed)["game"] == game_id


def test_the_registry_holds_exactly_the_games_of_the_spec() -> None:
    assert set(GAMES) == set(SPEC_GAMES)


@pytest.mark.parametrize("game_id, count", [
    (game, count) for game, (low, high) in SPEC_GAMES.items() for count in (low, high)
])
def test_the_smallest_and_largest_player_counts_are_accepted(game_id: str, count: int) -> None:
    assert summary(replay_text(f"game {game_id}\n{players(count)}\n"))["players"] == list(NAMES[:count])


@pytest.mark.parametrize("game_id, count", [
    (game, count) for game, (low, high) in SPEC_GAMES.items() for count in (1, high + 1)
])
def test_a_player_count_the_game_does_not_allow_is_illegal_at_the_players_line(game_id: str, count: int) -> None:
    assert refused_at(f"# seats\ngame {game_id}\n\n{players(count)}\n") == 4


def test_a_players_line_with_no_names_is_illegal() -> None:
    assert refused_at("game microbot-racers\nplayers\n") == 2


def test_comments_and_blank_lines_may_come_before_the_game_line() -> None:
    assert summary(replay_text("# Tuesday\n\n  \n# race\n" + HEADER))["game"] == "microbot-racers"


@pytest.mark.parametrize("data", [
    b"",
    b"\xef\xbb\xbf",
    b"\n\n   \n",
    b"# only a comment\n",
    b"players Ann Bob\ngame microbot-racers\n",
    b"table roll 3 2\n",
    b"game\nplayers Ann Bob\n",
    b"game  # microbot-racers\nplayers Ann Bob\n",
], ids=["empty", "bom-only", "blank-only", "comment-only", "players-first", "action-first",
        "game-without-id", "id-in-comment"])
def test_a_record_without_a_game_line_is_unreadable(data: bytes) -> None:
    assert "\n" not in unreadable(data)


@pytest.mark.parametrize("game_id", ["chess", "microbot_racers", "microbot-racer", "leaf-climbers-2"])
def test_a_game_line_naming_no_known_game_is_unreadable(game_id: str) -> None:
    assert "\n" not in unreadable(f"game {game_id}\nplayers Ann Bob\n".encode())


def test_an_unknown_game_with_extra_tokens_is_still_unreadable() -> None:
    unreadable(b"game chess classic\nplayers Ann Bob\n")


def test_a_known_game_with_extra_tokens_is_illegal_at_its_physical_line() -> None:
    assert refused_at("# a race\n\ngame microbot-racers 2\nplayers Ann Bob\n") == 3


@pytest.mark.parametrize("text, line", [
    ("game microbot-racers\ngame microbot-racers\nplayers Ann Bob\n", 2),
    ("game microbot-racers\ngame leaf-climbers\nplayers Ann Bob\n", 2),
    (HEADER + "game microbot-racers\n", 3),
    (HEADER + "option laps 2\n\ngame microbot-racers\n", 5),
    (HEADER + ROLL + "game microbot-racers\n", 4),
], ids=["twice-at-once", "another-game", "after-players", "after-options", "after-an-action"])
def test_a_repeated_game_line_is_illegal_at_its_line(text: str, line: int) -> None:
    assert refused_at(text) == line


# --- Header: "`players NAME NAME ...`, exactly once: in seat order" ---


@pytest.mark.parametrize("text, line", [
    (HEADER + "players Ann Bob\n", 3),
    (HEADER + "# again\nplayers Cat Dan\n", 4),
    (HEADER + "option laps 2\nplayers Ann Bob\n", 4),
    (HEADER + ROLL + "players Ann Bob\n", 4),
], ids=["same-names", "other-names", "after-an-option", "after-an-action"])
def test_a_second_players_line_is_illegal_at_its_line(text: str, line: int) -> None:
    assert refused_at(text) == line


def test_players_are_listed_in_seat_order_which_is_the_starting_turn_order() -> None:
    replayed = replay_text("game leaf-climbers\nplayers Dan Ann Cat\n")
    assert summary(replayed)["players"] == ["Dan", "Ann", "Cat"]
    roll = replay_text("game leaf-climbers\nplayers Dan Ann Cat\ntable drop 1\ntable leaf 1 1\n")
    assert summary(roll)["next"] == "Dan"


@pytest.mark.parametrize("name", ["A", "7", "-", "_", "abcdefghijkl", "ABCDEFGHIJKL",
                                  "0123456789-_", "Mary-Jo_2", "007", "Table", "GAME", "Players",
                                  "Option", "tables", "gamer"])
def test_a_name_of_1_to_12_letters_digits_dashes_and_underscores_is_valid(name: str) -> None:
    assert summary(replay_text(f"game microbot-racers\nplayers {name} Bob\n"))["players"] == [name, "Bob"]


@pytest.mark.parametrize("name", ["abcdefghijklm", "Zoë", "Ann!", "Ann.B", "Ann'", "Ann/Bob", "Ａnn",
                                  "Ann,Bob", "ß", "Ann+"])
def test_a_name_too_long_or_with_other_characters_is_illegal_at_the_players_line(name: str) -> None:
    assert refused_at(f"game microbot-racers\n\nplayers {name} Bob\n") == 3


@pytest.mark.parametrize("word", ["game", "players", "option", "table"])
def test_the_lower_case_reserved_words_are_not_names(word: str) -> None:
    assert refused_at(f"game microbot-racers\nplayers Ann {word}\n") == 2


def test_names_must_be_unique_in_the_game() -> None:
    assert refused_at("game penguin-panic\nplayers Ann Bob Ann\n") == 2


def test_names_are_case_sensitive() -> None:
    text = "game microbot-racers\nplayers Ann ann\ntable roll 3 2\n"
    assert summary(replay_text(text))["next"] == "ann"
    assert refused_at(text + "ANN pick move-2\n") == 4
    assert refused_at(text + "Ann pick move-2\n") == 4  # not Ann's pick: ann is P1
    assert summary(replay_text(text + "ann pick move-2\n"))["next"] == "Ann"


def test_an_actor_that_is_not_a_player_or_table_is_illegal() -> None:
    assert refused_at(HEADER + "Cat roll 3 2\n") == 3


# --- Header: "`option KEY VALUE`, zero or more, after `players`, each key at most once" ---


def test_options_come_after_players_and_each_key_once() -> None:
    replayed = replay_text(HEADER + "option laps 2\n# the hard side\noption side hard\n")
    assert replayed.header.options == (("laps", "2"), ("side", "hard"))


def test_options_change_the_game_that_is_replayed() -> None:
    one_lap = HEADER + "option laps 1\ntable roll 3 2\n" + "".join(
        f"{line}\n" for line in ("Bob pick move-2", "Ann pick move-3", "Ann pass", "Bob pass",
                                 "Bob pass", "Ann pass", "Ann do move-3", "Ann lap"))
    assert summary(replay_text(one_lap))["winners"] == ["Ann"]
    assert summary(replay_text(one_lap.replace("laps 1", "laps 2")))["over"] is False


@pytest.mark.parametrize("text, line", [
    ("game microbot-racers\noption laps 2\nplayers Ann Bob\n", 2),
    ("game microbot-racers\n# laps\noption laps 2\n", 3),
], ids=["then-players", "no-players"])
def test_an_option_before_players_is_illegal_at_its_line(text: str, line: int) -> None:
    assert refused_at(text) == line


@pytest.mark.parametrize("second", ["option laps 2", "option laps 3", "option laps 02"])
def test_an_option_key_given_twice_is_illegal_at_the_second(second: str) -> None:
    assert refused_at(HEADER + "option laps 2\noption side hard\n" + second + "\n") == 5


@pytest.mark.parametrize("option", ["option lap 2", "option colours a,b,c,d,e", "option first Ann",
                                     "option LAPS 2", "option 2 laps"])
def test_an_unknown_option_key_is_illegal(option: str) -> None:
    assert refused_at(HEADER + "\n" + option + "\n") == 4


def test_a_game_without_options_refuses_every_option() -> None:
    assert refused_at("game leaf-climbers\nplayers Ann Bob\noption laps 2\n") == 3


@pytest.mark.parametrize("option", ["option laps 0", "option laps 10", "option laps two",
                                    "option side medium", "option side EASY"])
def test_a_bad_option_value_is_illegal_at_its_line(option: str) -> None:
    assert refused_at(HEADER + option + "\n") == 3


def test_an_option_value_that_names_no_player_is_illegal_at_the_option_line() -> None:
    header = "game gleebs-and-grues\nplayers Ann Bob\noption first Zed\n"
    assert refused_at(header) == 3
    assert refused_at(header + "table grues b2 c3 d4\n") == 3


def test_an_option_value_naming_a_player_is_accepted() -> None:
    text = "game gleebs-and-grues\nplayers Ann Bob\noption first Bob\ntable grues b2 c3 d4\n"
    assert summary(replay_text(text))["next"] == "Bob"


@pytest.mark.parametrize("header_line", ["players Ann Bob", "option laps 2", "game microbot-racers"])
def test_a_header_line_after_an_action_is_illegal_at_its_line(header_line: str) -> None:
    assert refused_at(HEADER + ROLL + "# more header\n" + header_line + "\n") == 5


# --- "a record with no `players` line is illegal at its first action line,
#      or at the file's last line if it has none" ---


@pytest.mark.parametrize("text, line", [
    ("game microbot-racers\ntable roll 3 2\n", 2),
    ("game microbot-racers\n\n# no seats\n\ntable roll 3 2\nBob pick move-2\n", 5),
    ("game microbot-racers\nAnn pick move-2\n", 2),
], ids=["right-after-game", "after-comments", "player-action"])
def test_no_players_line_is_illegal_at_the_first_action_line(text: str, line: int) -> None:
    assert refused_at(text) == line


@pytest.mark.parametrize("text, line", [
    ("game microbot-racers", 1),
    ("game microbot-racers\n", 1),
    ("game microbot-racers\r\n", 1),
    ("game microbot-racers\n# no seats", 2),
    ("game microbot-racers\n# no seats\n", 2),
    ("game microbot-racers\n\n", 2),
    ("game microbot-racers\n\n\n", 3),
    ("game microbot-racers\n \n\t", 3),
    ("# a\n\ngame microbot-racers\n# b\n\n# c\n", 6),
    ("game microbot-racers\r\n\r\n# x\r\n", 3),
], ids=["no-line-end", "lf", "crlf", "comment-no-line-end", "comment", "blank", "two-blanks",
        "whitespace-no-line-end", "comments-around", "crlf-blank-comment"])
def test_no_players_line_and_no_action_is_illegal_at_the_files_last_line(text: str, line: int) -> None:
    assert refused_at(text) == line


# --- Summary: the common keys ---


def test_a_record_with_only_a_header_summarises_the_start() -> None:
    got = summary(replay_text(HEADER))
    assert {k: got[k] for k in ("game", "players", "over", "winners", "next")} == {
        "game": "microbot-racers", "players": ["Ann", "Bob"], "over": False, "winners": [],
        "next": "table"}


def test_players_stay_in_seat_order_when_the_turn_order_changes() -> None:
    got = summary(replay_text(HEADER + ROLL))
    assert got["players"] == ["Ann", "Bob"]
    assert got["next"] == "Bob"  # Bob rolled lower: Bob is P1 and picks first




def test_next_names_the_actor_of_the_next_required_line_not_an_optional_one() -> None:
    lines = SPEC_EXAMPLE.splitlines(keepends=True)
    # After "Ann do move-3" a hazard is optional; the required line is Bob's action.
    assert summary(replay_text("".join(lines[:11])))["next"] == "Bob"
    # A hazard's check is required before any other line.
    assert summary(replay_text("".join(lines[:12])))["next"] == "Ann"
    # At the end of the turn a privilege claim is optional; the roll is required.
    assert summary(replay_text(SPEC_EXAMPLE))["next"] == "table"


def test_a_game_in_progress_is_not_over_and_has_no_winners() -> None:
    got = summary(replay_text(SPEC_EXAMPLE))
    assert (got["over"], got["winners"]) == (False, [])



DRAW = """\
game microbot-racers
players Ann Bob
option laps 5
table roll 3 5
Ann pick move-3
Bob pick move-2
Bob pick move-1
Ann pick drift-left
Ann pick turn-right
Bob pass
Bob do move-2
Bob impact robot
Ann do move-3
Ann hazard
Ann roll 6
Ann hazard
Ann roll 4
Ann do drift-left
Ann do turn-right
Ann first
Bob first
table roll 4 1
Bob pick move-2
Ann pick move-3
Ann pick repair
Bob pick drift-right
Bob pick move-1
Ann pick drift-left
Ann do move-3
Ann impact block
Bob do move-2
Bob hazard
Bob roll 6
Bob do drift-right
Bob hazard
Bob roll 5
Bob do move-1
table roll 2 5
Ann pick move-2
Bob pick move-3
Bob pick turn-left
Ann pick turn-right
Ann pass
Bob pass
Bob do move-3
Bob hazard
Bob roll 6
Bob impact block
Ann do move-2
Ann hazard
Ann roll 2
Ann impact robot     # both destroyed together: a draw
"""


def test_a_won_game_is_over_with_its_winner_and_no_next_actor() -> None:
    got = summary(replay_text(LAP_WIN))
    assert (got["over"], got["winners"], got["next"]) == (True, ["Ann"], None)


def test_a_game_nobody_wins_is_over_with_no_winners_and_no_next_actor() -> None:
    got = summary(replay_text(DRAW))
    assert (got["over"], got["winners"], got["next"]) == (True, [], None)


def test_an_action_line_after_the_game_is_over_is_illegal() -> None:
    assert refused_at(LAP_WIN + "# too late\ntable roll 3 2\n") == 14


def test_the_summary_is_a_json_object_and_survives_a_json_round_trip() -> None:
    got = summary(replay_text(SPEC_EXAMPLE))
    assert json.loads(json.dumps(got)) == got


# --- Formatting and parsing round-trip, over every registered game ---

PLAYER_NAME = st.from_regex(r"[A-Za-z0-9_-]{1,12}", fullmatch=True).filter(
    lambda n: n not in {"game", "players", "option", "table"})


@st.composite
def played(draw: st.DrawFn, game_id: str) -> tuple[Header, list[Any], Any]:
    """A random header (names, count, options) and a random legal playout of it."""
    game = GAMES[game_id]
    count = draw(st.integers(game.min_players, game.max_players))
    names = tuple(draw(st.lists(PLAYER_NAME, min_size=count, max_size=count, unique=True)))
    options: list[tuple[str, str]] = []
    for key, spec in game.options.items():
        values = spec.choices or ((spec.default,) if spec.default else ())
        if values and draw(st.booleans()):
            options.append((key, draw(st.sampled_from(values))))
    seed = draw(st.integers(0, 2**32 - 1))
    steps = draw(st.integers(0, 400))
    state, lines = playout(game, names, random.Random(seed), steps=steps, options=dict(options))
    return Header(game, names, tuple(options)), lines, state


def decorate(text: str, rng: random.Random) -> str:
    """The same record as a person might type it: BOM, CR-LF, tabs, comments, blank lines."""
    out = ["\ufeff"] if rng.random() < 0.5 else []
    end = "\r\n" if rng.random() < 0.5 else "\n"
    for line in text.splitlines():
        if rng.random() < 0.2:
            out.append(rng.choice(["", "  ", "\t", "# a note", " \t# indented note"]) + end)
        gaps = [rng.choice([" ", "  ", "\t", " \t "]) for _ in line.split(" ")]
        line = "".join(gap + word for gap, word in zip(gaps, line.split(" ")))
        out.append(line + rng.choice(["", " ", "\t", "  # note", "#x"]) + end)
    return "".join(out)


@pytest.mark.parametrize("game_id", sorted(GAMES))
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_a_formatted_record_replays_to_the_same_state_and_formats_back_to_the_same_text(
        game_id: str, data: st.DataObject) -> None:
    header, lines, state = data.draw(played(game_id))
    text = format_record(header, lines)
    replayed = replay_text(text)
    assert replayed.state == state
    assert replayed.header == header
    assert list(replayed.actions) == lines
    assert format_record(replayed.header, replayed.actions) == text
    assert replay_bytes(text.encode("utf-8")).state == state


@pytest.mark.parametrize("game_id", sorted(GAMES))
@settings(max_examples=15, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_a_hand_typed_record_replays_like_its_formatted_text_and_formats_to_it(
        game_id: str, data: st.DataObject, seed: int) -> None:
    header, lines, state = data.draw(played(game_id))
    text = format_record(header, lines)
    typed: Replayed = replay_bytes(decorate(text, random.Random(seed)).encode("utf-8"))
    assert typed.state == state
    assert format_record(typed.header, typed.actions) == text


@pytest.mark.parametrize("game_id", sorted(GAMES))
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_the_common_summary_keys_hold_at_every_point_of_every_game(game_id: str, data: st.DataObject) -> None:
    header, lines, _state = data.draw(played(game_id))
    got = summary(replay_text(format_record(header, lines)))
    assert json.loads(json.dumps(got)) == got
    assert got["game"] == game_id
    assert got["players"] == list(header.players)
    assert isinstance(got["over"], bool)
    assert got["winners"] == [name for name in header.players if name in got["winners"]]
    if got["over"]:
        assert got["next"] is None
    else:
        assert got["winners"] == []
        assert got["next"] == "table" or got["next"] in header.players

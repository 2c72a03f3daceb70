"""Microbot Racers results in words: what one confirmed entry did, read from the change of
state, most important first (the game kit's ``events``; :func:`companion.games.results`
says the end of the game before them).

>>> from companion.games.microbot_racers import MicrobotRacers
>>> game = MicrobotRacers()
>>> s = game.start(("Ann", "Bob"), game.option_values({}))
>>> after = game.apply(s, Line("table", "roll", ("5", "2")))
>>> events(s, after, [Line("table", "roll", ("5", "2"))])
('Bob is P1: Ann 5, Bob 2',)
"""

from __future__ import annotations

from collections.abc import Sequence

from companion.games.base import TABLE, Line
from companion.games.microbot_racers import Loss, State, kind


def events(before: State, after: State, lines: Sequence[Line]) -> tuple[str, ...]:
    """The entry's results: what the line did, with the picks it lost."""
    line = lines[-1]
    # A pick lost for a rule (no run-up) is news the player must see, before what they did;
    # one lost because the robot stopped follows the impact or the roll that stopped it.
    said = [*lost_picks(before, after, line, ruled=True),
            *what(before, after, lines), *lost_picks(before, after, line, ruled=False)]
    if before.phase != "done" and after.phase == "done":
        said.append(f"turn {after.turn} over")
    return tuple(said)


def what(before: State, after: State, lines: Sequence[Line]) -> list[str]:
    """What the entry's own line did."""
    line = lines[-1]
    names = before.players
    seat = names.index(line.actor) if line.actor != TABLE else -1
    name = line.actor
    if line.actor == TABLE:
        return first_roll(before, lines)
    robot = after.robots[seat]
    if before.check:  # the roll of a pending check
        face = line.args[0]
        failed = robot.health < before.robots[seat].health
        if before.check in ("hazard", "puddle"):
            return [f"{name} {face}: {before.check} failed, health {robot.health}" if failed
                    else f"{name} {face}: {before.check} passed"]
        return [f"{name} {face}: jump failed, health {robot.health}" if failed
                else f"{name} {face}: jump landed"]
    if line.verb == "first":
        if len(after.claims) > 1:
            return ["both took P1: both lose it, roll"]
        return [f"{name} is P1 (privilege used)"]
    if line.verb in ("pick", "pass"):
        said = [f"{name} picks {line.args[0]}" if line.verb == "pick" else f"{name} passes"]
        if before.phase == "pick" and after.phase == "do":
            said.append(f"{names[after.to_act]} acts first")
        return said
    if line.verb == "do":
        return [doing(before, after, line)]
    if line.verb == "hazard":
        need = robot.health - 1
        what_for = "on a puddle" if after.check == "puddle" else "hazard"
        return [f"{name}: {what_for}, 1-{need} is safe" if need else f"{name}: {what_for}, cannot pass"]
    if line.verb == "switch":
        return [f"{name} hit a switch: the track changes"]
    if line.verb == "lap":
        return [f"{name}: lap {robot.laps} of {after.laps}"]
    other = after.robots[1 - seat]
    if line.args[0] == "robot":
        return [f"{name} hit {names[1 - seat]}: health {robot.health} and {other.health}"]
    return [f"{name} hit a block: health {robot.health}"]


def first_roll(before: State, lines: Sequence[Line]) -> list[str]:
    """``Bob is P1: Ann 5, Bob 2``, after any ties rolled in the same press."""
    names = before.players
    a, b = lines[-1].args
    faces = f"{names[0]} {a}, {names[1]} {b}"
    if a == b:
        return [f"a tie: {faces}, roll again"]
    said = [f"{names[0] if int(a) < int(b) else names[1]} is P1: {faces}"]
    ties = len(lines) - 1
    if ties:
        said.append("after a tie" if ties == 1 else f"after {ties} ties")
    return said


def doing(before: State, after: State, line: Line) -> str:
    """``Ann repairs: health 6``; ``Ann jumps: 1-3 lands``; ``Ann does move-3``."""
    seat = before.players.index(line.actor)
    action = line.args[0]
    health = after.robots[seat].health
    if line.args == ("repair", "pit"):
        return f"{line.actor} pit stop: health {health}"
    if action == "repair":
        return f"{line.actor} repairs: health {health}"
    if kind(action) == "jump":
        need = health - 2
        return f"{line.actor} jumps: 1-{need} lands" if need > 0 else f"{line.actor} jumps: cannot land"
    return f"{line.actor} does {action}"


#: Why picks were lost, as a result says it (the rules page and a refusal say it in full);
#: "" where the entry itself told it (the robot stopped: an impact, a failed roll).
WHY = {Loss.NO_MOVE_YET: "no run-up", Loss.AFTER_TURN: "no run-up", Loss.AFTER_DRIFT: "no run-up",
       Loss.AFTER_JUMP: "no run-up", Loss.DRIFT_AGAIN: "too soon",
       Loss.BLOCK: "", Loss.ROBOT: "", Loss.MISSED: ""}


def lost_picks(before: State, after: State, line: Line, ruled: bool) -> list[str]:
    """Picks forfeited by this entry, and why: ``jump-2 forfeited: no run-up``; another
    player's with the name (``Ann's jump-2 ...``); several of one kind by the kind
    (``drifts forfeited: too soon``), which keeps two lines enough. ``ruled``: those lost
    for a rule, else those lost because the robot stopped."""
    said = []
    new = after.lost[len(before.lost):] if after.turn == before.turn else after.lost
    for seat, name in enumerate(before.players):
        lost = [(action, why) for who, action, why in new if who == seat]
        whose = "" if line.actor == name else f"{name}'s "
        reasons = (why for _, why in lost if bool(WHY[why]) == ruled)
        for why in dict.fromkeys(reasons):  # one event a reason, in order
            actions = [action for action, reason in lost if reason == why]
            kinds = {kind(action) for action in actions}
            named = f"{kinds.pop()}s" if len(actions) > 1 and len(kinds) == 1 else ", ".join(actions)
            said.append(f"{whose}{named} forfeited" + (f": {WHY[why]}" if WHY[why] else ""))
    return said

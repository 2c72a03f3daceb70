"""A plain reference engine for Microbot Racers records: the yardstick of ``companion replay``.

Not part of the companion. ``companion bench`` runs it beside ``companion replay`` on the same
10,000-line record, each as a whole process, to show what replay costs over the plainest
program that does the same job: read the record, check every line with the same rules
(records.md ``microbot-racers``), keep the state, and print the same summary JSON.

What makes it plain: one file, the standard library only (json, sys), mutable lists and
ints for the state, one function per verb, the whole file read and split at once. What it
leaves out, and the companion must not: the 16 MiB cap, the physical-line bookkeeping of
odd line ends and byte-order marks, long-line limits, other games, readable refusals for
every kind of bad word (a bad number here is just "bad number"). A legal record gives the
same summary as ``companion replay``; an illegal one gives ``FILE:LINE: reason`` and exit 1.

    python companion/benchdata/reference_replay.py RECORD

It ships with the package (as data, beside the benchmark's records), so that ``companion
bench`` run from an installed copy compares with it too.
"""

import json
import sys

EASY = ["move-1", "move-2", "move-3", "drift-left", "drift-right", "turn-left", "turn-right",
        "repair"]
SIDES = {"easy": EASY, "hard": EASY + ["jump-2", "jump-3"]}
PICK_ORDER = (0, 1, 1, 0, 0, 1)
DURING = ("hazard", "impact", "lap", "switch")


class Illegal(Exception):
    pass


def die(word):
    if not (word.isascii() and word.isdigit()) or not 1 <= int(word) <= 6:
        raise Illegal("a die face must be 1-6")
    return int(word)


def kind(action):
    return action.split("-", 1)[0]


class Race:
    def __init__(self, players, laps, side):
        self.players, self.laps_to_win, self.side = players, laps, side
        self.health, self.laps = [6, 6], [0, 0]
        self.privilege, self.last = [True, True], ["", ""]
        self.may_drift, self.left = [True, True], [[], []]
        self.turn, self.phase, self.p1, self.rolled = 1, "first", None, False
        self.claims, self.picks, self.to_act = [], [], 1
        self.acting, self.action, self.halted, self.lapped = None, "", False, False
        self.check, self.switch, self.winner = "", "", None

    def can_do(self, seat, action):
        if kind(action) == "jump":
            return self.last[seat] == "move"
        return self.may_drift[seat] if kind(action) == "drift" else True

    def may_claim(self, seat):
        if not self.privilege[seat]:
            return False
        if self.phase == "done":
            return True
        if self.rolled or self.picks:
            return False
        return self.phase == "first" or (self.phase == "pick" and len(self.claims) == 1)

    def picker(self):
        return self.p1 if PICK_ORDER[len(self.picks)] == 0 else 1 - self.p1

    def apply(self, actor, verb, args):
        if self.phase == "over":
            raise Illegal("the race is over")
        seat = -1 if actor == "table" else self.players.index(actor)
        if self.check:
            roller = 1 - self.acting if self.check == "puddle" else self.acting
            if verb != "roll" or seat != roller:
                raise Illegal(f"{self.players[roller]} must roll for the {self.check} first")
            self.roll_check(roller, args)
        elif verb in DURING and self.acting is not None:
            self.during(seat, verb, args)
        else:
            if self.phase == "done" and verb in ("roll", "first"):
                self.turn += 1
                self.phase, self.p1, self.rolled, self.claims, self.picks = "first", None, False, [], []
                self.acting, self.action, self.halted, self.lapped, self.switch = None, "", False, False, ""
            if verb == "roll":
                self.first_roll(seat, args)
            elif verb == "first":
                self.claim(seat, args)
            elif verb in ("pick", "pass"):
                self.pick(seat, verb, args)
            elif verb == "do":
                self.do(seat, args)
            else:
                raise Illegal(f"{verb!r} is not a Microbot Racers action now")
        self.settle()

    def first_roll(self, seat, args):
        if seat != -1 or self.phase != "first" or len(args) != 2:
            raise Illegal("the first-player roll is 'table roll A B', before any pick")
        a, b = die(args[0]), die(args[1])
        self.rolled = True
        if a != b:
            self.p1, self.phase = (0 if a < b else 1), "pick"

    def claim(self, seat, args):
        if args or seat == -1 or not self.may_claim(seat):
            raise Illegal("no take-P1 privilege now")
        self.privilege[seat] = False
        if self.claims:
            self.claims.append(seat)
            self.p1, self.phase = None, "first"
        else:
            self.claims, self.p1, self.phase = [seat], seat, "pick"

    def pick(self, seat, verb, args):
        if self.phase != "pick" or seat != self.picker():
            raise Illegal("not this player's pick now")
        if verb == "pass":
            if args:
                raise Illegal("write it as 'NAME pass'")
            self.picks.append((seat, "pass"))
            return
        if len(args) != 1 or args[0] not in SIDES[self.side]:
            raise Illegal("not an action on this side of the card")
        action = args[0]
        if any(taken == action for _, taken in self.picks):
            raise Illegal(f"{action} already holds a marker this turn")
        if kind(action) == "move" and int(action[-1]) > self.health[seat]:
            raise Illegal(f"{action} is longer than the robot's health")
        self.left[seat].append(action)
        self.picks.append((seat, action))

    def do(self, seat, args):
        if self.phase != "do" or seat != self.to_act:
            raise Illegal("not this player's action now")
        pit = list(args) == ["repair", "pit"]
        if not pit and len(args) != 1:
            raise Illegal("write it as 'NAME do ACTION'")
        action = args[0]
        if action not in self.left[seat] or not self.can_do(seat, action):
            raise Illegal(f"no {action} that can be done now")
        self.left[seat].remove(action)
        if action != "repair":  # a repair moves nothing: it keeps the run-up
            self.last[seat] = kind(action)
        if kind(action) in ("move", "drift"):
            self.may_drift[seat] = kind(action) == "move"
        elif action == "repair":
            self.health[seat] = 6 if pit else min(6, self.health[seat] + 1)
        self.acting, self.action, self.halted, self.lapped, self.switch = seat, action, False, False, ""
        self.to_act = 1 - seat
        self.check = "jump" if kind(action) == "jump" else ""

    def roll_check(self, seat, args):
        if len(args) != 1:
            raise Illegal("write it as 'NAME roll F'")
        face = die(args[0])
        needed = self.health[seat] - 1 if self.check == "jump" else self.health[seat]
        jump, self.check = self.check == "jump", ""
        if face < needed:
            if jump:
                self.may_drift[seat] = True
            return
        self.health[seat] -= 1
        if jump:
            self.left[seat] = []
            self.acting, self.action = None, ""

    def during(self, seat, verb, args):
        acting = self.acting
        if seat != acting:
            if verb != "hazard" or seat != 1 - acting or args or self.switch != "open":
                raise Illegal("only the acting robot's lines now")
            self.check, self.switch = "puddle", "logged"
            return
        if kind(self.action) not in ("move", "drift", "jump") or self.halted:
            raise Illegal("the robot is not travelling")
        if verb == "impact":
            if args not in (["block"], ["robot"]):
                raise Illegal("an impact is with a 'block' or the other 'robot'")
            self.health[seat] -= 1
            self.left[seat] = []
            if args[0] == "robot":
                self.health[1 - seat] -= 1
            self.halted = True
            return
        if args:
            raise Illegal(f"write it as 'NAME {verb}'")
        if verb == "switch":
            self.switch = "open"
        elif verb == "hazard":
            self.check = "hazard"
        elif self.lapped:
            raise Illegal("a lap was already logged in this action")
        else:
            self.laps[seat] += 1
            self.lapped = True

    def settle(self):
        if 0 in self.health:
            alive = [i for i in (0, 1) if self.health[i] > 0]
            self.phase, self.winner, self.check = "over", (alive[0] if alive else None), ""
            return
        if max(self.laps) >= self.laps_to_win:
            self.phase, self.winner, self.check = "over", (0 if self.laps[0] >= self.laps_to_win else 1), ""
            return
        if self.phase == "pick" and len(self.picks) == 6:
            self.phase, self.to_act = "do", 1 - self.p1
        if self.phase != "do" or self.check:
            return
        for seat in (0, 1):
            if not any(self.can_do(seat, a) for a in self.left[seat]):
                self.left[seat] = []
        if not self.left[self.to_act]:
            if self.left[1 - self.to_act]:
                self.to_act = 1 - self.to_act
            else:
                self.phase = "done"

    def next_actor(self):
        if self.phase == "over":
            return None
        if self.check:
            return self.players[1 - self.acting if self.check == "puddle" else self.acting]
        if self.phase in ("first", "done"):
            return "table"
        if self.phase == "pick":
            return self.players[self.picker()]
        return self.players[self.to_act] if self.left[self.to_act] else None

    def summary(self):
        names, over = self.players, self.phase == "over"
        return {
            "game": "microbot-racers", "players": names, "over": over,
            "winners": [names[self.winner]] if over and self.winner is not None else [],
            "next": self.next_actor(), "turn": self.turn,
            "health": dict(zip(names, self.health)), "laps": dict(zip(names, self.laps)),
            "privilege": dict(zip(names, self.privilege)),
            "p1": None if self.p1 is None else names[self.p1], "phase": self.phase,
            "picked": dict(zip(names, self.left)), "laps_to_win": self.laps_to_win,
        }


def replay(path):
    with open(path, "rb") as file:
        text = file.read().decode("utf-8")
    players, options, race = None, {}, None
    for number, line in enumerate(text.split("\n"), start=1):
        words = line.split("#", 1)[0].replace("\t", " ").split()
        if not words:
            continue
        try:
            if words[0] == "game":
                if words[1:] != ["microbot-racers"] or players is not None:
                    raise Illegal("a reference for 'game microbot-racers' records only")
            elif words[0] == "players":
                if race is not None or players is not None or len(words) != 3:
                    raise Illegal("two players, once, before any action")
                players = words[1:]
            elif words[0] == "option":
                if race is not None or players is None or len(words) != 3 or words[1] in options:
                    raise Illegal("an option is 'option laps N' or 'option side easy|hard'")
                if words[1] == "laps" and words[2] in "123456789" and len(words[2]) == 1:
                    options["laps"] = int(words[2])
                elif words[1] == "side" and words[2] in SIDES:
                    options["side"] = words[2]
                else:
                    raise Illegal("an option is 'option laps N' or 'option side easy|hard'")
            else:
                if race is None:
                    if players is None:
                        raise Illegal("no 'players' line before the first action")
                    race = Race(players, options.get("laps", 3), options.get("side", "easy"))
                if len(words) < 2 or (words[0] != "table" and words[0] not in players):
                    raise Illegal("an action is 'ACTOR VERB ARGS'")
                race.apply(words[0], words[1], words[2:])
        except Illegal as err:
            print(f"{path}:{number}: {err}", file=sys.stderr)
            return 1
    if race is None and players is not None:
        race = Race(players, options.get("laps", 3), options.get("side", "easy"))
    if race is None:
        print(f"{path}: no 'players' line", file=sys.stderr)
        return 1
    print(json.dumps(race.summary()))
    return 0


if __name__ == "__main__":
    sys.exit(replay(sys.argv[1]))

#!/usr/bin/env bash
# Real screenshots for the README and docs/: each is the last frame of a scripted run of the daemon
# in luma.emulator's capture mode (PNG per frame, 2x). Dice are real device rolls, so the
# faces change from run to run.
set -euo pipefail
cd "$(dirname "$0")/.."
companion=${COMPANION:-.venv/bin/companion}
out=docs/screens
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

shot() {  # shot NAME "KEYS": on a box with no games stored
    rm -rf "$work/state"
    capture "$@"
}

capture() {  # capture NAME "KEYS": on the box as it is in $work/state
    rm -rf "$work/frames"
    PYGAME_HIDE_SUPPORT_PROMPT=1 "$companion" run --state "$work/state" --emulator capture \
        --capture-dir "$work/frames" --keys "$2" </dev/null 2>/dev/null
    cp "$(ls "$work"/frames/*.png | tail -n 1)" "$out/$1.png"
    echo "$out/$1.png"
}

stored() {  # stored RECORD...: a box holding these games (companion import), and no other
    rm -rf "$work/state"
    local record
    for record in "$@"; do "$companion" import --state "$work/state" "$record" >/dev/null; done
}

start="select select select select select"          # Microbot Racers, Ann and Bob, Start game (defaults)
picks="select select select select select select"           # every pick where the cursor starts
shot home ""
shot new-game "select"
shot setup "select select select select"   # Microbot Racers, Ann and Bob: the set-up list
shot name "select select up select down select up select select down down select up select down down down down"   # a new name: Zo, e at hand
shot first-player "$start"
shot picks "$start roll select select"
shot hazard "$start roll $picks select up select"   # P2 acts, then logs a puddle (one press up)
shot menu "$start roll select context"
shot rules "$start roll select context down down select"   # under "Back to the game" and Undo
shot faces "$start down select digit:3"
shot over "select select select select down select up up select up select roll select select select select select select select up up up up select"   # 1 lap; P2's lap

# Quick Lemmings, three players; cards: Ann water 4, Bob water 4, Cat water 3, Ann forest 1,
# Bob swamp 3 (each: from the terrain worth most to the card's, select, from the value worth
# most there to the card's, select)
lemmings="select down down down down select down select select select select select"
cards="down select select select select select select up select up up select down down select down select"
shot lemmings-piles "$lemmings $cards context down down down select"   # the game menu's piles page
shot lemmings-play "$lemmings $cards"                                # Bob's 3 points, a swamp tile
shot lemmings-card "$lemmings $cards down down down select down down"   # Cat enters desert 2

# Penguin Panic, Ann, Bob and Cat as entered; faces are typed in, so these frames stay the same
penguins="select down down select down select select select select down select up select"   # seats as entered
bribes="select select down select select select select select select"   # Ann 7, Bob 5 (1 fish), Cat 6; bears 1 2 3
shot penguin-bribe "$penguins select select down select select down down"   # Cat's choice, priced
shot penguin-fish "$penguins $bribes digit:1 digit:2 select select digit:3 select select"   # Bob's 3 linked

# Lilliputian Leaf-Climbers, Ann, Bob and Cat as entered; the board frames type the faces in
# (the same every run), the leaves frames are device rolls (new leaves every run)
typed() { local face out=""; for face in "$@"; do out+=" digit:$face"; done; echo "$out select"; }
climbers="select down select up select select select select down select up select"   # 3 players (one up from the rules' 4), seats as entered
round1="$(typed 8) $(typed 3 3) $(typed 3 3) $(typed 4 3) $(typed 3 4) $(typed 2 5) $(typed 5 2)"
round1="$round1 $(typed 6 4) $(typed 4 6) $(typed 3) select right up select $(typed 2) down select"
round1="$round1 $(typed 1) select down select"                                 # Ann c2 r2, Cat c1 r5
round2="$(typed 7) $(typed 6 6) $(typed 3 3) $(typed 4 4) $(typed 4 4) $(typed 2 2) $(typed 5 5)"
round2="$round2 $(typed 1 4) $(typed 4) select right select $(typed 1) down select"   # Bob stays: crushed
round2="$round2 $(typed 2) select right up select"                              # Cat c2 r6
round3="$(typed 9) $(typed 3 2) $(typed 4 2) $(typed 4 2) $(typed 2 4) $(typed 5 3) $(typed 3 5)"
round3="$round3 $(typed 6 1) $(typed 1 1) $(typed 5 5) $(typed 3)"             # Ann rolls 3 on c3 r2
shot leaf-play "$climbers $round1 $round2 $round3"                  # whose turn, round, Bob out, the leaves
shot leaf-board "$climbers $round1 $round2 $round3 select right"    # Ann's cursor on two landing leaves
shot leaf-leaves "$climbers roll"                                   # a round's d20 and leaves, all at once
shot leaf-one "down down down select down down down select back up up up $climbers roll select select"   # one by one: leaf 2

# Gleeb's and Grues: the records.md example typed in press by press (the presses are worked
# out by the driver that plays the benchmark's records through the screens)
keys_of() {  # keys_of RECORD [SEAT]: the presses that set up its game (the companion playing
    # SEAT) and type its lines in
    "${companion%companion}python" -c '
import sys
from companion.config import Config
from companion.record import replay_text
from companion.store import Store
from companion.ui.app import App
from companion.ui.driver import Driver
replayed = replay_text(open(sys.argv[1]).read())
app, words = App(Store(":memory:"), Config()), []
def press(intent):
    words.append(intent.kind + (f":{intent.value}" if intent.kind == "digit" else ""))
    app.handle(intent)
driver = Driver(app, press)
driver.new_game(replayed.header, companion=sys.argv[2] if len(sys.argv) > 2 else "")
for line in replayed.actions:
    driver.line(line)
print(" ".join(words))' "$@"
}
example=tests/golden/gleebs-and-grues/spec-played-out.record
sed -n '1,20p' "$example" > "$work/gleebs.record"   # up to Bob's K3 eating Y3: Ann to move
gleebs=$(keys_of "$work/gleebs.record")
shot gleebs-play "$gleebs"                          # the scores, what is eaten
shot gleebs-board "$gleebs select select up up"     # Ann picked B3 on b1; the cursor on G3, a landing
sed -n '1,18p' "$example" > "$work/bob.record"      # up to Ann's first turn
shot gleebs-companion "$(keys_of "$work/bob.record" Bob)"   # the companion plays Bob: its move

# Penguin Panic's scores page, part way through the benchmark's game (typed in by the driver)
sed -n '1,52p' companion/benchdata/penguin-panic.record > "$work/penguins.record"   # Ann's yellow escapes
shot penguin-scores "$(keys_of "$work/penguins.record") context down down down select"   # the game menu's scores page

# History: a finished game's Log, who wins, and the dice (the finished golden games stored by
# companion import; after Dice, one press while the box counts them)
stored $(for summary in $(grep -l '"over": *true' tests/golden/*/*.json); do echo "${summary%.json}.record"; done)
capture history "down select"                                  # Players, Dice, then the games
capture log "down select down down select select down"          # the newest game's Log, one row on
capture players "down select select"                            # the most wins first
capture dice-chart "down select down select up down select select"   # Leaf-Climbers' d4, faces imported

# The phone view's page for each game mid-play, and History, at 390 CSS px in a real headless Chromium.
COMPANION_SCREENSHOTS=docs/phone "$(dirname "$companion")/python" -m pytest -q -p no:cacheprovider \
    tests/test_phone_browser.py -k fits_a_phone

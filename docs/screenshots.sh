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

# The games' frames type records in press by press, with the presses the driver works out
# (the driver that plays the benchmark's records through the screens), so they follow the
# entries as these change, and stay the same every run. A frame part-way through an entry
# is all its record's presses but the last (the select that logs the last line).
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
record() {  # record NAME: the record on standard input, as $work/NAME.record
    cat > "$work/$1.record"
    echo "$work/$1.record"
}
but_last() { echo "${1% *}"; }

# Quick Lemmings, three players: five cards played, then Cat's desert 2 picked on the table
lemmings=$(record lemmings <<'EOF'
game quick-lemmings
players Ann Bob Cat
Ann play water 4
Bob play water 4
Cat play water 3
Ann play forest 1
Bob play swamp 3
EOF
)
shot lemmings-piles "$(keys_of "$lemmings") context down down down select"   # the game menu's piles page
stored "$lemmings"
capture lemmings-play ""   # resumed: Bob's 3 points and the swamp tile, large (right after a play its result in words shows for 2 s)
{ cat "$lemmings"; echo "Cat play desert 2"; } > "$work/card.record"
shot lemmings-card "$(but_last "$(keys_of "$work/card.record")")"           # the table, the cursor on desert 2

# Penguin Panic, Ann, Bob and Cat: the bribes, then Bob's first placement
penguins=$(record bribes <<'EOF'
game penguin-panic
players Ann Bob Cat
table line
Ann ability 7
Bob ability 5
EOF
)
shot penguin-bribe "$(keys_of "$penguins") down down"   # Cat's choice, priced
{ cat "$penguins"; printf '%s\n' "Cat ability 6" "Bob bribe 1" "Cat bribe 2" "Ann bribe 3" "Bob roll 1 2" \
    "Bob place 1 3 0"; } > "$work/fish.record"
shot penguin-fish "$(but_last "$(keys_of "$work/fish.record")")"   # Bob's 3 linked, to confirm

# Lilliputian Leaf-Climbers, Ann, Bob and Cat: three rounds typed in (the board frames), and
# device rolls (the leaves frames: new leaves every run)
climbers=$(record climbers <<'EOF'
game leaf-climbers
players Ann Bob Cat
table drop 8
table leaf 3 3
table leaf 3 3
table leaf 4 3
table leaf 3 4
table leaf 2 5
table leaf 5 2
table leaf 6 4
table leaf 4 6
Ann roll 3
Ann move 2 2
Bob roll 2
Bob stay
Cat roll 1
Cat move 1 5
table drop 7
table leaf 6 6
table leaf 3 3
table leaf 4 4
table leaf 4 4
table leaf 2 2
table leaf 5 5
table leaf 1 4
Ann roll 4
Ann move 3 2
Bob roll 1
Bob stay
Cat roll 2
Cat move 2 6
table drop 9
table leaf 3 2
table leaf 4 2
table leaf 4 2
table leaf 2 4
table leaf 5 3
table leaf 3 5
table leaf 6 1
table leaf 1 1
table leaf 5 5
Ann roll 3
EOF
)
shot leaf-play "$(keys_of "$climbers")"   # whose turn, round 3, Bob out (crushed), the leaves
{ cat "$climbers"; echo "Ann move 4 2"; } > "$work/move.record"
shot leaf-board "$(but_last "$(keys_of "$work/move.record")")"   # Ann's cursor on two landing leaves
head -n 2 "$climbers" > "$work/seats.record"
seats=$(keys_of "$work/seats.record")
shot leaf-leaves "$seats roll"   # a round's d20 and leaves, all at once
shot leaf-one "down down down select down down down select back up up up $seats roll select"   # one by one: leaf 1 (a d20 of 1 has no second)

# Gleeb's and Grues: the records.md example
example=tests/golden/gleebs-and-grues/spec-played-out.record
sed -n '1,20p' "$example" > "$work/gleebs.record"   # up to Bob's K3 eating Y3: Ann to move
stored "$work/gleebs.record"
capture gleebs-play ""                              # resumed: the scores, what is eaten
{ cat "$work/gleebs.record"; echo "Ann move b1 b3"; } > "$work/step.record"
shot gleebs-board "$(but_last "$(keys_of "$work/step.record")")"   # Ann picked B3 on b1; the cursor on G3, a landing
sed -n '1,18p' "$example" > "$work/bob.record"      # up to Ann's first turn
shot gleebs-companion "$(keys_of "$work/bob.record" Bob)"   # the companion plays Bob: its move

# Penguin Panic's scores page, part way through the benchmark's game (typed in by the driver)
sed -n '1,52p' companion/benchdata/penguin-panic.record > "$work/penguins.record"   # Ann's yellow escapes
shot penguin-scores "$(keys_of "$work/penguins.record") context down down down select"   # the game menu's scores page

# History: a finished game's Log, who wins, and the dice (the finished golden games stored by
# companion import; after Dice, presses while the box counts them)
stored $(for summary in $(grep -l '"over": *true' tests/golden/*/*.json); do echo "${summary%.json}.record"; done)
capture history "down select"                                  # Players, Dice, then the games
capture log "down select down down select select down"          # the newest game's Log, one row on
capture players "down select select"                            # the most wins first
counting=$(printf 'up %.0s' $(seq 30))   # a slice of the counting a press at least; up leaves the dice list's cursor on its first line
capture dice-chart "down select down select $counting select select"   # Leaf-Climbers' d4, faces imported

# The phone view's page for each game mid-play, and History, at 390 CSS px in a real headless Chromium.
COMPANION_SCREENSHOTS=docs/phone "$(dirname "$companion")/python" -m pytest -q -p no:cacheprovider \
    tests/test_phone_browser.py -k fits_a_phone

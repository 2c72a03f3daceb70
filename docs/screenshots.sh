#!/usr/bin/env bash
# Real screenshots for the README: each is the last frame of a scripted run of the daemon
# in luma.emulator's capture mode (PNG per frame, 2x). Dice are real device rolls, so the
# faces change from run to run.
set -euo pipefail
cd "$(dirname "$0")/.."
companion=${COMPANION:-.venv/bin/companion}
out=docs/screens
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

shot() {  # shot NAME "KEYS"
    rm -rf "$work/state" "$work/frames"
    PYGAME_HIDE_SUPPORT_PROMPT=1 "$companion" run --state "$work/state" --emulator capture \
        --capture-dir "$work/frames" --keys "$2" </dev/null 2>/dev/null
    cp "$(ls "$work"/frames/*.png | tail -n 1)" "$out/$1.png"
    echo "$out/$1.png"
}

start="select select select select select select"          # Microbot Racers, Ann and Bob, defaults
picks="select select select select select select"           # every pick: the first space left
shot home ""
shot new-game "select"
shot first-player "$start"
shot picks "$start roll select select"
shot hazard "$start roll $picks select down down down select"   # P2 acts, then logs a puddle
shot menu "$start roll select context"
shot rules "$start roll select context down select"
shot faces "$start down select digit:3"
shot over "select select select select down select select roll select select select select select select select down down down down down down select"

#!/bin/sh
# (copied from the team's shared/tools/xbmatch.sh so that the repo is self-contained)
# Headless XBoard engine-vs-engine match (xboard 4.9.1 under Xvfb).
# usage: xbmatch.sh ENGINE1 ENGINE2 [GAMES=2] [TC=0:10] [INC=0] [VARIANT=normal] [OUTDIR=./xbmatch.out] [extra xboard args...]
# ENGINE = command line (quoted if it has arguments). TC = minutes or min:sec. INC = seconds (may be fractional).
# Writes OUTDIR/match.pgn and OUTDIR/xboard.debug; prints xboard's "Match ... final score W-L-D" line.
set -e
E1=$1; E2=$2; GAMES=${3:-2}; TC=${4:-0:10}; INC=${5:-0}; VARIANT=${6:-normal}; OUT=${7:-./xbmatch.out}
shift $(( $# < 7 ? $# : 7 ))
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
# own HOME: xboard reads/writes ~/.xboardrc; /usr/games on PATH: xboard runs 'polyglot' for -fUCI engines
export HOME="$OUT" PATH="/usr/games:$PATH"
# hard wall-clock limit: xboard waits forever on an engine that never answers ping or fails to start
LIMIT=$(( 120 + GAMES * 300 ))
exec timeout "$LIMIT" xvfb-run -a -s "-screen 0 1280x1024x24" xboard \
  -fcp "$E1" -scp "$E2" -variant "$VARIANT" -mg "$GAMES" -tc "$TC" -inc "$INC" \
  -sgf "$OUT/match.pgn" -debug -debugfile "$OUT/xboard.debug" \
  -xexit -noGUI -autoCallFlag true -ponderNextMove false -matchPause 100 -timeDelay 0 \
  -saveSettingsOnExit false -soundProgram /bin/true "$@"

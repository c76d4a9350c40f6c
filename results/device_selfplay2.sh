#!/bin/bash
# Device run: two self-play matches at once, .dev/CAND1 and .dev/CAND2 each against .dev/base, 8 games at a time each.
# Usage: bash .dev/selfplay2.sh SECONDS_OF_GAMES VARIANT SEED CAND1 CAND2 [TC]
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
TC=${6:-5+0.05}
for t in base $4 $5; do (cd .dev/$t && python3 setup.py build_ext --inplace -j 5 > /tmp/build_$t.log 2>&1 || tail -20 /tmp/build_$t.log) & done; wait
echo "built at $SECONDS s"
for c in $4 $5; do
  timeout $1 python3 $PWD/.dev/base/scripts/match.py --engine1 "python3 $PWD/.dev/$c/xboard.py" --engine2 "python3 $PWD/.dev/base/xboard.py" \
    --variant $2 --balanced 60 --seed $3 --games 2000 --tc $TC --concurrency 8 --pgn $OUT/$c.pgn > $OUT/$c.txt 2>&1 &
done; wait
for c in $4 $5; do echo "== $c"; tail -3 $OUT/$c.txt; grep -c "Result" $OUT/$c.pgn; done; echo "done at $SECONDS s"

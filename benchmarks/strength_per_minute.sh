#!/bin/bash
# Strength against the clock, for one seed: trains each recipe below on Connect Four 6×6,
# one after the other (run it with the machine to itself: the minutes are wall time),
# scores each final network on the 1,000 solved positions (python -m warmjax.oracle), then
# prints when each run's probe reached which rate, its final figures against the issue's
# targets, and draws the figure (the rates against measured minutes and against the
# ledger's estimated compute on this repository's CPU calibration).
#
#   bash benchmarks/strength_per_minute.sh                 # seed 0, every recipe
#   SEED=1 RECIPES="quick" bash benchmarks/strength_per_minute.sh
#
# OUT (default runs/strength_per_minute) holds the run folders and strength_sN.png. A run
# already complete is not trained again (its folder is reused). A recipe is a name and the
# training command's settings; add one line to compare a new profile. EXTRA: settings added
# to every training command (EXTRA="train.iterations=2" tries the script in minutes).
set -eu
cd "$(dirname "$0")/.."
export JAX_PLATFORMS=${JAX_PLATFORMS:-cpu}
seed=${SEED:-0}
out=${OUT:-runs/strength_per_minute}
declare -A recipe=(
  [quick]="+experiment=adaptive_c4 profile=quick"        # the main job (README)
  [gumbel]="+experiment=baseline_c4 profile=quick departures=gumbel search.simulations=16"
)
names=${RECIPES:-quick gumbel}
runs=()
for name in $names; do
  [ -n "${recipe[$name]:-}" ] || { echo "unknown recipe $name (known: ${!recipe[*]})" >&2; exit 2; }
  run="$out/${name}_s$seed"
  python -m warmjax.run ${recipe[$name]} ${EXTRA:-} seed="$seed" tensorboard=false \
    run_dir="$run"
  [ -f "$run/oracle.json" ] || python -m warmjax.oracle "$run" > /dev/null
  runs+=("$run")
done
python tools/strength_per_minute.py "${runs[@]}" --policy 60 70 80 85 --search 85 90 95 \
  --targets "minutes=15 search=95 policy=85 search_quiet=90 policy_quiet=80" \
  --figure "$out/strength_s$seed.png" --calibration results/calibration/cpu.json

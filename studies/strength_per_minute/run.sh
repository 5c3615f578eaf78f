#!/bin/bash
# Strength against the clock, for one seed: trains each recipe of one board below, one after
# the other (run it with the machine to itself: the minutes are wall time), scores each final
# network on the board's solved positions (python -m warmjax.oracle), then prints when each
# run's probe reached which rate, its final figures against issue 45's targets for that
# board, and draws the figure (the rates against measured minutes and against the ledger's
# estimated compute on this repository's CPU calibration).
#
#   bash studies/strength_per_minute/run.sh                       # Connect Four 6×6, seed 0
#   SEED=1 RECIPES="quick" bash studies/strength_per_minute/run.sh
#   BOARD=6x7 bash studies/strength_per_minute/run.sh             # Connect Four 6×7
#   BOARD=hex7 bash studies/strength_per_minute/run.sh            # Hex 7×7
#
# OUT (default runs/strength_per_minute) holds the run folders and strength_BOARD_sN.png. A
# run already complete is not trained again (its folder is reused). A recipe is a name and
# the training command's settings; add one line to compare a new profile. EXTRA: settings
# added to every training command (EXTRA="train.iterations=2" tries the script in minutes).
set -eu
cd "$(dirname "$0")/.."
export JAX_PLATFORMS=${JAX_PLATFORMS:-cpu}
seed=${SEED:-0}
out=${OUT:-runs/strength_per_minute}
board=${BOARD:-6x6}
declare -A recipe=(
  [fast]="+experiment=adaptive_c4 profile=fast"          # the main job (README)
  [quick]="+experiment=adaptive_c4 profile=quick"        # the quick profile
  [gumbel]="+experiment=baseline_c4 profile=quick departures=gumbel search.simulations=16"
  [fast_6x7]="+experiment=adaptive_c4 profile=fast game.params.cols=7"
  [quick_6x7]="+experiment=adaptive_c4 profile=quick game.params.cols=7"
  [fast_hex7]="+experiment=adaptive game=hex_7 profile=fast"
  [quick_hex7]="+experiment=adaptive game=hex_7 profile=quick"
)
case $board in  # each board's recipes and issue 45's targets
  6x6) default="fast quick gumbel"; policy="60 70 80 85"; search="85 90 95"
       targets="minutes=15 search=95 policy=85 search_quiet=90 policy_quiet=80" ;;
  6x7) default="fast_6x7 quick_6x7"; policy="50 60 70 80"; search="80 85 90 93"
       targets="minutes=30 search=93 policy=80" ;;
  hex7) default="fast_hex7 quick_hex7"; policy="40 50 70 85"; search="80 90 95"
        targets="minutes=30 search=95 policy=85 quiet_over_pure=10" ;;
  *) echo "unknown BOARD $board (6x6, 6x7 or hex7)" >&2; exit 2 ;;
esac
names=${RECIPES:-$default}
runs=()
for name in $names; do
  [ -n "${recipe[$name]:-}" ] || { echo "unknown recipe $name (known: ${!recipe[*]})" >&2; exit 2; }
  run="$out/${name}_s$seed"
  python -m warmjax.run ${recipe[$name]} ${EXTRA:-} seed="$seed" tensorboard=false \
    run_dir="$run"
  [ -f "$run/oracle.json" ] || python -m warmjax.oracle "$run" > /dev/null
  runs+=("$run")
done
python studies/strength_per_minute/clock.py "${runs[@]}" --policy $policy --search $search \
  --targets "$targets" --figure "$out/strength_${board}_s$seed.png" \
  --calibration results/calibration/cpu.json

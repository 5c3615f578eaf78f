#!/usr/bin/env bash
# One GPU call, under ten minutes with compiling: the GPU recipe (profile=gpu: the residual
# network, thousands of games a batch) trained on Connect Four 7×6 for MINUTES of training,
# its final network judged on Pons' six sets (all 6,000 positions, the search at m = 600 and
# the policy head), and the self-play speed. Prints the speed and the mistake table; writes
# under $OUT: config.yaml, metrics.jsonl, pons.json, speed.json, and each part's log.
#
#   bash benchmarks/gpu_pons.sh                      # on a lent GPU (run from the checkout;
#                                                    # wheels of the missing packages in .whl/)
#   SMALL=1 JAX_PLATFORMS=cpu bash benchmarks/gpu_pons.sh     # the dry run, tiny sizes
#   MODE=tax bash benchmarks/gpu_pons.sh             # instead: the warm-start tax, Hex 7×7
#
# MINUTES (default 5.5) is train.minutes; SPEED=0 leaves out the batch-size sweep of
# benchmarks/selfplay_speed.py, which runs last. Each part has a time limit (LIMIT_TRAIN
# 420 s with compiling, LIMIT_JUDGE 90 s, LIMIT_SPEED 45 s), so that the whole call stays
# under the device's 600 s; a training stopped by its limit ends as Ctrl-C does, saved after
# its last iteration, and is judged all the same.
set -u
OUT=${OUT:-/tmp/gpu_pons}
mkdir -p "$OUT"
. benchmarks/device_wheels.sh
export PYTHONUNBUFFERED=1
python3 -c "import jax; print('device:', jax.devices()[0].device_kind, jax.default_backend(), \
'jax', jax.__version__)" | tee "$OUT/device.txt"

if [ "${MODE:-pons}" = tax ]; then
  if [ "${SMALL:-0}" = 1 ]; then size="--games 8 --simulations 4 --iterations 1"
  else size="--games 256 --simulations 64 --iterations 4"; fi
  timeout "${LIMIT_TAX:-540}" python3 benchmarks/warmstart_tax.py --overrides game=hex_7 $size \
    2>&1 | tee "$OUT/tax.txt"
  exit "${PIPESTATUS[0]}"
fi

runs=$OUT/runs
if [ "${SMALL:-0}" = 1 ]; then
  recipe="model=resnet3x32 train.games=8 search.simulations=4 train.batch_size=32 \
train.iterations=2 probe.positions=20 model.mixed_precision=false"
  judge="--positions 10 --deep-simulations 8 --simulations 4 --playouts 4"
  speed="--nets resnet3x32 --batches 8 --simulations 4"
else
  recipe="train.minutes=${MINUTES:-5.5}"
  judge="--no-pure-mcts"  # its reference rates are in results.md §12
  speed="--nets small medium resnet5x128 --batches 256 1024 4096 16384 --mixed-precision \
--limit 10"
fi
echo "== training: +experiment=baseline_c4 profile=gpu game.params.cols=7 $recipe"
timeout "${LIMIT_TRAIN:-420}" python3 -m warmjax.run +experiment=baseline_c4 profile=gpu \
  game.params.cols=7 $recipe tensorboard=false run_root="$runs" > "$OUT/train.log" 2>&1
echo "(exit $?)" >> "$OUT/train.log"
grep -v -e "^WARNING" -e "^W1" -e "^I0000" -e "^E0000" "$OUT/train.log" | tail -6
run=$(dirname "$(ls -d "$runs"/baseline_c4/*/config.yaml | head -1)")
cp "$run/config.yaml" "$run/metrics.jsonl" "$OUT/" 2>/dev/null
python3 - "$run" <<'EOF' | tee "$OUT/selfplay_speed.txt"
import sys
from warmjax.train import run_folder
rows = run_folder.read_metrics(sys.argv[1])
sims = sum(r.count_evals_selfplay for r in rows)
seconds = sum(r.seconds_selfplay or 0.0 for r in rows)
train = sum(r.seconds_total or 0.0 for r in rows)
print(f"{len(rows)} iterations, {train / 60:.1f} min of training; self-play: {sims:,} "
      f"simulations in {seconds:.0f} s = {sims / max(seconds, 1e-9):,.0f} simulations/s")
EOF
echo "== judging on Pons' benchmark"
timeout "${LIMIT_JUDGE:-90}" python3 -m warmjax.oracle "$run" --benchmark pons $judge \
  --out "$OUT/pons.json" > "$OUT/pons.txt" 2>&1
echo "(exit $?)" >> "$OUT/pons.txt"
sed -n '1,11p' "$OUT/pons.txt"; tail -2 "$OUT/pons.txt"
if [ "${SPEED:-1}" = 1 ]; then
  echo "== self-play speed by batch size"
  timeout "${LIMIT_SPEED:-45}" python3 benchmarks/selfplay_speed.py $speed \
    --json "$OUT/speed.json" > "$OUT/speed.txt" 2>&1
  echo "(exit $?)" >> "$OUT/speed.txt"
  grep "^|\|published\|exit" "$OUT/speed.txt"
fi

#!/bin/bash
# The fast-recipe study's runs on a lent GPU (REGISTRATION.md, the departure of 4 December,
# 16:21 UTC): the two arms of SEEDS on BOARD, each arm one vmapped group (the vmap launcher;
# seeds share one compiled program, arms do not), the two groups in two processes side by
# side, for at most S seconds. Then each run's config.yaml and metrics.jsonl, and for a run
# short of its iterations its latest checkpoint, are packed into $OUT/<BOARD>.tar.gz.part-*.
#
#   BOARD=fast_hex_7x7 SEEDS=64,65 S=470 bash studies/fast_recipe/gpu.sh     # on the GPU
#   SMALL=1 JAX_PLATFORMS=cpu S=200 bash studies/fast_recipe/gpu.sh           # a dry run here
#   ARMS=baseline ...                           # one arm only (a second call resumes it)
#
# Back on the CPU machine: `mkdir -p runs && cat <BOARD>.tar.gz.part-* | tar -xz -C runs`, then
# `bash studies/fast_recipe/run.sh` resumes any unfinished run, exports and commits each
# seed whose two arms are complete, as for the runs it trains itself.
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/fast_recipe_gpu}
board=${BOARD:-fast_hex_7x7} seeds=${SEEDS:-64,65} limit=${S:-470}
arms=${ARMS:-baseline adaptive_rollout}
root=/tmp/fast_recipe_runs
mkdir -p "$OUT" "$root"
if [ -d .whl ]; then  # the GPU machine lacks mctx, pgx, hydra-core, omegaconf, ...
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
  export PYTHONPATH=/tmp/site:$PWD
fi
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
extra=""
[ "${SMALL:-0}" = 1 ] && extra="train.iterations=3 train.games=4 search.simulations=4 \
probe.positions=20"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>/dev/null
python3 -c "import jax; print('jax', jax.__version__, jax.default_backend(), jax.devices())"
pids=""
for arm in $arms; do
  # shellcheck disable=SC2086 # extra is a list of overrides
  timeout "$limit" python3 -m warmjax.run -m +study="$board" seed="$seeds" +arm="$arm" \
    run_root="$root" $extra > "$OUT/$arm.log" 2>&1 &
  pids="$pids $!"
done
for p in $pids; do wait "$p"; echo "(a group exited $?)"; done
bash benchmarks/collect_runs.sh "$root/study_$board" /tmp/collected/study_$board
# A file that comes back from the device is at most 16 MiB: the archive in 15 MiB parts
# (`cat <BOARD>.tar.gz.part-* > <BOARD>.tar.gz` joins them).
tar -czf - -C /tmp/collected "study_$board" | split -b 15M - "$OUT/$board.tar.gz.part-"
ls -l "$OUT"
for arm in $arms; do
  grep -v -e "^WARNING" -e "^W1" -e "^I0000" -e "^E0000" "$OUT/$arm.log" | tail -3
done

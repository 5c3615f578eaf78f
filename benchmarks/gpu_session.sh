#!/usr/bin/env bash
# The project's GPU checks in one command, each part under its own time limit so that a slow
# part leaves time for the others; every table also lands in $OUT/<part>.txt, and the
# c4paper part's run folders (config.yaml and metrics.jsonl, no networks) in $OUT/runs.
#
#   bash benchmarks/gpu_session.sh             # on a GPU machine (wheels of the missing
#                                              # packages in .whl/, installed to /tmp/site)
#   PARTS="study512 tests" bash benchmarks/gpu_session.sh      # only the parts named
#   SMALL=1 JAX_PLATFORMS=cpu bash benchmarks/gpu_session.sh   # a dry run at toy sizes
#   RUNS_512=32 RUNS_64=64 PRECISIONS=mixed C4PAPER_S=170 LIMIT_study512=150 ...  # narrower
#
# All parts together take longer than ten minutes: split them with PARTS.
# Measured on an H100 on 26 November 2026: results.md §5.
set -u
OUT=${OUT:-/tmp/gpu_session}
mkdir -p "$OUT"
. benchmarks/device_wheels.sh
export PYTHONPATH=${PYTHONPATH:-$PWD}:$PWD/benchmarks PYTHONUNBUFFERED=1
if [ "${SMALL:-0}" = 1 ]; then
  shrink_study="--games 2 --simulations 4 --arena-games 2 --train-steps 3"
  shrink_search="--sims 4 --batches 8"; shrink_train="--steps 3"; runs_a="1 2"; runs_b="2"
  c4paper="model=small train.games=2 search.simulations=4 arena.games=2 train.epochs=1 \
probe.positions=20 seed=0,1"; c4paper_s=${C4PAPER_S:-40}
else
  shrink_study="--train-steps 30"; shrink_search="--sims 100 --batches 1024"
  shrink_train="--steps 30"; runs_a=${RUNS_512:-16 32}; runs_b=${RUNS_64:-32 64}
  c4paper="seed=${C4PAPER_SEEDS:-0,1,2,3,4,5,6,7}"; c4paper_s=${C4PAPER_S:-200}
fi
part() {
  local name=$1 limit=$2 own="LIMIT_$1"
  limit=${!own:-$limit}  # e.g. LIMIT_study512=150
  shift 2
  case " ${PARTS:-all} " in *" all "*|*" $name "*) ;; *) return ;; esac
  echo "== $name (limit ${limit}s): $*"
  timeout "$limit" "$@" > "$OUT/$name.txt" 2>&1
  echo "(exit $?)" >> "$OUT/$name.txt"
  grep -v -e "^WARNING" -e "^W1" -e "^I0000" -e "^E0000" "$OUT/$name.txt" | tail -20
}
# The Connect Four study's first iterations at the papers' scale (512 channels,
# E = 50, m = 100, n = 40, the oracle probe each iteration) as one vmapped group of 16 runs
# (by default WRoRa, fixed I' = 1 and 5, 8 seeds) for c4paper_s seconds, then its per-run metrics.
# C4PAPER_ARMS picks other arms, e.g. "+experiment=adaptive_c4 warmstart.enhancement=wrora
# model.mixed_precision=true" (the runs land in /tmp/c4paper/<experiment name>).
c4paper_arms=${C4PAPER_ARMS:-+experiment=fixed_c4 warmstart.enhancement=wrora warmstart.iprime=1,5}
c4paper_cmd="timeout $c4paper_s python3 -m warmjax.run -m $c4paper_arms $c4paper hydra/launcher=vmap \
run_root=/tmp/c4paper; python3 tools/run_table.py /tmp/c4paper; \
python3 -m warmjax.study export --partial /tmp/c4paper $OUT/runs"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>/dev/null
# Each study_time R compiles self-play, training and arena (about 45-60 s at 512 channels
# on an H100), so each part measures few R values.
part c4paper $((c4paper_s + 30)) bash -c "$c4paper_cmd"
# The registered long-horizon study (studies/long_horizon/REGISTRATION.md) where a GPU
# is lent: LONG_STUDY (default hex_5x5_long), its seeds 8-15 and arms, as vmapped groups of
# the vmap launcher, for long_s seconds (PARTS=long; default 540). Then each run's config,
# metrics, final and kept networks, and for a run not yet finished its latest checkpoint, go
# to $OUT/long/study_<name>/<run>: copied under runs/ on the CPU machine, where
# `bash studies/long_horizon/run.sh` resumes any unfinished run, plays the round robins,
# exports and commits, as for the runs it trains itself.
long_study=${LONG_STUDY:-hex_5x5_long}
long_s=${LONG_S:-540}
if [ "${SMALL:-0}" = 1 ]; then
  long_extra="train.iterations=3 keep_networks=[1,2] train.games=2 search.simulations=4 \
arena.games=2 train.epochs=1 probe.positions=20 seed=8,9"
else
  long_extra="seed=8,9,10,11,12,13,14,15"
fi
long_cmd="timeout $long_s python3 -m warmjax.run -m +study=$long_study $long_extra \
hydra/launcher=vmap hydra.launcher.seed_major=false run_root=/tmp/long; \
bash benchmarks/collect_runs.sh /tmp/long/study_$long_study $OUT/long/study_$long_study"
part long $((long_s + 40)) bash -c "$long_cmd"
part study512 240 python3 benchmarks/study_time.py --nets azg512 --runs $runs_a $shrink_study \
  --precision ${PRECISIONS:-float32 mixed}
part study64 150 python3 benchmarks/study_time.py --nets azg64 --runs $runs_b $shrink_study \
  --precision ${PRECISIONS:-float32 mixed}
part search_small 90 python3 benchmarks/search_throughput.py --nets small $shrink_search \
  --variants mcts rollout rora wro wrora --step-playouts --no-mctx --repeats 2
part search_512 70 python3 benchmarks/search_throughput.py --nets azg512 $shrink_search \
  --variants mcts rollout rora wro wrora --no-mctx --repeats 2 --max-sims-512 1000000
part train_step 170 python3 benchmarks/train_step.py --runs $runs_a $shrink_train
part tests 240 python3 -m pytest -q -x -p no:cacheprovider tests/search/test_search.py \
  tests/search/test_selection.py tests/search/test_backup.py tests/search/test_rollout.py tests/nets/test_nets.py \
  tests/train/test_group.py

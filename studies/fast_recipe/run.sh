#!/bin/bash
# The fast-recipe study (studies/fast_recipe/REGISTRATION.md): the fast profile with
# and without warm start on Connect Four 6×6, 6×7 and Hex 7×7, seeds 60-65, 80 iterations,
# board by board in the registered order, each seed committed as it finishes
# (studies/fast_recipe/<board>/). Rerun it to resume: committed seeds are skipped, a run resumes
# from its last checkpoint where this machine still has it.
#
#   nohup bash studies/fast_recipe/run.sh > runs/fast_recipe.log 2>&1 &
#
# BOARDS (default: all three, in the registered order) picks some of them.
set -u
cd "$(dirname "$0")/../.."
export ITERATIONS=80
for board in ${BOARDS:-fast_c4_6x6 fast_c4_6x7 fast_hex_7x7}; do
  bash tools/run_study.sh "$board" "60 61 62 63 64 65" "baseline adaptive_rollout" no || exit 1
done

#!/bin/bash
# Where warm start helps (studies/where_it_helps/REGISTRATION.md): the fast profile with and
# without warm start on Othello 6×6 and Gobang 6×6, seeds 70-75, 80 iterations, in the
# registered order: seed by seed, Othello's seed then Gobang's, each seed's baseline then
# its adaptive run, one run at a time; each finished seed is committed into its board's
# folder (studies/where_it_helps/<board>/). Rerun it to resume: committed seeds are skipped,
# a run resumes from its last checkpoint where this machine still has it.
#
#   nohup bash studies/where_it_helps/run.sh > runs/where_it_helps.log 2>&1 &
#
# SEEDS (default 70-75) and BOARDS (default both) pick some of them; a registered cut is
# applied by leaving the cut seeds of a board out (the registration's record says which).
set -u
cd "$(dirname "$0")/../.."
export ITERATIONS=80
# Both registered cut steps apply (REGISTRATION.md, departures of 2026-12-05): seeds 70-73.
for seed in ${SEEDS:-70 71 72 73}; do
  for board in ${BOARDS:-fast_othello_6x6 fast_gobang_6x6}; do
    bash tools/run_study.sh "$board" "$seed" "baseline adaptive_rollout" no || exit 1
  done
done

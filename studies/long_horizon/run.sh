#!/bin/bash
# The registered long-horizon study (studies/long_horizon/REGISTRATION.md): its
# three studies one after the other, each seed by seed through tools/run_study.sh. Connect
# Four runs the papers' I = 100 with round robins at iterations 15, 30, 60 and 100; Hex runs
# at the registered cut (recorded in the registration): 60 iterations with round robins at
# 15, 30 and 60, and Hex 7×7 on seeds 8-13 (Hex 5×5's 8 seeds ran before the second
# step). Rerun it to resume: committed seeds are skipped quickly (their runs are
# complete), a run resumes from its last checkpoint where the machine still has it, and
# restarts otherwise.
#
#   bash studies/long_horizon/run.sh            # in the background: nohup ... &
#
# STUDIES (default: all three, in this order) picks some of them, e.g.
# STUDIES="hex_7x7_long" bash studies/long_horizon/run.sh.
set -u
cd "$(dirname "$0")/../.."
studies=${STUDIES:-c4_long hex_5x5_long hex_7x7_long}
for study in $studies; do
  case $study in
    c4_long) seeds="40 41 42 43 44 45 46 47"; arms="baseline fixed_wrora adaptive_wrora"
      export ITERATIONS=100 HORIZONS="15 30 60" ;;
    hex_5x5_long) seeds="8 9 10 11 12 13 14 15"; arms="baseline adaptive_wrora"
      export ITERATIONS=60 HORIZONS="15 30" ;;  # the cut's first step (complete before the second)
    hex_7x7_long) seeds="8 9 10 11 12 13"; arms="baseline adaptive_wrora"
      export ITERATIONS=60 HORIZONS="15 30" ;;  # the cut's first and second steps
    *) echo "unknown study $study" >&2; exit 2 ;;
  esac
  bash tools/run_study.sh "$study" "$seeds" "$arms" || exit 1
done

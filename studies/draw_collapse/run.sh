#!/bin/bash
# The draw-collapse check (results.md §10): c4_long's baseline with root noise on
# seeds 40-42 (conf/study/c4_long_noise.yaml), then the same seeds without it, trained again
# for their self-play health figures (conf/study/c4_long_health.yaml). Each seed's folder is
# committed as it finishes; rerun to resume.
#   nohup bash studies/draw_collapse/run.sh > runs/draw_collapse.log 2>&1 &
set -u
cd "$(dirname "$0")/../.."
export ITERATIONS=100
for study in ${STUDIES:-c4_long_noise c4_long_health}; do
  bash tools/run_study.sh "$study" "40 41 42" baseline no || exit 1
done

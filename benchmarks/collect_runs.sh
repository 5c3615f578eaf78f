#!/usr/bin/env bash
# Copies what a study's runs need elsewhere, without their replay buffers: per run folder of
# FROM, its config.yaml, metrics.jsonl, final network (network.json, network.msgpack) and
# kept networks (networks/), and, for a run short of its iterations, its latest checkpoint
# (to resume it), into TO/<run>. Used by benchmarks/gpu_session.sh (the long-horizon part).
#
#   bash benchmarks/collect_runs.sh FROM TO
set -u
from=$1 to=$2
[ -d "$from" ] || { echo "collect_runs: no folder $from" >&2; exit 1; }
for run in "$from"/*/; do
  run=${run%/}
  [ -f "$run/config.yaml" ] || continue
  dest="$to/$(basename "$run")"
  mkdir -p "$dest"
  for f in config.yaml metrics.jsonl network.json network.msgpack; do
    [ -f "$run/$f" ] && cp "$run/$f" "$dest/"
  done
  [ -d "$run/networks" ] && cp -r "$run/networks" "$dest/"
  want=$(sed -n 's/^ *iterations: *\([0-9]*\).*/\1/p' "$run/config.yaml" | head -1)
  have=$( [ -f "$run/metrics.jsonl" ] && wc -l < "$run/metrics.jsonl" || echo 0)
  if [ -n "$want" ] && [ "$have" -lt "$want" ] && [ -d "$run/checkpoints" ]; then
    mkdir -p "$dest/checkpoints"
    last=$(ls "$run"/checkpoints/state_* 2>/dev/null | sort | tail -1)
    [ -n "$last" ] && cp "$last" "$dest/checkpoints/"
    [ -f "$run/checkpoints/best.msgpack" ] && cp "$run/checkpoints/best.msgpack" "$dest/checkpoints/"
  fi
  echo "$(basename "$run"): $have of ${want:-?} iterations"
done

#!/bin/bash
# Trains a study seed by seed and, as each seed completes, plays its round robin, exports the
# study's small data to studies/<study>/<name> and commits that folder alone. Rerun it to
# resume: finished runs are skipped, a run resumes from its last checkpoint, and a training
# process that stops before its seed is complete is restarted.
#
#   bash tools/run_study.sh NAME "SEEDS" "ARMS" [ROUND_ROBIN [EXTRA_RUN_PATTERN]]
#   bash tools/run_study.sh c4_6x7_cpu "0 1 2 3 4 5 6 7" "baseline adaptive_wrora"
#   bash tools/run_study.sh c4_gumbel "8 9 10 11 12 13 14 15" \
#       "baseline adaptive_wrora fixed_wrora" yes 'runs/study_c4_confirm/arm=baseline,seed=$N'
#   bash tools/run_study.sh c4_cpu_departures_drop "0 1 2 3 4 5 6 7" adaptive_wrora no
#
# ROUND_ROBIN: yes (default) or no. From the environment: ITERATIONS (default 15), the runs'
# length; HORIZONS (default none), earlier iterations whose kept networks (keep_networks)
# get a round robin of their own, in tournament_atNNN; OVERRIDES, further Hydra overrides for the training command (then FOLDER, the
# study's folder under runs/, if they rename it); EXPORT (default studies/<study>/NAME, the
# study folder whose conf/study/ holds NAME's config),
# where the small data go; COMMIT=no to leave git alone.
# EXTRA_RUN_PATTERN: further run folders for each seed's round robin, $N standing for the
# seed (the PUCT baseline that a Gumbel study compares with).
set -u
cd "$(dirname "$0")/.."
export JAX_PLATFORMS=${JAX_PLATFORMS:-cpu}
name=$1 seeds=$2 arms=$3 tour=${4:-yes} extra_pattern=${5:-}
iterations=${ITERATIONS:-15}  # every run's iterations (the CPU studies': 15)
horizons=${HORIZONS:-}
overrides=${OVERRIDES:-}
folder=runs/${FOLDER:-study_$name}
conf=$(ls studies/*/conf/study/"$name".yaml 2>/dev/null | head -1)
if [ -z "${EXPORT:-}" ] && [ -z "$conf" ]; then
  echo "run_study.sh: no study folder has conf/study/$name.yaml (studies/<study>/); set EXPORT" >&2
  exit 2
fi
export_to=${EXPORT:-${conf%/conf/study/*}/$name}
runs_of() {  # seed arm [base]: the run folders of that seed and arm under base (default:
  # the study's folder), any further overrides in their names, as Hydra writes them
  local d
  for d in "${3:-$folder}/arm=$2,"*; do
    case ",${d##*/}," in *",seed=$1,"*) echo "$d" ;; esac
  done
}
complete() {  # seed [base]: every arm of the seed has its iterations under base
  local a run rows
  for a in $arms; do
    run=$(runs_of "$1" "$a" "${2:-$folder}" | head -1)
    [ -n "$run" ] && [ -f "$run/metrics.jsonl" ] || return 1
    rows=$(wc -l < "$run/metrics.jsonl")
    [ "$rows" -ge "$iterations" ] || return 1
  done
}
# Seeds already exported and committed are not trained again (on a fresh machine their run
# folders are gone); the sweep trains the others only.
todo=""
for N in $seeds; do
  committed=$(git ls-files -- "$export_to" | grep -c ",seed=$N/metrics.jsonl$")
  if [ "${COMMIT:-yes}" != no ] && complete "$N" "$export_to" \
      && [ "$committed" -ge "$(echo $arms | wc -w)" ]; then
    echo "$(date) $name seed $N is committed already"
  else
    todo="$todo $N"
  fi
done
seeds=$todo
[ -n "$seeds" ] || { echo "$(date) $name done (every seed committed)"; exit 0; }
mkdir -p runs
# A run committed complete but absent here (a fresh machine) gets its config and metrics
# back: training leaves a complete run without checkpoints as it is, so only the seed's
# other arms train again. Not where a round robin follows: it needs the final networks.
if [ "$tour" != yes ] && [ -z "$horizons" ]; then
  for N in $seeds; do
    for a in $arms; do
      for kept in $(runs_of "$N" "$a" "$export_to"); do
        here="$folder/${kept##*/}"
        if [ ! -e "$here" ] && git ls-files --error-unmatch "$kept/metrics.jsonl" > /dev/null 2>&1 \
            && [ "$(wc -l < "$kept/metrics.jsonl")" -ge "$iterations" ]; then
          mkdir -p "$here" && cp "$kept/config.yaml" "$kept/metrics.jsonl" "$here/" \
            && echo "$(date) $name: the committed $here restored (complete; not trained again)"
        fi
      done
    done
  done
fi
sweep_seeds="seed=$(echo $seeds | tr ' ' ',')"
echo "$(date) start $name (seeds$seeds)"
python -m warmjax.run -m +study="$name" "$sweep_seeds" $overrides >> "runs/$name.log" 2>&1 &
pid=$!
for N in $seeds; do
  until complete "$N"; do
    sleep 60
    if ! kill -0 "$pid" 2>/dev/null && ! complete "$N"; then
      echo "$(date) $name stopped before seed $N was complete; resuming"
      python -m warmjax.run -m +study="$name" "$sweep_seeds" $overrides \
        >> "runs/$name.log" 2>&1 &
      pid=$!
    fi
  done
  if [ "$tour" = yes ]; then
    # On a fresh machine the runs folder has no journal: start from the exported one, which
    # holds the committed seeds' pairs, so that this seed's block joins them.
    for t in tournament $(for h in $horizons; do printf 'tournament_at%03d ' "$h"; done); do
      if [ ! -f "$folder/$t/tournament.json" ] && [ -f "$export_to/$t/tournament.json" ]; then
        mkdir -p "$folder" && cp -r "$export_to/$t" "$folder/$t" \
          && echo "$(date) $name: the exported $t journal copied into $folder"
      fi
    done
    extra=$(N=$N; eval echo "$extra_pattern")
    seed_runs=$(for a in $arms; do runs_of "$N" "$a"; done)
    python -m warmjax.tournament $seed_runs $extra --pairing seed \
      --anchors random --out "$folder/tournament" >> "runs/${name}_tournament.log" 2>&1 \
      || { echo "$(date) the round robin of $name seed $N failed"; exit 1; }
    for h in $horizons; do
      python -m warmjax.tournament $seed_runs $extra --pairing seed --iteration "$h" \
        --anchors random --out "$folder/tournament_at$(printf %03d "$h")" \
        >> "runs/${name}_tournament.log" 2>&1 \
        || { echo "$(date) the round robin of $name seed $N at iteration $h failed"; exit 1; }
    done
  fi
  python -m warmjax.study export "$folder" "$export_to" > /dev/null || exit 1
  if [ "${COMMIT:-yes}" != no ]; then
    git add "$export_to"
    git commit -q -m "study $name: seed $N committed; not analysed" -- "$export_to" \
      && echo "$(date) committed $name seed $N"
  else
    echo "$(date) exported $name seed $N"
  fi
done
wait "$pid"
echo "$(date) $name done"

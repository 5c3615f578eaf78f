#!/bin/bash
# The registered predictor on the five boards (studies/where_it_helps/REGISTRATION.md),
# measured before the study's first run: the primary (the main job's recipe, Rollout
# against its MCTS, both with an untrained network, m = 64) and the secondary (network-free
# MCTS with 100 playouts against the untrained network's MCTS at m = 100). Writes
# predictor/<board>.json and predictor/<board>_pure100.json.
set -eu
cd "$(dirname "$0")/../.."
export JAX_PLATFORMS=${JAX_PLATFORMS:-cpu}
out=studies/where_it_helps/predictor
declare -A boards=(
  [c4_6x6]="game=connect_four"
  [c4_6x7]="game=connect_four game.params.cols=7"
  [hex_7x7]="game=hex_7"
  [othello_6x6]="game=othello"
  [gobang_6x6]="game=gobang"
)
for board in c4_6x6 c4_6x7 hex_7x7 othello_6x6 gobang_6x6; do
  python -m warmjax.advise ${boards[$board]} --out "$out/$board.json" > "$out/$board.txt"
  python -m warmjax.advise ${boards[$board]} search.simulations=100 --warm-player pure_mcts \
    --out "$out/${board}_pure100.json" > "$out/${board}_pure100.txt"
done

#!/usr/bin/env bash
# The wheels a lent GPU machine lacks (it has python3.12, jax with CUDA, flax, optax, chex and
# numpy, and reaches no package registry), downloaded here into .whl/ (git-ignored), which
# the device tool carries (carry: [".whl"]) and benchmarks/gpu_pons.sh installs.
#
#   bash benchmarks/gpu_wheels.sh
set -eu
cd "$(dirname "$0")/.."
mkdir -p .whl
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
  --implementation py --abi none --platform any -d .whl \
  "mctx>=0.0.71,<0.1" "pgx>=2.6,<2.7" "hydra-core>=1.3.8,<1.4" "omegaconf>=2.3,<2.4" \
  "tensorboardX>=2.6" "svgwrite>=1.4" \
  "hydra-submitit-launcher>=1.2,<1.3" "submitit>=1.5" "cloudpickle>=3"
# omegaconf's parser runtime is published as a source archive only: built here (pure Python).
python3 -m pip wheel -q --no-deps -w .whl "antlr4-python3-runtime==4.9.3"
ls .whl

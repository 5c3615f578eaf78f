# Sourced by the GPU scripts (gpu_session.sh, gpu_pons.sh) from the checkout's root: where
# the lent GPU machine has the wheels it lacks in .whl/ (benchmarks/gpu_wheels.sh fills it
# here), installs them into /tmp/site and puts that and the checkout on PYTHONPATH.
if [ -d .whl ]; then  # the GPU machine lacks mctx, pgx, hydra-core, omegaconf, ...
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
  export PYTHONPATH=/tmp/site:$PWD/.site:$PWD
fi

"""Shared fixtures. The tests are a package (`tests/__init__.py`): helper modules are
imported relatively (`from .helpers import ...`) and nothing edits `sys.path`.

Matrix products run at `highest` precision in the tests: on a GPU, JAX's default lets
float32 matmuls use TF32 (about 1e-3 relative error), which the comparisons with the
float64 reference search and other hand computations would read as a bug. On a CPU the
setting changes no number, but it is part of every compiled program, so it is set in the
environment (`JAX_DEFAULT_MATMUL_PRECISION`), where the commands the tests start read it
too: a command then compiles the programs the test processes compile, and the two share
them through the compilation cache below.

Every process of the session, the command-line runs the tests start included, shares one
JAX persistent compilation cache (`JAX_COMPILATION_CACHE_DIR`, removed at the end), so a
program that several tests compile, such as the smoke run's iteration, compiles once.

Most tests compile far more than they compute: a smoke run compiles its iteration for about
30 s and plays it in under one. So the session compiles with most of XLA's optimisations off
(`JAX_DISABLE_MOST_OPTIMIZATIONS`, inherited by the commands the tests start), and the few
tests that compute more than they compile turn them back on with the `optimised` marker or,
in a fixture, `helpers.xla_optimised()`. The session also compiles fusions with XLA's
older CPU emitters (`--xla_cpu_use_fusion_emitters=false` in `XLA_FLAGS`): a smoke run's
iteration then compiled in 25-65 s where it took 34-77 s with the newer ones, beside other
jobs (1 December 2026); where the installed XLA does not know that flag, it is left out.
A setting the caller made is kept.
"""

from __future__ import annotations

import gc
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# Before JAX is imported, so that its configuration reads them; subprocesses inherit them.
if not os.environ.get("JAX_COMPILATION_CACHE_DIR"):
    os.environ["JAX_COMPILATION_CACHE_DIR"] = tempfile.mkdtemp(prefix="warmjax-tests-jax-")
os.environ.setdefault("JAX_DISABLE_MOST_OPTIMIZATIONS", "1")
os.environ.setdefault("JAX_DEFAULT_MATMUL_PRECISION", "highest")
OLD_EMITTERS = "--xla_cpu_use_fusion_emitters=false"


def xla_accepts(flag: str) -> bool:
    """Whether this jaxlib's XLA knows `flag`: an unknown flag in `XLA_FLAGS` aborts the
    process, and pyproject.toml allows jaxlib versions that may have dropped it."""
    env = {**os.environ, "XLA_FLAGS": flag, "JAX_PLATFORMS": "cpu"}
    probe = "import jax.numpy as jnp; jnp.zeros(1).block_until_ready()"
    return subprocess.run([sys.executable, "-c", probe], env=env,
                          capture_output=True).returncode == 0


if ("xla_cpu_use_fusion_emitters" not in os.environ.get("XLA_FLAGS", "")
        and xla_accepts(OLD_EMITTERS)):
    os.environ["XLA_FLAGS"] = " ".join([os.environ.get("XLA_FLAGS", ""), OLD_EMITTERS]).strip()

import jax  # noqa: E402
import pytest  # noqa: E402

# Also here, in case something imported JAX before this file set the environment.
jax.config.update("jax_default_matmul_precision", os.environ["JAX_DEFAULT_MATMUL_PRECISION"])

from warmjax.train import arena_replay, loop  # noqa: E402

from .helpers import TEST_CACHE, write_tiny_run, xla_optimised  # noqa: E402


def pytest_collection_modifyitems(config, items):
    """A `heavy` test is also `slow`: `-m "not slow"` replaces the default `-m 'not heavy'`
    and must still leave the heavy ones out."""
    for item in items:
        if item.get_closest_marker("heavy") is not None:
            item.add_marker(pytest.mark.slow)


def pytest_sessionfinish(session, exitstatus):
    """Removes the session's compilation cache if this session made it (the controlling
    process only, under pytest-xdist: its workers share the cache it made)."""
    worker = hasattr(session.config, "workerinput")
    if not worker and Path(TEST_CACHE).name.startswith("warmjax-tests-jax-"):
        shutil.rmtree(TEST_CACHE, ignore_errors=True)


@pytest.fixture(scope="module", autouse=True)
def free_compiled_programs():
    """After each test module, drops the programs it compiled: the training loop's kept
    programs, JAX's in-memory caches and the module's fixtures (collected). The suite is one
    process, and a compiled CPU program holds thousands of memory mappings (the kernel allows
    65,530); kept for the whole session, they preceded a segmentation fault in a compile
    late in the suite (CI, stop 55). The persistent compilation cache still spares later
    modules most recompiles."""
    yield
    loop.forget_programs()
    arena_replay.forget_replayers()
    jax.clear_caches()
    gc.collect()


@pytest.fixture(autouse=True)
def optimised_when_marked(request):
    """A test marked `optimised` compiles with XLA's optimisations on (the session's
    default is off: see the module's docstring)."""
    if request.node.get_closest_marker("optimised") is None:
        yield
        return
    with xla_optimised():
        yield


@pytest.fixture
def tiny_run(tmp_path) -> Path:
    """A Connect Four run folder with an untrained tiny network, in `tmp_path`."""
    return write_tiny_run(tmp_path)

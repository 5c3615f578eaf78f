"""Shared fixtures. The tests are a package (`tests/__init__.py`): helper modules are
imported relatively (`from .helpers import ...`) and nothing edits `sys.path`.

Matrix products run at `highest` precision in the tests: on a GPU, JAX's default lets
float32 matmuls use TF32 (about 1e-3 relative error), which the comparisons with the
float64 reference search and other hand computations would read as a bug. On a CPU the
setting changes nothing.
"""

from __future__ import annotations

from pathlib import Path

import jax
import pytest

jax.config.update("jax_default_matmul_precision", "highest")

from .helpers import write_tiny_run


@pytest.fixture
def tiny_run(tmp_path) -> Path:
    """A Connect Four run folder with an untrained tiny network, in `tmp_path`."""
    return write_tiny_run(tmp_path)

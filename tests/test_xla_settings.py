"""The test session's XLA settings (tests/conftest.py): optimisations off by default, on for
a test marked `optimised` and inside `helpers.xla_optimised()`, for this process and the
commands it starts, and restored afterwards; and the matrix products' precision, the same
in the commands as in this process."""

from __future__ import annotations

import os
import subprocess
import sys

import jax
import pytest

from .helpers import xla_optimised

FLAG = "jax_disable_most_optimizations"
ENV = "JAX_DISABLE_MOST_OPTIMIZATIONS"


def _child_value(flag: str) -> str:
    """The value of JAX's setting `flag` that a command started now would compile with."""
    out = subprocess.run([sys.executable, "-c", f"import jax; print(jax.config.values['{flag}'])"],
                         capture_output=True, text=True, check=True, env={**os.environ})
    return out.stdout.strip()


def _child_setting() -> bool:
    """The optimisation setting a command started now would compile with."""
    return _child_value(FLAG) == "True"


@pytest.mark.optimised
def test_a_marked_test_compiles_optimised_and_so_do_its_commands():
    assert jax.config.values[FLAG] is False
    assert _child_setting() is False


def test_the_helper_turns_optimisations_on_and_restores_the_session_setting():
    before, before_env = jax.config.values[FLAG], os.environ.get(ENV)
    with xla_optimised():
        assert jax.config.values[FLAG] is False and os.environ[ENV] == "0"
    assert jax.config.values[FLAG] is before and os.environ.get(ENV) == before_env


def test_the_session_default_reaches_the_commands_it_starts():
    # Off by default (conftest); a caller's own JAX_DISABLE_MOST_OPTIMIZATIONS is kept.
    expected = os.environ[ENV].lower() in ("1", "true")
    assert jax.config.values[FLAG] is expected
    assert _child_setting() is expected


def test_a_command_multiplies_matrices_at_the_session_precision():
    # The precision is part of each compiled program: a command that ran at JAX's default
    # while the tests ran at `highest` compiled its own copy of every program the tests had
    # already put in the session's compilation cache (`highest` unless the caller set another).
    ours = jax.config.values["jax_default_matmul_precision"]
    assert ours == os.environ["JAX_DEFAULT_MATMUL_PRECISION"]
    assert _child_value("jax_default_matmul_precision") == ours

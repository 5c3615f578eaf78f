"""Shared fixtures. The tests are a package (`tests/__init__.py`): helper modules are
imported relatively (`from .helpers import ...`) and nothing edits `sys.path`."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import write_tiny_run


@pytest.fixture
def tiny_run(tmp_path) -> Path:
    """A Connect Four run folder with an untrained tiny network, in `tmp_path`."""
    return write_tiny_run(tmp_path)

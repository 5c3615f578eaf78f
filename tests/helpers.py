"""Helpers shared by several test modules: the repository root and a tiny run folder."""

from __future__ import annotations

from pathlib import Path

import jax

from warmjax.games import make
from warmjax.nets import make_network
from warmjax.train import run_folder
from warmjax.train.config import GameConfig, ModelConfig, RunConfig, SearchSettings
from warmjax.train.network_io import save_network

ROOT = Path(__file__).resolve().parent.parent


def write_tiny_run(folder: Path, game: str = "connect_four") -> Path:
    """A run folder holding an untrained tiny network (4 channels) and its config."""
    folder.mkdir(parents=True, exist_ok=True)
    env = make(game)
    model = ModelConfig(preset=None, channels=4, fc=(8, 8))
    config = RunConfig(game=GameConfig(name=game), model=model,
                       search=SearchSettings(simulations=4))
    network = make_network(env.num_actions, env.observation_shape, None, channels=4, fc=(8, 8))
    save_network(folder, config, network, network.init(jax.random.PRNGKey(0)), iteration=1)
    run_folder.write_config(folder, config.to_dict())
    return folder

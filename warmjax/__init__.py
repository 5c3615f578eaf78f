"""warmjax: warm-start AlphaZero-like self-play (Wang, Preuss and Plaat) in JAX.

The Python API (docs/api.md): make a game, load a trained run's agent, build any player by
name, set up a position from moves or an ASCII board, and open up a search of it.

    import warmjax
    game = warmjax.make_game("connect_four", rows=6, cols=6)
    agent = warmjax.load_agent("runs/adaptive_c4/profile=fast", temperature_moves=0)
    look = agent.analyse(warmjax.position(game, "d d c"))
    look.action, look.prior, look.visits, look.q, look.value

Training, tournaments and reports are commands: `python -m warmjax.run`, and the others
the README lists. Importing this package loads neither JAX nor pgx; the names below do,
when first used.
"""

import importlib as _importlib
import importlib.metadata as _metadata
import sys as _sys

from warmjax import cli as _cli

try:
    __version__ = _metadata.version("warmjax")
except _metadata.PackageNotFoundError:  # a checkout on PYTHONPATH, not installed
    __version__ = "0+unknown"

# The public names, from `warmjax.api` when first used.
__all__ = ["Agent", "Analyser", "Analysis", "PLAYERS", "SearchConfig", "__version__",
           "load_agent", "make_game", "make_player", "perfect_values", "position"]


def __getattr__(name: str):
    if name in __all__:
        return getattr(_importlib.import_module("warmjax.api"), name)
    raise AttributeError(f"module 'warmjax' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))


# A `python -m warmjax.<command>` process imports this package first: from here on its
# Ctrl-C is one line and exit 2, not a traceback (`cli.exit_quietly_on_interrupt`).
if (_command := _cli.command_of(getattr(_sys, "orig_argv", []))) is not None:
    _cli.exit_quietly_on_interrupt(_command)

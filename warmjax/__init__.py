"""warmjax: warm-start AlphaZero-like self-play (Wang, Preuss and Plaat) in JAX."""

import sys as _sys

from warmjax import cli as _cli

# A `python -m warmjax.<command>` process imports this package first: from here on its
# Ctrl-C is one line and exit 2, not a traceback (`cli.exit_quietly_on_interrupt`).
if (_command := _cli.command_of(getattr(_sys, "orig_argv", []))) is not None:
    _cli.exit_quietly_on_interrupt(_command)

"""The old name of `warmjax.train.run_id` (`RunVariant` is now `RunId`); importing it still
works, with a one-line message."""

import sys as _sys

from warmjax.train.run_id import RunId, enhancement_name, game_name

RunVariant = RunId
print("warmjax: warmjax.train.run_variant is now warmjax.train.run_id (RunVariant is RunId)",
      file=_sys.stderr)

__all__ = ["RunId", "RunVariant", "enhancement_name", "game_name"]

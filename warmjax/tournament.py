"""Round-robin tournament with Bayesian Elo: `python -m warmjax.tournament RUN... --out DIR`.

See `warmjax.evaluate.tournament` for the settings, the outputs and resuming.
"""

from warmjax.evaluate.tournament import main

if __name__ == "__main__":
    main()

"""A trained Connect Four agent against perfect play: `python -m warmjax.oracle RUN [options]`.

See `warmjax.evaluate.oracle` for the settings and the output; the solver and the labelled
set are the rest of this package.
"""

from warmjax.evaluate.oracle import main

if __name__ == "__main__":
    main()

"""A trained network against reference opponents: `python -m warmjax.versus RUN [options]`.

See `warmjax.evaluate.versus` for the settings and the output.
"""

from warmjax.evaluate.versus import main

if __name__ == "__main__":
    main()

"""The explorer: a local web page to play a trained agent and look inside its search
(`python -m warmjax.explore RUN`; docs/experiments.md, "The explorer"). `session.py`
computes every answer with the public API; `app.py` serves it (Starlette); `static/` is the
page. Needs the `explore` extra (`pip install -e '.[explore]'`)."""

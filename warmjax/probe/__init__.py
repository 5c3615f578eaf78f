"""Scoring a player against perfect play (the probe): `score` judges players on a labelled
set of solved positions, `search_labels` labels a game without a solver by deep search.
Above the search, which they run; the exact solvers and the labelled sets they read are in
`warmjax.perfect`, on the ground floor."""

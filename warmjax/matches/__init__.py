"""Playing matches: trained agents and reference opponents, batched pair play, round-robin
tournaments with their typed folder and resume journal, and scoring players against the
perfect-play labels.

- `agent`: a run folder's network as a player (`load_agent`);
- `opponents`: the network-free and untrained reference players;
- `pair_play`: two players over many games, compiled once (`play_pair`, `make_match`);
- `entrants`, `batches`, `round_robin`: the tournament (`run_tournament`);
- `tournament_folder`: the one reader and writer of a tournament's files, and of a run's
  `oracle.json` and `versus.json`;
- `oracle_run`: a run's players scored on the labelled positions (`python -m warmjax.oracle`);
- `experiment_cli`: what the orientation and head-to-head commands share.
"""

"""warmjax's Hydra launcher `hydra/launcher=vmap` (see `vmap_launcher.py`)."""

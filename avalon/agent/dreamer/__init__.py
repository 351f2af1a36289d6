"""DreamerV2 (Hafner et al. 2021) with Gaussian latents, as the paper ran it: the pieces built so
far. ``objectives.py``: lambda-returns for the actor-critic in imagination and the balanced KL of
the world model."""

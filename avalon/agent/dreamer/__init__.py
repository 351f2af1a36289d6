"""DreamerV2 (Hafner et al. 2021) with Gaussian latents, as the paper ran it (section 5.5, Table 7).

``config`` (``DreamerConfig``), ``objectives`` (lambda-returns, balanced KL), ``networks`` (MLPs,
the RGBD encoder and decoder), ``world_model`` (RSSM, decoders, heads and their loss),
``behavior`` (actor, critic, imagination, their losses), ``learner`` (models, optimisers, one
update), ``replay`` (the sequence replay buffer), ``acting`` (online filtering and acting),
``trainer`` (``train_dreamer``, on the common training loop) and ``policy`` (a checkpoint as a
recurrent policy).

Light on purpose (no torch): the registry reads ``NAME`` when ``avalon``'s parser is built.
"""

#: The algorithm's name: ``avalon train dreamer``, and the ``"algorithm"`` of its checkpoints.
NAME = "dreamer"

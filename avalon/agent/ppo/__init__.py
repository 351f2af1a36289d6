"""PPO (the paper's section 6.2, Table 7): ``config`` (``PPOConfig``), ``losses`` (pure functions
of tensors), ``rollout`` (one unroll's storage), ``learner`` (one update), ``trainer``
(``train_ppo``, on the common training loop) and ``policy`` (a checkpoint as a policy).

Light on purpose (no torch): the registry reads ``NAME`` when ``avalon``'s parser is built.
"""

#: The algorithm's name: ``avalon train ppo``, and the ``"algorithm"`` of its checkpoints.
NAME = "ppo"

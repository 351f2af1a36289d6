"""PPO's presets (``avalon train ppo --preset cpu|gpu``; :mod:`avalon.agent.common.presets`).

``gpu`` is the paper's Table 7 (PPO column; epochs and minibatches from the original Avalon PPO,
Table 7's batch of 16 as 16 simulators, its 96 px observations). ``cpu`` is what learned eat
fastest here on 2 cores (docs/agent.md, "Presets", says what each value changes and why).
Light on purpose (no torch): the registry reads them when ``avalon``'s parser is built.
"""

from avalon.agent.common.presets import CPU, GPU, Preset

TABLE_7 = Preset(
    name=GPU,
    summary="the paper's Table 7, sized for a GPU machine",
    run={"envs": 16, "resolution": 96, "difficulty_step": 3e-4},
    config={
        "learning_rate": 2.5e-4, "adam_epsilon": 1e-5, "max_grad_norm": 0.5, "value_cost": 1.0, "entropy_cost": 1.5e-4,
        "discount": 0.99, "gae_lambda": 0.83, "clip_range": 0.03, "unroll_steps": 200, "epochs": 2, "minibatches": 1,
        "learning_rate_end": None,
    },
    for_gpu=True,
)

#: Each value's reason (docs/agent.md, "Learning eat on a CPU"): 48 px costs less to simulate and
#: learn from; a 4x learning rate moves the policy within the few updates a short run has, falling
#: to 0 so that it settles as its std shrinks; an entropy cost 7x Table 7's keeps the choices from
#: collapsing before the first successes pay; clip 0.1 lets each update move; the curriculum's step
#: 3x Table 7's brings the worlds an evaluation up to d = 0.2 holds within the run.
FAST_ON_CPU = Preset(
    name=CPU,
    summary="what learns eat fastest on a 2-core CPU",
    run={"envs": 2, "resolution": 48, "difficulty_step": 1e-3},
    config={"learning_rate": 1e-3, "learning_rate_end": 0.0, "entropy_cost": 1e-3, "clip_range": 0.1},
)

PRESETS = (FAST_ON_CPU, TABLE_7)

"""Acting with DreamerV2: the world model filters each env's latent state online, the actor
picks the action from it. Shared by the trainer's collection and the evaluation policy."""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor

from avalon.agent.dreamer.behavior import Actor
from avalon.agent.dreamer.world_model import State, WorldModel
from avalon.env.spaces import RGBD_KEY


class LatentFilter:
    """Each env's RSSM state and the action it took last, indexed by an env's row (0, 1, ...;
    rows grow as needed). :meth:`act` folds a batch of observations into the rows' states and
    returns the actor's flat actions; a row marked ``is_first`` starts afresh (zero state and action)."""

    def __init__(self, world_model: WorldModel, actor: Actor, rows: int = 1) -> None:
        self.world_model, self.actor = world_model, actor
        self.device = next(world_model.parameters()).device
        self.action_size = world_model.action_layout.action_size
        self.state = world_model.rssm.initial(rows, self.device)
        self.actions = torch.zeros(rows, self.action_size, device=self.device)

    @property
    def rows(self) -> int:
        return self.actions.shape[0]

    def _grow(self, rows: int) -> None:
        extra = rows - self.rows
        fresh = self.world_model.rssm.initial(extra, self.device)
        self.state = State(*(torch.cat([old, new]) for old, new in zip(self.state, fresh)))
        self.actions = torch.cat([self.actions, torch.zeros(extra, self.action_size, device=self.device)])

    def act(self, tensors: dict[str, Tensor], is_first: np.ndarray, rows: np.ndarray | None = None,
            deterministic: bool = False, generator: torch.Generator | None = None) -> Tensor:
        """Flat actions ``(B, A)`` (on the CPU) for raw observation tensors of ``B`` envs
        (:meth:`ObservationLayout.to_tensors`), ``is_first`` ``(B,)`` and the envs' ``rows``
        (default ``0 .. B - 1``)."""
        batch = tensors[RGBD_KEY].shape[0]
        rows = np.arange(batch) if rows is None else np.asarray(rows, np.int64)
        if rows.shape != (batch,) or np.asarray(is_first).shape != (batch,):
            raise ValueError(f"rows {rows.shape} and is_first {np.asarray(is_first).shape} must both be ({batch},)")
        if rows.min(initial=0) < 0 or len(set(rows.tolist())) != batch:
            raise ValueError(f"rows {rows.tolist()} must be distinct non-negative ints")
        if rows.max(initial=-1) >= self.rows:
            self._grow(int(rows.max()) + 1)
        index = torch.as_tensor(rows, device=self.device)
        first = torch.as_tensor(np.asarray(is_first, bool), device=self.device)
        with torch.no_grad():
            model = self.world_model
            embed = model.embed(tensors[RGBD_KEY].to(self.device), tensors["proprio"].to(self.device))
            previous = self.state.map(lambda part: part[index])
            action_input = model.action_encoding(self.actions[index])
            state, _prior = model.rssm.observe_step(previous, action_input, embed, first, generator)
            distribution = self.actor(state.feature())
            actions = distribution.mode() if deterministic else distribution.sample(generator)
            for part, new in zip(self.state, state):
                part[index] = new
            self.actions[index] = actions
        return actions.cpu()

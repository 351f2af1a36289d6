"""DreamerV2's world model with Gaussian latents (the paper's setting: no discrete latents).

::

    embed_t  = [ConvEncoder(rgbd_t), MLP(symlog(proprio_t / scale))]
    deter_t  = GRU(deter_{t-1}, ELU(Linear([stoch_{t-1}, action_{t-1}])))        (zeros before an is_first)
    prior    p(stoch_t | deter_t)          = Normal(MLP(deter_t))
    posterior q(stoch_t | deter_t, embed_t) = Normal(MLP([deter_t, embed_t]))
    feature  = [deter_t, stoch_t]  ->  image (RGBD) and proprioception decoders, reward and
                                       continuation heads

The loss is the negative log-likelihood of the image, the proprioception and the reward under
unit-variance Normals (half the squared error, summed over each one's values), the continuation's
binary cross-entropy (target ``1 - is_terminal``), and ``kl_scale`` times the balanced KL of
:func:`~avalon.agent.dreamer.objectives.balanced_kl_loss`.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor, nn
from torch.distributions import Normal
from torch.nn import functional as F

from avalon.agent.common.distributions import ActionLayout
from avalon.agent.common.observations import ObservationLayout, symlog
from avalon.agent.dreamer.config import DreamerConfig
from avalon.agent.dreamer.networks import ActionEncoding, ConvDecoder, ConvEncoder, image_to_float, mlp
from avalon.agent.dreamer.objectives import balanced_kl_loss
from avalon.env.spaces import RGBD_KEY


class State(NamedTuple):
    """The RSSM's state: ``deter`` ``(..., deter_size)``, ``stoch`` ``(..., stoch_size)`` (a sample)
    and the mean and std of the distribution it was drawn from."""

    deter: Tensor
    stoch: Tensor
    mean: Tensor
    std: Tensor

    def feature(self) -> Tensor:
        return torch.cat([self.deter, self.stoch], dim=-1)

    def distribution(self) -> Normal:
        return Normal(self.mean, self.std)

    def map(self, function) -> "State":
        return State(*(function(part) for part in self))


class RSSM(nn.Module):
    """The recurrent state-space model: one :meth:`imagine_step` (prior) or :meth:`observe_step` (posterior) at a time."""

    def __init__(self, config: DreamerConfig, action_size: int, embed_size: int) -> None:
        super().__init__()
        self.deter_size, self.stoch_size, self.min_std = config.deter_size, config.stoch_size, config.min_latent_std
        self.input = nn.Sequential(nn.Linear(config.stoch_size + action_size, config.rssm_hidden), nn.ELU())
        self.gru = nn.GRUCell(config.rssm_hidden, config.deter_size)
        self.prior = nn.Sequential(
            nn.Linear(config.deter_size, config.rssm_hidden), nn.ELU(), nn.Linear(config.rssm_hidden, 2 * config.stoch_size)
        )
        self.posterior = nn.Sequential(
            nn.Linear(config.deter_size + embed_size, config.rssm_hidden), nn.ELU(),
            nn.Linear(config.rssm_hidden, 2 * config.stoch_size),
        )

    def initial(self, batch: int, device: torch.device | str = "cpu") -> State:
        zeros = torch.zeros(batch, self.deter_size, device=device)
        stoch = torch.zeros(batch, self.stoch_size, device=device)
        return State(zeros, stoch, stoch, torch.ones_like(stoch))

    def _latent(self, parameters: Tensor, generator: torch.Generator | None) -> tuple[Tensor, Tensor, Tensor]:
        mean, raw_std = parameters.chunk(2, dim=-1)
        std = F.softplus(raw_std) + self.min_std
        noise = torch.randn(mean.shape, generator=generator, device=mean.device, dtype=mean.dtype)
        return mean + std * noise, mean, std  # reparameterised: gradients reach mean and std

    def imagine_step(self, state: State, action: Tensor, generator: torch.Generator | None = None) -> State:
        """The prior state after ``state`` and ``action`` (the world model's encoding of it)."""
        deter = self.gru(self.input(torch.cat([state.stoch, action], dim=-1)), state.deter)
        stoch, mean, std = self._latent(self.prior(deter), generator)
        return State(deter, stoch, mean, std)

    def observe_step(
        self, state: State, action: Tensor, embed: Tensor, is_first: Tensor, generator: torch.Generator | None = None
    ) -> tuple[State, State]:
        """(posterior, prior) at the step whose observation gives ``embed``; where ``is_first``,
        the previous state and action are zeroed first (a new episode)."""
        keep = (~is_first).to(action.dtype).unsqueeze(-1)
        state = State(state.deter * keep, state.stoch * keep, state.mean, state.std)
        prior = self.imagine_step(state, action * keep, generator)
        stoch, mean, std = self._latent(self.posterior(torch.cat([prior.deter, embed], dim=-1)), generator)
        return State(prior.deter, stoch, mean, std), prior


class WorldModel(nn.Module):
    """Encoder, RSSM, decoders and heads; :meth:`loss` on a batch of replayed sequences."""

    def __init__(self, observation_layout: ObservationLayout, action_layout: ActionLayout, config: DreamerConfig) -> None:
        super().__init__()
        self.observation_layout, self.action_layout, self.config = observation_layout, action_layout, config
        self.action_encoding = ActionEncoding(action_layout)
        self.image_encoder = ConvEncoder(observation_layout.image_shape, config.cnn_depth, config.cnn_layers)
        proprio_size = observation_layout.proprio_size
        self.register_buffer("proprio_scales", torch.from_numpy(observation_layout.scales.copy()))
        self.proprio_encoder = mlp(proprio_size, config.mlp_units, config.mlp_layers - 1, config.mlp_units) if proprio_size else None
        embed_size = self.image_encoder.features + (config.mlp_units if proprio_size else 0)
        self.rssm = RSSM(config, self.action_encoding.size, embed_size)
        self.feature_size = config.deter_size + config.stoch_size
        self.image_decoder = ConvDecoder(self.feature_size, observation_layout.image_shape, config.cnn_depth, config.cnn_layers)
        self.proprio_decoder = mlp(self.feature_size, config.mlp_units, config.mlp_layers, proprio_size) if proprio_size else None
        self.reward_head = mlp(self.feature_size, config.mlp_units, config.mlp_layers, 1)
        self.continue_head = mlp(self.feature_size, config.mlp_units, config.mlp_layers, 1)

    def proprio_target(self, proprio: Tensor) -> Tensor:
        """The proprioception as the encoder reads it and the decoder predicts it: ``symlog(x / scale)``."""
        return symlog(proprio / self.proprio_scales)

    def embed(self, rgbd: Tensor, proprio: Tensor) -> Tensor:
        """``(N, embed_size)`` of a batch of raw observations (uint8 images, raw proprioception)."""
        parts = [self.image_encoder(rgbd)]
        if self.proprio_encoder is not None:
            parts.append(F.elu(self.proprio_encoder(self.proprio_target(proprio))))
        return torch.cat(parts, dim=-1)

    def observe(self, sequence: dict[str, Tensor], state: State | None = None,
                generator: torch.Generator | None = None) -> tuple[State, State]:
        """Filters time-major sequences ``(T, B, ...)`` (keys of :meth:`ReplayBuffer.sample`):
        (posteriors, priors), each a :class:`State` of ``(T, B, ...)`` tensors."""
        steps, batch = sequence["is_first"].shape
        embeds = self.embed(sequence[RGBD_KEY].flatten(0, 1), sequence["proprio"].flatten(0, 1)).unflatten(0, (steps, batch))
        actions = self.action_encoding(sequence["action"])
        state = state if state is not None else self.rssm.initial(batch, embeds.device)
        posteriors, priors = [], []
        for t in range(steps):
            state, prior = self.rssm.observe_step(state, actions[t], embeds[t], sequence["is_first"][t], generator)
            posteriors.append(state)
            priors.append(prior)
        stack = lambda states: State(*(torch.stack(parts) for parts in zip(*states)))  # noqa: E731
        return stack(posteriors), stack(priors)

    def loss(self, sequence: dict[str, Tensor], generator: torch.Generator | None = None) -> tuple[Tensor, State, dict[str, float]]:
        """(total loss, the posterior states ``(T, B, ...)``, statistics) on a replayed batch."""
        posteriors, priors = self.observe(sequence, generator=generator)
        features = posteriors.feature()
        flat = features.flatten(0, 1)
        image = self.image_decoder(flat).unflatten(0, features.shape[:2])
        image_loss = 0.5 * (image - image_to_float(sequence[RGBD_KEY])).pow(2).sum(dim=(-3, -2, -1)).mean()
        losses = {"image_loss": image_loss}
        if self.proprio_decoder is not None:
            proprio = self.proprio_decoder(features)
            losses["proprio_loss"] = 0.5 * (proprio - self.proprio_target(sequence["proprio"])).pow(2).sum(-1).mean()
        losses["reward_loss"] = 0.5 * (self.reward_head(features).squeeze(-1) - sequence["reward"]).pow(2).mean()
        continues = (~sequence["is_terminal"]).float()
        losses["continue_loss"] = F.binary_cross_entropy_with_logits(self.continue_head(features).squeeze(-1), continues)
        kl_loss, kl = balanced_kl_loss(posteriors.distribution(), priors.distribution(), self.config.kl_balance, self.config.free_nats)
        total = sum(losses.values()) + self.config.kl_scale * kl_loss
        stats = {name: float(value.detach()) for name, value in losses.items()}
        stats.update(model_loss=float(total.detach()), kl=float(kl))
        return total, posteriors, stats

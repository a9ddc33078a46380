"""The arena: where agents meet games. One lockstep play loop for everything that plays deals.

Training rollouts (``train.rollout``), behaviour-cloning demonstrations (``train.pretrain``),
duplicate matches and in-training evaluation (``train.evaluation``), the decision-kind ablation
and the league all play through :func:`play`; they differ only in who sits where
(:class:`Deal`), what they record (``finished``, and arena actors such as the learner) and how
they schedule deals (``start``). :class:`AgentCache` holds the "one shared instance if it is
shareable, else one per seat" rule, :func:`env_shape` / :func:`check_shape` the shape check.

Layering: ``envs`` (rules cores, envs, game descriptions) <- ``agents`` <- ``arena`` <- ``train``.
"""

from arena.loop import AgentError, Deal, Episode, Finished, Request, episode_of, play
from arena.seats import AgentCache, check_shape, env_shape

__all__ = ["AgentCache", "AgentError", "Deal", "Episode", "Finished", "Request", "check_shape", "env_shape",
           "episode_of", "play"]

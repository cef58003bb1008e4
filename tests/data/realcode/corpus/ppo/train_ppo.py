"""A PPO update step as cleanrl's `ppo.py` writes it (vwxyzjn/cleanrl, MIT License): its `Agent`
(`layer_init`, a Tanh critic and actor, `Categorical`), its clipped policy loss and value loss, and
the update compiled whole the way pytorch-labs/LeanRL's `*_torchcompile.py` scripts do it
(`update = torch.compile(update)`: forward, loss, `loss.backward()`, clipping, `optimizer.step()`).
The loss alone is compiled too (`ppo_loss`), as a forward-only compile. No environment: a random
CartPole-sized batch (4 observations, 2 actions), random init."""
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.distributions.categorical import Categorical

clip_coef, ent_coef, vf_coef, max_grad_norm = 0.2, 0.01, 0.5, 0.5


def layer_init(layer, std=np.sqrt(2), bias_const=0.0):
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self, n_obs=4, n_act=2):
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(n_obs, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, 1), std=1.0),
        )
        self.actor = nn.Sequential(
            layer_init(nn.Linear(n_obs, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, n_act), std=0.01),
        )

    def get_value(self, x):
        return self.critic(x)

    def get_action_and_value(self, x, action=None):
        logits = self.actor(x)
        probs = Categorical(logits=logits)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


agent = Agent()
optimizer = optim.Adam(agent.parameters(), lr=2.5e-4, eps=1e-5)


def ppo_loss(obs, actions, logprobs, advantages, returns):
    _, newlogprob, entropy, newvalue = agent.get_action_and_value(obs, actions)
    logratio = newlogprob - logprobs
    ratio = logratio.exp()
    mb_advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    pg_loss1 = -mb_advantages * ratio
    pg_loss2 = -mb_advantages * torch.clamp(ratio, 1 - clip_coef, 1 + clip_coef)
    pg_loss = torch.max(pg_loss1, pg_loss2).mean()
    v_loss = 0.5 * ((newvalue.view(-1) - returns) ** 2).mean()
    entropy_loss = entropy.mean()
    return pg_loss - ent_coef * entropy_loss + v_loss * vf_coef


def update(obs, actions, logprobs, advantages, returns):
    optimizer.zero_grad()
    loss = ppo_loss(obs, actions, logprobs, advantages, returns)
    loss.backward()
    nn.utils.clip_grad_norm_(agent.parameters(), max_grad_norm)
    optimizer.step()
    return loss.detach()


loss_fn = torch.compile(ppo_loss)
update = torch.compile(update)
obs, actions = torch.randn(8, 4), torch.randint(0, 2, (8,))
logprobs, advantages, returns = torch.randn(8), torch.randn(8), torch.randn(8)
loss = loss_fn(obs, actions, logprobs, advantages, returns)
loss = update(obs, actions, logprobs, advantages, returns)

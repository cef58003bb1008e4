"""Export CleanRL's recurrent PPO agent (ppo_atari_lstm): the policy step a deployment runs."""

from types import SimpleNamespace

import torch
from ppo_atari_lstm import Agent
from torch import nn
from torch.export import Dim


class Policy(nn.Module):
    """The agent has no forward: export the acting step."""

    def __init__(self, agent):
        super().__init__()
        self.agent = agent

    def forward(self, x, h, c, done):
        action, logprob, _, value, (h, c) = self.agent.get_action_and_value(x, (h, c), done)
        return action, logprob, value, h, c


class Value(nn.Module):
    def __init__(self, agent):
        super().__init__()
        self.agent = agent

    def forward(self, x, h, c, done):
        return self.agent.get_value(x, (h, c), done)


if __name__ == "__main__":
    envs = SimpleNamespace(single_action_space=SimpleNamespace(n=6))
    agent = Agent(envs).eval()
    num_envs, steps = 2, 3
    x = torch.randint(0, 255, (steps * num_envs, 1, 84, 84)).float()
    h = torch.zeros(1, num_envs, 128)
    c = torch.zeros(1, num_envs, 128)
    done = torch.zeros(steps * num_envs)
    torch.export.export(Policy(agent), (x, h, c, done))
    torch.export.export(Value(agent), (x, h, c, done))
    rows = Dim("rows")
    torch.export.export(Value(agent), (x, h, c, done), dynamic_shapes=({0: rows}, None, None, {0: rows}))

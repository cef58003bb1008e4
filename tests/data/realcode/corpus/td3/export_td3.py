"""Export TD3's actor and twin critic for a 17-dimensional state, 6-dimensional action."""

import torch
from TD3 import Actor, Critic
from torch.export import Dim

if __name__ == "__main__":
    state_dim, action_dim = 17, 6
    actor = Actor(state_dim, action_dim, max_action=1.0).eval()
    critic = Critic(state_dim, action_dim).eval()
    state = torch.randn(4, state_dim)
    action = torch.randn(4, action_dim)
    batch = Dim("batch")
    torch.export.export(actor, (state,), dynamic_shapes=({0: batch},))
    torch.export.export(critic, (state, action), dynamic_shapes=({0: batch}, {0: batch}))

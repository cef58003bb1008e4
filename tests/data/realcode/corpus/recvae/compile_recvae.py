"""RecVAE's encoder, written after RecBole's (RUCAIBench/RecBole
`recbole/model/general_recommender/recvae.py`, class `Encoder` and `swish`): the same constructor
arguments and forward path (normalize, input dropout at a rate passed to `forward`, five densely
connected Linear + swish + LayerNorm blocks, mean and log-variance heads). The script compiles it
and, as a training loop that anneals the input dropout per epoch would, calls it with a new rate
each time. Small sizes, random ratings."""

import torch
import torch.nn as nn
import torch.nn.functional as F


def swish(x):
    return x.mul(torch.sigmoid(x))


class Encoder(nn.Module):
    def __init__(self, hidden_dim, latent_dim, input_dim, eps=1e-1):
        super().__init__()
        self.fc1 = nn.Linear(input_dim, hidden_dim)
        self.ln1 = nn.LayerNorm(hidden_dim, eps=eps)
        self.fc2 = nn.Linear(hidden_dim, hidden_dim)
        self.ln2 = nn.LayerNorm(hidden_dim, eps=eps)
        self.fc3 = nn.Linear(hidden_dim, hidden_dim)
        self.ln3 = nn.LayerNorm(hidden_dim, eps=eps)
        self.fc4 = nn.Linear(hidden_dim, hidden_dim)
        self.ln4 = nn.LayerNorm(hidden_dim, eps=eps)
        self.fc5 = nn.Linear(hidden_dim, hidden_dim)
        self.ln5 = nn.LayerNorm(hidden_dim, eps=eps)
        self.fc_mu = nn.Linear(hidden_dim, latent_dim)
        self.fc_logvar = nn.Linear(hidden_dim, latent_dim)

    def forward(self, x, dropout_prob):
        x = F.normalize(x)
        x = F.dropout(x, dropout_prob, training=self.training)
        h1 = self.ln1(swish(self.fc1(x)))
        h2 = self.ln2(swish(self.fc2(h1) + h1))
        h3 = self.ln3(swish(self.fc3(h2) + h1 + h2))
        h4 = self.ln4(swish(self.fc4(h3) + h1 + h2 + h3))
        h5 = self.ln5(swish(self.fc5(h4) + h1 + h2 + h3 + h4))
        return self.fc_mu(h5), self.fc_logvar(h5)


encoder = torch.compile(Encoder(hidden_dim=32, latent_dim=8, input_dim=64))
ratings = (torch.rand(16, 64) < 0.1).float()
dropout_prob = 0.5
for epoch in range(4):
    mu, logvar = encoder(ratings, dropout_prob)
    dropout_prob *= 0.8

"""Export pyGAT's dense and sparse graph attention networks on a small random graph (as Cora, smaller)."""

import torch
from models import GAT, SpGAT

if __name__ == "__main__":
    nodes, features = 12, 16
    x = torch.rand(nodes, features)
    adj = (torch.rand(nodes, nodes) > 0.7).float() + torch.eye(nodes)  # self-loops, as train.py's
    dense = GAT(nfeat=features, nhid=8, nclass=4, dropout=0.6, alpha=0.2, nheads=2).eval()
    torch.export.export(dense, (x, adj))
    sparse = SpGAT(nfeat=features, nhid=8, nclass=4, dropout=0.6, alpha=0.2, nheads=2).eval()
    torch.export.export(sparse, (x, adj))

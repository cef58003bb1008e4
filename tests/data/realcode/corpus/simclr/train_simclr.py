"""SimCLR's training step in the shape of sthalles/SimCLR simclr.py @ 081e55b (MIT License,
Copyright (c) 2020 Thalles Silva): `info_nce_loss` (the method; its `self.args` as parameters, the
CPU for `.to(self.args.device)`) with its boolean masks over the similarity matrix, compiled, then
the cross-entropy, backward and optimizer step of `train()`, on a random batch of two views."""

import torch
import torch.nn.functional as F


def info_nce_loss(features, batch_size, n_views=2, temperature=0.07):
    labels = torch.cat([torch.arange(batch_size) for i in range(n_views)], dim=0)
    labels = (labels.unsqueeze(0) == labels.unsqueeze(1)).float()
    features = F.normalize(features, dim=1)
    similarity_matrix = torch.matmul(features, features.T)
    mask = torch.eye(labels.shape[0], dtype=torch.bool)
    labels = labels[~mask].view(labels.shape[0], -1)
    similarity_matrix = similarity_matrix[~mask].view(similarity_matrix.shape[0], -1)
    positives = similarity_matrix[labels.bool()].view(labels.shape[0], -1)
    negatives = similarity_matrix[~labels.bool()].view(similarity_matrix.shape[0], -1)
    logits = torch.cat([positives, negatives], dim=1)
    labels = torch.zeros(logits.shape[0], dtype=torch.long)
    logits = logits / temperature
    return logits, labels


if __name__ == "__main__":
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(12, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8))
    optimizer = torch.optim.Adam(model.parameters(), 3e-4)
    loss_fn = torch.compile(info_nce_loss)
    for step in range(2):
        images = torch.cat([torch.randn(4, 12), torch.randn(4, 12)], dim=0)
        features = model(images)
        logits, labels = loss_fn(features, 4)
        loss = F.cross_entropy(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

"""One training step's loss: a two-stage Deformable DETR's outputs against two images' targets,
through the compiled criterion."""

import torch
from criterion import NearestMatcher, SetCriterion


def outputs_for(batch, queries, classes):
    return {"pred_logits": torch.randn(batch, queries, classes), "pred_boxes": torch.rand(batch, queries, 4)}


criterion = SetCriterion(3, NearestMatcher(), {"loss_ce": 2.0, "loss_bbox": 5.0}, ["labels", "boxes"])
criterion = torch.compile(criterion)
outputs = outputs_for(2, 10, 3)
outputs["aux_outputs"] = [outputs_for(2, 10, 3)]
outputs["enc_outputs"] = outputs_for(2, 10, 3)
targets = [{"labels": torch.tensor([0, 2]), "boxes": torch.rand(2, 4)}, {"labels": torch.tensor([1]), "boxes": torch.rand(1, 4)}]
losses = criterion(outputs, targets)

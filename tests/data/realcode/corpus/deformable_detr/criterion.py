# ExportLens real-code corpus, case `deformable_detr`: Deformable DETR's training criterion.
# Modelled on fundamentalvision/Deformable-DETR models/deformable_detr.py
# @ 48092c507c9db61da4cd4ffda819da757d349a82 (Apache License 2.0, Copyright (c) 2020 SenseTime).
# Written for this corpus, not a copy (public repositories' code stays out of this repository):
# the same class and forward path of `SetCriterion`: match, then the label and box losses of the
# final layer and of each auxiliary layer, and for the two-stage encoder outputs
# `bin_targets = copy.deepcopy(targets)` with every label set to 0. The matcher here takes the
# cheapest query per target (the original's Hungarian matching runs scipy on the CPU).
import copy

import torch
import torch.nn.functional as F
from torch import nn


class NearestMatcher(nn.Module):
    def forward(self, outputs, targets):
        indices = []
        for b, t in enumerate(targets):
            cost = torch.cdist(outputs["pred_boxes"][b], t["boxes"], p=1)
            indices.append(cost.argmin(dim=0))
        return indices


class SetCriterion(nn.Module):
    def __init__(self, num_classes, matcher, weight_dict, losses):
        super().__init__()
        self.num_classes = num_classes
        self.matcher = matcher
        self.weight_dict = weight_dict
        self.losses = losses

    def loss_labels(self, outputs, targets, indices, num_boxes):
        logits = outputs["pred_logits"]
        target_onehot = torch.zeros_like(logits)
        for b, (t, src) in enumerate(zip(targets, indices)):
            target_onehot[b, src] = F.one_hot(t["labels"], self.num_classes).to(logits.dtype)
        loss = F.binary_cross_entropy_with_logits(logits, target_onehot, reduction="sum")
        return {"loss_ce": loss / num_boxes}

    def loss_boxes(self, outputs, targets, indices, num_boxes):
        src = torch.cat([outputs["pred_boxes"][b, i] for b, i in enumerate(indices)])
        tgt = torch.cat([t["boxes"] for t in targets])
        return {"loss_bbox": F.l1_loss(src, tgt, reduction="sum") / num_boxes}

    def get_loss(self, loss, outputs, targets, indices, num_boxes):
        loss_map = {"labels": self.loss_labels, "boxes": self.loss_boxes}
        return loss_map[loss](outputs, targets, indices, num_boxes)

    def forward(self, outputs, targets):
        outputs_without_aux = {k: v for k, v in outputs.items() if k not in ("aux_outputs", "enc_outputs")}
        indices = self.matcher(outputs_without_aux, targets)
        num_boxes = max(float(sum(len(t["labels"]) for t in targets)), 1.0)

        losses = {}
        for loss in self.losses:
            losses.update(self.get_loss(loss, outputs, targets, indices, num_boxes))

        if "aux_outputs" in outputs:
            for i, aux_outputs in enumerate(outputs["aux_outputs"]):
                indices = self.matcher(aux_outputs, targets)
                for loss in self.losses:
                    l_dict = self.get_loss(loss, aux_outputs, targets, indices, num_boxes)
                    losses.update({k + f"_{i}": v for k, v in l_dict.items()})

        if "enc_outputs" in outputs:
            enc_outputs = outputs["enc_outputs"]
            bin_targets = copy.deepcopy(targets)
            for bt in bin_targets:
                bt["labels"] = torch.zeros_like(bt["labels"])
            indices = self.matcher(enc_outputs, bin_targets)
            for loss in self.losses:
                l_dict = self.get_loss(loss, enc_outputs, bin_targets, indices, num_boxes)
                losses.update({k + "_enc": v for k, v in l_dict.items()})
        return losses

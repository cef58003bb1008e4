# ExportLens real-code corpus, case `retinanet`: RetinaNet's detection post-processing.
# Modelled on facebookresearch/maskrcnn-benchmark maskrcnn_benchmark/modeling/rpn/retinanet/inference.py
# @ 190e132af725ae53aa2f4189f837f6c830ad0fda (MIT License, Copyright (c) 2018 Facebook). Written for
# this corpus, not a copy: the same RetinaNetPostProcessor constructor and its
# `forward_for_single_feature_map` (scores over a threshold by a 2-D boolean mask
# `per_box_cls[per_candidate_inds]`, their positions from `nonzero()`, a top-k taken only
# `if per_candidate_inds.sum().item() > per_pre_nms_top_n.item()`, decoding, clipping, removing
# small boxes); the multi-level `forward` and its NMS (a C++ op there) are left out.
import torch
from bounding_box import BoxList, remove_small_boxes
from box_coder import BoxCoder


class RetinaNetPostProcessor(torch.nn.Module):
    """Turns RetinaNet's class scores and box deltas into boxes (testing only)."""

    def __init__(self, pre_nms_thresh, pre_nms_top_n, nms_thresh, fpn_post_nms_top_n, min_size, box_coder=None):
        super(RetinaNetPostProcessor, self).__init__()
        self.pre_nms_thresh = pre_nms_thresh
        self.pre_nms_top_n = pre_nms_top_n
        self.nms_thresh = nms_thresh
        self.fpn_post_nms_top_n = fpn_post_nms_top_n
        self.min_size = min_size
        if box_coder is None:
            box_coder = BoxCoder(weights=(10.0, 10.0, 5.0, 5.0))
        self.box_coder = box_coder

    def forward_for_single_feature_map(self, anchors, box_cls, box_regression, pre_nms_thresh=0.05):
        """anchors: list[BoxList]; box_cls: N, A * C, H, W; box_regression: N, A * 4, H, W"""
        N, _, H, W = box_cls.shape
        A = box_regression.size(1) // 4
        C = box_cls.size(1) // A
        # the same layout as the anchors
        box_cls = box_cls.view(N, -1, C, H, W).permute(0, 3, 4, 1, 2)
        box_cls = box_cls.reshape(N, -1, C).sigmoid()
        box_regression = box_regression.view(N, -1, 4, H, W).permute(0, 3, 4, 1, 2)
        box_regression = box_regression.reshape(N, -1, 4)
        candidate_inds = box_cls > pre_nms_thresh
        pre_nms_top_n = candidate_inds.view(N, -1).sum(1)
        pre_nms_top_n = pre_nms_top_n.clamp(max=self.pre_nms_top_n)
        results = []
        for per_box_cls, per_box_regression, per_pre_nms_top_n, per_candidate_inds, per_anchors in zip(
            box_cls, box_regression, pre_nms_top_n, candidate_inds, anchors
        ):
            # the scores over the threshold, with their anchor and class
            per_box_cls = per_box_cls[per_candidate_inds]
            per_candidate_nonzeros = per_candidate_inds.nonzero()
            per_box_loc = per_candidate_nonzeros[:, 0]
            per_class = per_candidate_nonzeros[:, 1]
            per_class += 1
            if per_candidate_inds.sum().item() > per_pre_nms_top_n.item():
                per_box_cls, top_k_indices = per_box_cls.topk(per_pre_nms_top_n, sorted=False)
                per_box_loc = per_box_loc[top_k_indices]
                per_class = per_class[top_k_indices]
            detections = self.box_coder.decode(
                per_box_regression[per_box_loc, :].view(-1, 4), per_anchors.bbox[per_box_loc, :].view(-1, 4)
            )
            boxlist = BoxList(detections, per_anchors.size, mode="xyxy")
            boxlist.add_field("labels", per_class)
            boxlist.add_field("scores", per_box_cls)
            boxlist = boxlist.clip_to_image(remove_empty=False)
            boxlist = remove_small_boxes(boxlist, self.min_size)
            results.append(boxlist)
        return results

"""Export RetinaNet's post-processing for one image and one feature level: tensors in, boxes out."""

import torch
from bounding_box import BoxList
from inference import RetinaNetPostProcessor


class Detections(torch.nn.Module):
    """The post-processor on tensors: anchors as a box tensor, the boxes and their fields back."""

    def __init__(self, image_size=(64, 64)):
        super().__init__()
        self.post = RetinaNetPostProcessor(
            pre_nms_thresh=0.05, pre_nms_top_n=50, nms_thresh=0.5, fpn_post_nms_top_n=20, min_size=0
        )
        self.image_size = image_size

    def forward(self, anchor_boxes, box_cls, box_regression):
        anchors = [BoxList(anchor_boxes, self.image_size, mode="xyxy")]
        (boxes,) = self.post.forward_for_single_feature_map(anchors, box_cls, box_regression)
        return boxes.bbox, boxes.get_field("scores"), boxes.get_field("labels")


if __name__ == "__main__":
    anchors_per_place, classes, h, w = 3, 4, 4, 4
    corners = torch.rand(h * w * anchors_per_place, 2) * 48
    anchor_boxes = torch.cat([corners, corners + 16], dim=1)
    box_cls = torch.randn(1, anchors_per_place * classes, h, w)
    box_regression = torch.randn(1, anchors_per_place * 4, h, w) * 0.1
    torch.export.export(Detections().eval(), (anchor_boxes, box_cls, box_regression))

# ExportLens real-code corpus, case `cryoet`: the detector's loss, which only runs when labels are given
# (never in this corpus). After BloodAxe/Kaggle-2024-CryoET cryoet/modelling/detection/functional.py @
# 079cf8df8de0d18281176bf6694135a47add8c91 (no license stated); its body is left out.


def object_detection_loss(logits, offsets, strides, labels, **kwargs):
    raise NotImplementedError("the training loss is not part of this corpus case")

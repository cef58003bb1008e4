# Written for the ExportLens real-code corpus after eriklindernoren/PyTorch-YOLOv3,
# pytorchyolo/utils/parse_config.py @ 017c65b (GPL-3.0): the Darknet .cfg reader.


def parse_model_config(path):
    """The [blocks] of a Darknet .cfg file as a list of dicts (`type` and the block's keys)."""
    with open(path, "r") as file:
        lines = [line.strip() for line in file.read().split("\n")]
    lines = [line for line in lines if line and not line.startswith("#")]
    module_defs = []
    for line in lines:
        if line.startswith("["):
            module_defs.append({})
            module_defs[-1]["type"] = line[1:-1].rstrip()
            if module_defs[-1]["type"] == "convolutional":
                module_defs[-1]["batch_normalize"] = 0
        else:
            key, value = line.split("=")
            module_defs[-1][key.rstrip()] = value.strip()
    return module_defs

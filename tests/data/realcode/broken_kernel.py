"""A library model whose constructor imports a kernel that does not load: the script raises at the
model's line, inside the library, before its export."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "fakesite" / "lib" / "python3.11" / "site-packages"))

import torch
from tinylib import Scanned

model = Scanned()
torch.export.export(model, (torch.randn(2, 4),))

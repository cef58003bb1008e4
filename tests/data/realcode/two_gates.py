"""An installed library's forward that refuses twice: both lines are found, each the library's."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "fakesite" / "lib" / "python3.11" / "site-packages"))

import torch
from tinylib import TwoGates

torch.export.export(TwoGates(), (torch.randn(4),))

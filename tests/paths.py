"""Where the tests find the checkout and their data, wherever a test file sits in tests/."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the checkout
DATA = ROOT / "tests" / "data"

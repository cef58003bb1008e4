"""Failures that are about devices (worker/job/devices.py places the tensors): which rule holds,
and its words.

- `device-mismatch`: tensors on two devices meet in one op — a `cpu` constant in a forward that
  runs on `cuda:0`, the inputs on another device than the parameters. torch says so in every
  tracer (FakeTensorDeviceMismatchError, "is not on the expected device", a strict graph break
  wrapping it, a ValueError at export entry in newer versions).
- `needs-real-device`: building the module or inputs needed what a check on fake device tensors
  (or on a machine without the device) does not have: a value (`.item()`, `.numpy()`), the CUDA
  runtime (`torch.cuda.synchronize()`, `torch.load(map_location="cuda")`).
"""

from __future__ import annotations

import re

from ..worker.wire.records import FailureRecord
from .kind import Kind, short
from .rule import Failure

_MISMATCH = (
    "Expected all tensors to be on the same device",
    "is not on the expected device",
    "Unhandled FakeTensor Device Propagation",
)
_ENTRY_MISMATCH = re.compile(r"device.{0,40}(mismatch|differ|same device)", re.IGNORECASE)
_NEEDS_REAL = (
    "Torch not compiled with CUDA enabled",
    "not linked with support for",
    "Cannot access data pointer",
    "Found no NVIDIA driver",
    "torch.cuda.is_available() is False",
    "MPS backend is not available",
    "_local_scalar_dense",
)
_NEEDS_REAL_TYPES = {"DataDependentOutputException", "DynamicOutputShapeException"}


def mismatched(f: Failure) -> bool:
    return (
        "FakeTensorDeviceMismatchError" in f.chained
        or any(words in f.message for words in _MISMATCH)
        or (f.exc_type == "ValueError" and bool(_ENTRY_MISMATCH.search(f.first_line)))
    )


_ODD_ARGUMENT = re.compile(
    r"got \w+ is on (?P<odd>[\w:]+), different from other tensors on (?P<others>[\w:]+)"
)


def mismatch_kind(f: Failure) -> Kind:
    # "found at least two devices, cuda:0 and cpu!"; 2.10 dynamo: "found two different devices cuda:0, cpu"
    found = re.search(
        r"found (?:at least )?two (?:different )?devices,? ([\w:]+)(?: and|,) ([\w:]+)", f.message
    )
    devices = list(found.groups()) if found else []
    # 2.15 names the argument instead: "got weight is on cuda:0, different from other tensors on
    # cpu"; said in the older order (the others' device first, then the odd one's).
    if not devices and (odd := _ODD_ARGUMENT.search(f.message)):
        devices = [odd["others"], odd["odd"]]
    detail = f"`{devices[0]}` and `{devices[1]}`" if devices else short(f.first_line)
    return Kind("device-mismatch", detail, {"devices": devices})


def needs_real(f: Failure) -> bool:
    """Building needed a value or the device (only ever so for fake or missing devices)."""
    return f.stage in ("import", "inputs") and (
        bool(f.chained & _NEEDS_REAL_TYPES) or any(words in f.message for words in _NEEDS_REAL)
    )


def fake_device_artifact(record: FailureRecord) -> bool:
    """A failure of checking on fake device tensors, not of the code (`.cuda()` inside forward
    while exporting: "not linked with support for cuda devices")."""
    texts = [str(record.get("message", ""))] + [str(c.get("message", "")) for c in record.get("chain") or []]
    return any(words in text for text in texts for words in _NEEDS_REAL)


def needs_real_kind(f: Failure) -> Kind:
    placement = f.record.get("placement")
    asked = placement["devices"] if placement else []
    devices = ", ".join(f"`{d}`" for d in asked)
    where = ""
    if placement and placement["fake"]:
        where = f"the code targets {devices}, built here as fake tensors on it (no values): "
    elif placement and placement["policy"] == "real":
        where = "`exportlens.device` is `real` and this machine lacks the device: "
    return Kind("needs-real-device", f"{where}{f.error}", {"devices": asked})

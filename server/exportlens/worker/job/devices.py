"""The device the user wrote, without that device: how a job's tensors are placed (docs/devices.md).

Policies (`exportlens.device`, `--device`):
- "fake" (default): a tensor the user's code puts on an accelerator (`.cuda()`, `.to("cuda:1")`,
  `device="mps"`, `torch.device("cuda")` as a context) becomes a fake tensor on that device: a
  meta tensor (shape, dtype, strides; no memory) that reports `cuda:0`. torch's fake tensors run
  every op's shape logic for any device on a CPU-only build, and export traces with fake tensors
  anyway, so the graph is the one the GPU would get (`device=cuda:0`). No accelerator is touched.
- "cpu": every accelerator device is mapped to the CPU; real CPU kernels, real values.
- "real": nothing is redirected (the child owns its CUDA context; the worker never touches CUDA).

Code that asks whether a device is there (`torch.cuda.is_available()`) gets this machine's answer,
so the check follows the path the script takes here; where it asked and heard no, gpu_path.py
looks at the other path once more, with the questions answered yes (`Placement.gpu_path`).

The same redirect builds huge models without allocating them (sizing.py): under
`torch.device("meta")` the CPU tensors are meta, the accelerator ones fake on their device.
Fake tensors have no values: whatever needs them (eager runs, the search for later failures, a
quick-fix's comparison with eager) is skipped and says so.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.utils._pytree as pytree
from torch.overrides import TorchFunctionMode, resolve_name

from ..wire.records import AskedDevice
from ..wire.records import Placement as PlacementRecord

POLICIES = ("fake", "real", "cpu")
_HOST = ("cpu", "meta")
_TORCH_DIR = os.path.join(os.path.dirname(os.path.realpath(torch.__file__)), "")
# Where `torch.autocast("cuda")` asks whether CUDA is there (it disables itself when not).
_AUTOCAST = (
    os.path.join(_TORCH_DIR, "amp", "autocast_mode.py"),
    os.path.join(_TORCH_DIR, "cuda", "amp", "common.py"),
)


@dataclass
class Placement:
    """One job's placement: its policy, and the accelerator devices its code asked for."""

    policy: str = "fake"
    devices: set[str] = field(default_factory=set)
    # The second look, at the path a machine with the device takes: questions answer "yes".
    gpu_path: bool = False
    # Where the user's code asked whether a device is there and this machine said no.
    asked: list[AskedDevice] = field(default_factory=list)
    _mode: Any = None

    def asked_no(self, question: str, frame: Any) -> None:
        path = frame.f_code.co_filename
        if any(s in path for s in _LIBRARY) or path.startswith("<") or len(self.asked) >= ASKED_LIMIT:
            return  # a library probing (transformers' checks at import) does not choose the user's path
        site: AskedDevice = {"path": path, "line": frame.f_lineno, "question": question}
        if site not in self.asked:
            self.asked.append(site)

    @property
    def fake(self) -> bool:
        """Some tensor is fake on an accelerator: no real values anywhere they meet."""
        return self.policy == "fake" and bool(self.devices)

    def fake_mode(self) -> Any:
        if self._mode is None:
            from torch._subclasses.fake_tensor import FakeTensorMode

            self._mode = FakeTensorMode(allow_non_fake_inputs=True)
        return self._mode

    def on(self, tensor: torch.Tensor, device: torch.device) -> torch.Tensor:
        """`tensor` as a fake tensor on `device`: its metadata only, never its values."""
        from torch._subclasses.fake_tensor import FakeTensor

        if device.type not in _HOST:
            self.devices.add(str(device))
        if isinstance(tensor, FakeTensor) and tensor.device == device:
            return tensor
        meta = torch.empty_strided(tensor.shape, tensor.stride(), dtype=tensor.dtype, device="meta")
        # No autograd on fake accelerator tensors: a CPU-only build aborts the process when
        # autograd records a CUDA tensor (it asks for a CUDA stream).
        return FakeTensor(self.fake_mode(), meta, device)

    def describe(self) -> PlacementRecord:
        policy = self.policy if self.policy in ("real", "cpu") else "fake"
        return {"policy": policy, "devices": sorted(self.devices), "fake": self.fake}  # type: ignore[typeddict-item]


def accelerator(value: Any) -> torch.device | None:
    """The accelerator device `value` names (`"cuda"` is `cuda:0`), None for cpu/meta/none."""
    if value is None:
        return None
    try:
        device = torch.device("cuda", value) if isinstance(value, int) else torch.device(value)
    except (RuntimeError, TypeError, ValueError):
        return None
    if device.type in _HOST:
        return None
    return device if device.index is not None else torch.device(device.type, 0)


class _Redirect(TorchFunctionMode):
    """Device-creating calls of the user's build go to fake tensors ("fake") or the CPU ("cpu")."""

    def __init__(self, placement: Placement, meta: bool = False) -> None:
        super().__init__()
        self.placement = placement
        self.meta = meta  # sizing.py's build: nothing is allocated, `.to("cpu")` included

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = dict(kwargs or {})
        name = resolve_name(func) or ""
        if name == "torch.Tensor.cuda":
            index = args[1] if len(args) > 1 else kwargs.get("device")
            return self._move(args[0], accelerator("cuda" if index is None else index), None, func)
        if name == "torch.Tensor.to":
            device, dtype, _, _ = torch._C._nn._parse_to(*args[1:], **kwargs)
            target = accelerator(device)
            if target is not None:
                return self._move(args[0], target, dtype, func)
            if self.meta and device is not None and device.type == "cpu" and args[0].is_meta:
                # The CPU path of `"cuda" if is_available() else "cpu"`: meta weights stay meta.
                return args[0] if dtype is None else args[0].to(dtype)
        elif name in ("torch.Tensor.requires_grad_", "torch.Tensor.requires_grad.__set__"):
            if self._is_fake_accelerator(args[0]):
                return args[0] if name.endswith("_") else None  # see Placement.on
        elif accelerator(kwargs.get("device")) is not None:
            target = accelerator(kwargs["device"])
            if self.placement.policy == "cpu":
                kwargs["device"] = "cpu"
                return func(*args, **kwargs)
            kwargs["device"] = "meta"
            out = func(*args, **kwargs)
            assert target is not None
            return pytree.tree_map_only(torch.Tensor, lambda t: self.placement.on(t, target), out)
        return func(*args, **kwargs)

    def _move(self, tensor: Any, target: torch.device | None, dtype: Any, func: Any) -> Any:
        if target is None:
            return func(tensor)
        if dtype is not None:
            tensor = tensor.to(dtype)
        if self.placement.policy == "cpu":
            return tensor.to("cpu") if tensor.device.type != "meta" else tensor
        return self.placement.on(tensor, target)

    @staticmethod
    def _is_fake_accelerator(value: Any) -> bool:
        from torch._subclasses.fake_tensor import FakeTensor

        return isinstance(value, FakeTensor) and value.device.type not in _HOST


@contextlib.contextmanager
def building(placement: Placement, meta: bool = False) -> Iterator[None]:
    """While the user's file loads and builds its module and inputs; `meta`: nothing allocated."""
    if placement.policy == "real":
        with torch.device("meta") if meta else contextlib.nullcontext():
            yield
        return
    with (
        _Redirect(placement, meta),
        _availability(placement),
        torch.device("meta") if meta else contextlib.nullcontext(),
    ):
        yield


@contextlib.contextmanager
def exporting(placement: Placement) -> Iterator[None]:
    """While exporting a fake build: `torch.autocast("cuda")` must see the device it targets."""
    if not placement.fake:
        yield
        return
    with _availability(placement, only=_AUTOCAST):
        yield


# Questions the user's code asks to pick a device, and what a machine with the device answers.
# On the path the script takes here they get this machine's answer; on the second look at the
# path a GPU machine takes (gpu_path.py) they get these.
_QUESTIONS: tuple[tuple[str, str, Any], ...] = (
    ("cuda", "is_available", True),
    ("cuda", "device_count", 1),
    ("cuda", "is_bf16_supported", True),
    ("backends.mps", "is_available", True),
)
# Calls that name the device without asking whether it is there: a fake answer under "fake", as
# `.cuda()` gets a fake tensor.
_NAMES: tuple[tuple[str, str, Any], ...] = (("cuda", "current_device", 0),)
ASKED_LIMIT = 8  # question sites kept per job: the first ones pick the device
_LIBRARY = ("/site-packages/", "/dist-packages/")


@contextlib.contextmanager
def _availability(placement: Placement, only: tuple[str, ...] = ()) -> Iterator[None]:
    """Under "fake": `torch.cuda.is_available()` & co. give the user's code this machine's answer
    (the sites answered "no" are kept in `placement.asked`), or "yes" on the GPU path's look
    (`placement.gpu_path`); `torch.cuda.current_device()` answers 0. torch's own callers get the
    truth, else torch would go on to initialise CUDA. `only`: the torch files told "yes" instead
    (autocast, while exporting), and nothing else is told or kept."""
    if placement.policy != "fake":
        yield
        return
    from torch._subclasses import fake_tensor

    saved: list[tuple[Any, str, Any]] = []
    for table, question in ((_QUESTIONS, True), (_NAMES, False)):
        for owner_name, attr, answer in table:
            owner = _owner(owner_name)
            saved.append((owner, attr, getattr(owner, attr)))
            told = f"torch.{owner_name}.{attr}()" if question else None
            setattr(owner, attr, _answering(getattr(owner, attr), answer, placement, only, told))
    # A cuda FakeTensor makes a real CUDA tensor once, when CUDA is there, "for backward"
    # (torch >= 2.10): a check that never runs backward must not create a GPU context for it.
    gpu_context = getattr(fake_tensor, "init_gpu_context", None)
    if gpu_context is not None:
        saved.append((fake_tensor, "init_gpu_context", gpu_context))
        setattr(fake_tensor, "init_gpu_context", lambda device: None)  # noqa: B010 - torch types it a cache
    try:
        yield
    finally:
        for owner, attr, original in saved:
            setattr(owner, attr, original)


def _owner(dotted_name: str) -> Any:
    owner: Any = torch
    for part in dotted_name.split("."):
        owner = getattr(owner, part)
    return owner


def _answering(
    current: Any, answer: Any, placement: Placement, only: tuple[str, ...], question: str | None
) -> Any:
    """`question`: how the user's code wrote it (`torch.cuda.is_available()`); None for a call
    that names the device."""
    # Nested (the meta dry run inside the build): wrap torch's own function, never a wrapper,
    # whose caller would be this file (not torch's) and be told "yes".
    original = getattr(current, "__exportlens_original__", current)

    def patched(*args: Any, **kwargs: Any) -> Any:
        frame = sys._getframe(1)
        caller = os.path.realpath(frame.f_code.co_filename)
        users = not caller.startswith(_TORCH_DIR)
        if only:
            told = caller in only
        else:
            told = users and (question is None or placement.gpu_path)
        if not told:
            real = original(*args, **kwargs)
            if question and users and not only and not real:
                placement.asked_no(question, frame)
            return real
        if isinstance(answer, bool):
            return answer
        try:  # a count or an index: the real one when there is a device, else the fake one
            return max(int(original(*args, **kwargs)), answer)
        except (AssertionError, RuntimeError):
            return answer

    patched.__exportlens_original__ = original  # type: ignore[attr-defined]
    # Asked inside forward under strict: dynamo calls it while tracing, as it does torch's own
    # (without this it would trace into the wrapper, and refuse `sys._getframe`).
    patched._dynamo_marked_constant = True  # type: ignore[attr-defined]
    return patched


def finish(module: Any, args: Any, kwargs: Any, placement: Placement) -> tuple[Any, Any]:
    """A fake build made ready to export: every input tensor in the one fake mode (torch.export
    takes the fake mode from the inputs), and what is still meta (a huge model's CPU weights,
    sizing.py) fake on the CPU. Returns the new (args, kwargs); the module is changed in place."""
    from torch._subclasses.fake_tensor import FakeTensor

    if not placement.fake:
        return args, kwargs
    mode, cpu = placement.fake_mode(), torch.device("cpu")

    def leaf(tensor: torch.Tensor) -> torch.Tensor:
        if isinstance(tensor, FakeTensor):
            return tensor
        return placement.on(tensor, cpu) if tensor.is_meta else mode.from_tensor(tensor)

    if isinstance(module, torch.nn.Module):
        for sub in module.modules():
            for name, param in list(sub._parameters.items()):
                if param is not None and param.is_meta and not isinstance(param, FakeTensor):
                    sub._parameters[name] = torch.nn.Parameter(leaf(param), param.requires_grad)
            for name, buffer in list(sub._buffers.items()):
                if buffer is not None and buffer.is_meta and not isinstance(buffer, FakeTensor):
                    sub._buffers[name] = leaf(buffer)
    return (
        pytree.tree_map_only(torch.Tensor, leaf, args),
        pytree.tree_map_only(torch.Tensor, leaf, kwargs),
    )

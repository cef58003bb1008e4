"""The fake-tensor dispatch cache a job's child filled, handed back to the worker (issue 18.4).

Every export runs the model's ops on fake tensors, and torch caches each op's output metadata
per (op, input metadata, mode settings) in `FakeTensorMode.cache`, a class attribute. A child
forked from the worker starts with only the warm-up's entries, so each check of the user's model
paid the misses again: about a third of a warm export (the MLP's 54 ms export is 83 ms with the
cache emptied first). The child sends the entries it added with its answer; the worker puts them
in its own cache, and the next child is forked with them.

No user code crosses: entries are encoded as plain data, only of the types such entries hold
(ops of torch's own namespaces, dtypes, devices, sizes, the cache's own dataclasses), and decoded
by building exactly those; one with anything else (a user's custom op, a symbolic size) is not
sent. An entry is what torch itself computed for that key in a process of the same torch, so
the worker's cache answers what it would have answered had it run the op. An optimisation
only: on any surprise (another torch's layout of the cache) nothing is sent or merged.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
from typing import Any

CAP = 20_000  # entries the worker keeps: a few MB; a model whose shapes keep changing stops here
_OP_NAMESPACES = frozenset({"aten", "prims"})
# What an entry's value is made of (torch/_subclasses/fake_tensor.py, the same in 2.10 … 2.15).
_ENTRY_CLASSES = (
    "TensorMetadata",
    "_DispatchCacheBypassEntry",
    "_DispatchCacheEntryOutputInfo",
    "_DispatchCacheValidEntry",
)


class Unencodable(Exception):
    pass


def _cache() -> dict[Any, Any] | None:
    try:
        from torch._subclasses.fake_tensor import FakeTensorMode
    except ImportError:
        return None
    cache = getattr(FakeTensorMode, "cache", None)
    return cache if isinstance(cache, dict) else None


def size() -> int:
    """How many entries the cache holds now (a child notes it when it gets its job)."""
    cache = _cache()
    return len(cache) if cache is not None else 0


def added_since(start: int, limit: int = 5_000) -> dict[str, object] | None:
    """The entries added after the first `start` (dicts keep their order), encoded, with how
    each op they use is implemented here (`merge` compares); those that cannot be encoded are
    left out."""
    cache = _cache()
    if cache is None or len(cache) <= start:
        return None
    try:
        codec = _the_codec()
        codec.ops_seen.clear()
        entries: list[object] = []
        for key, value in list(itertools.islice(cache.items(), start, start + limit)):
            try:
                entries.append([codec.encode(key.key), codec.encode(value)])
            except Unencodable:
                continue
        ops = {name: _implementation(name) for name in sorted(codec.ops_seen)}
    except Exception:  # noqa: BLE001 - another torch's cache: send nothing
        return None
    return {"entries": entries, "ops": ops} if entries else None


def merge(payload: object) -> int:
    """Put a child's encoded entries into this process's cache; how many were new. None at all
    if an op they use is implemented otherwise in the child (user code registered a kernel or a
    decomposition for it): its entries would answer for that code, not torch's."""
    cache = _cache()
    if cache is None or not isinstance(payload, dict):
        return 0
    entries, ops = payload.get("entries"), payload.get("ops")
    if not isinstance(entries, list) or not isinstance(ops, dict):
        return 0
    try:
        from torch._subclasses.fake_tensor import _DispatchCacheKey

        codec = _the_codec()
        if any(_implementation(str(name)) != fingerprint for name, fingerprint in ops.items()):
            return 0
    except Exception:  # noqa: BLE001
        return 0
    added = 0
    for entry in entries:
        if len(cache) >= CAP:
            break
        try:
            raw_key, raw_value = entry
            codec.ops_seen.clear()
            key_tuple, value = codec.decode(raw_key), codec.decode(raw_value)
            if codec.encode(key_tuple) != raw_key or codec.encode(value) != raw_value:
                continue  # not a lossless round trip: left out
            if not isinstance(key_tuple, tuple) or not codec.ops_seen <= ops.keys():
                continue
            key = _DispatchCacheKey(key_tuple)
        except Exception:  # noqa: BLE001, S112 - a malformed entry is skipped, never fatal
            continue
        if key not in cache:
            cache[key] = value
            added += 1
    return added


def _implementation(name: str) -> str:
    """How op `name` ("aten::relu.default") is implemented in this process: its dispatcher
    table (which names the file and line of each kernel, so a user's override shows) and the
    Python decomposition and meta functions fake tensors consult."""
    import torch
    from torch._decomp import decomposition_table, meta_table

    qualified, _, overload = name.rpartition(".")
    namespace, _, op_name = qualified.partition("::")
    op = getattr(getattr(getattr(torch.ops, namespace), op_name), overload)
    table = torch._C._dispatch_dump_table(qualified if overload == "default" else name)
    python = [_where(t.get(op)) for t in (decomposition_table, meta_table)]
    return hashlib.blake2b("\n".join([table, *python]).encode(), digest_size=16).hexdigest()


def _where(fn: object) -> str:
    code = getattr(fn, "__code__", None)
    place = f"{code.co_filename}:{code.co_firstlineno}" if code is not None else ""
    return f"{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', repr(fn))} {place}" if fn else "-"


# -- the codec: tagged JSON lists ------------------------------------------------------------
class _Codec:
    """What the entries are made of, looked up once: each entry has ~100 parts."""

    def __init__(self) -> None:
        import torch
        from torch._ops import OpOverload
        from torch._subclasses import fake_tensor
        from torch.fx.experimental import symbolic_shapes

        known: list[type] = [bool, int, float, str, complex, tuple, list, dict, type(None)]
        known += [torch.Size, torch.dtype, torch.device, torch.layout, torch.memory_format]
        sentinel = getattr(fake_tensor, "SingletonConstant", None)
        if isinstance(sentinel, type):
            known.append(sentinel)
        self.types = {f"{t.__module__}.{t.__qualname__}": t for t in known}
        self.type_names = {t: name for name, t in self.types.items()}
        found = [getattr(fake_tensor, n, None) for n in _ENTRY_CLASSES]
        found.append(getattr(symbolic_shapes, "ShapeEnvSettings", None))
        self.classes: dict[str, Any] = {
            c.__qualname__: c for c in found if isinstance(c, type) and dataclasses.is_dataclass(c)
        }
        self.fields: dict[type, list[str]] = {
            c: [f.name for f in dataclasses.fields(c)] for c in self.classes.values()
        }
        self.torch, self.op_type = torch, OpOverload
        self.named = {torch.dtype: "dtype", torch.layout: "layout", torch.memory_format: "memory_format"}
        self.ops_seen: set[str] = set()  # "aten::relu.default": each op encoded or decoded

    def encode(self, value: object) -> object:
        kind = type(value)
        if kind in _PLAIN:
            return value
        if kind is tuple or kind is list:
            return [kind.__name__, *(self.encode(v) for v in value)]  # type: ignore[attr-defined]
        if kind is float:
            return ["float", repr(value)]  # nan and inf too, and never read back as an int
        if kind in self.named:
            return [self.named[kind], str(value)]
        if kind is self.torch.device:
            return ["device", str(value)]
        if kind is type:
            name = self.type_names.get(value)  # type: ignore[call-overload]
            if name is None:
                raise Unencodable(repr(value))
            return ["type", name]
        if kind is self.op_type:
            op: Any = value
            if op.namespace not in _OP_NAMESPACES:
                raise Unencodable(op.namespace)  # a user's custom op: the worker does not know it
            name = op._schema.name.split("::", 1)[1]
            self.ops_seen.add(f"{op.namespace}::{name}.{op._overloadname}")
            return ["op", op.namespace, name, op._overloadname]
        fields = self.fields.get(kind)
        if fields is None:
            raise Unencodable(kind.__qualname__)
        return ["dataclass", kind.__qualname__, {f: self.encode(getattr(value, f)) for f in fields}]

    def decode(self, value: object) -> object:
        if type(value) in _PLAIN:
            return value
        if not isinstance(value, list) or not value:
            raise Unencodable(type(value).__name__)
        tag, *rest = value
        if tag == "tuple":
            return tuple(self.decode(v) for v in rest)
        if tag == "list":
            return [self.decode(v) for v in rest]
        if tag == "float":
            return float(rest[0])
        if tag in ("dtype", "layout", "memory_format"):
            named = getattr(self.torch, str(rest[0]).removeprefix("torch."), None)
            if self.named.get(type(named)) != tag:
                raise Unencodable(str(rest[0]))
            return named
        if tag == "device":
            return self.torch.device(str(rest[0]))
        if tag == "type":
            return self.types[str(rest[0])]
        if tag == "op":
            namespace, name, overload = (str(v) for v in rest)
            if namespace not in _OP_NAMESPACES:
                raise Unencodable(namespace)
            op = getattr(getattr(getattr(self.torch.ops, namespace), name), overload)
            if type(op) is not self.op_type:
                raise Unencodable(name)
            self.ops_seen.add(f"{namespace}::{name}.{overload}")
            return op
        if tag == "dataclass":
            name, fields = rest
            cls = self.classes[str(name)]
            return cls(**{str(k): self.decode(v) for k, v in dict(fields).items()})
        raise Unencodable(str(tag))


_PLAIN = frozenset({type(None), bool, int, str})
_codec: _Codec | None = None


def _the_codec() -> _Codec:
    global _codec
    if _codec is None:
        _codec = _Codec()
    return _codec

"""The `slow` marker: set at collection from what a test uses, checked when the fast set runs.

A test is slow when it starts a process (the real worker, the real server over stdio, Neovim,
the CLI or bench in a subprocess) or runs torch in pytest's own process. That is known without
running it, from
- the fixtures it uses (SLOW_FIXTURES, or a fixture of tests/ whose code is slow), or
- the names its code, or the code of a tests/ helper it calls, refers to: SLOW_NAMES, torch, or
  one of our modules that imports torch (`uses_torch`).
Both follow a test wherever its file moves. Everything else is fast: `make test-fast` runs
`-m "not slow"`, and there a test that still starts a process or imports a part of torch fails
at once, saying so: a wrong guess cannot make the fast set slow unnoticed. (A test whose slow
part nothing here can see, e.g. one that loads bench/ code by path, says `@pytest.mark.slow`.)
"""

from __future__ import annotations

import functools
import importlib.util
import inspect
import re
import sys
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from types import CodeType
from typing import Any

import pytest

SLOW_FIXTURES = frozenset({"engine", "worker_torch", "shared_server", "server"})
# Names only process-starting code uses: the engine (its worker), the worker's torch for a
# test's own torch code, pytest-lsp's server launchers, subprocesses.
SLOW_NAMES = frozenset(
    {
        "Engine",
        "WorkerTorch",
        "ClientServerConfig",
        "start_io",
        "subprocess",
        "create_subprocess_exec",
        "create_subprocess_shell",
    }
)
# Audit events (sys.addaudithook) of starting a process.
SPAWN_EVENTS = frozenset({"subprocess.Popen", "os.posix_spawn", "os.fork", "os.forkpty", "os.system"})


def _codes(code: CodeType) -> Iterator[CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from _codes(const)


@functools.cache
def uses_torch(module: str) -> bool:
    """Whether importing `module` imports torch: torch itself, or one of ours that imports it."""
    if module == "torch" or module.startswith("torch."):
        return True
    if not module.startswith("exportlens."):
        return False
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return False
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return False
    return bool(re.search(r"^\s*(import|from) torch\b", Path(spec.origin).read_text(encoding="utf-8"), re.M))


def is_slow_code(func: Callable[..., Any], seen: set[int] | None = None) -> bool:
    """Whether `func`, or a function of tests/ it refers to by a global name, uses a SLOW_NAME or
    torch (directly, or through one of our modules that imports it)."""
    seen = set() if seen is None else seen
    inner = getattr(getattr(func, "hypothesis", None), "inner_test", None)  # @given's test
    func = inspect.unwrap(inner or func)
    code = getattr(func, "__code__", None)
    if code is None or id(code) in seen:
        return False
    seen.add(id(code))
    names = {name for c in _codes(code) for name in c.co_names}  # globals, attributes, imports
    if names & SLOW_NAMES or any(uses_torch(name) for name in names):
        return True
    scope = getattr(func, "__globals__", {})
    for name in names:
        helper = scope.get(name)
        module = getattr(helper, "__module__", None) or ""
        if module.startswith("exportlens.") and uses_torch(module):
            return True
        if module.startswith("tests") and callable(helper):
            members = vars(helper).values() if inspect.isclass(helper) else [helper]
            if any(callable(m) and is_slow_code(m, seen) for m in members):
                return True
    return False


def is_slow(item: pytest.Item) -> bool:
    if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    info = getattr(item, "_fixtureinfo", None)
    for defs in info.name2fixturedefs.values() if info else ():
        if any(getattr(d, "baseid", "") and is_slow_code(d.func) for d in defs):
            return True  # a fixture of the test's own files (not a plugin's) that starts one
    function = getattr(item, "function", None)
    return function is not None and is_slow_code(function)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: starts the real worker, server, Neovim or a subprocess (tests/slow.py)"
    )
    if "not slow" in (config.option.markexpr or ""):
        sys.addaudithook(_audit)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if is_slow(item):
            item.add_marker(pytest.mark.slow)


_watching: list[str] | None = None  # what the running fast test started; None: not watching


def _audit(event: str, args: tuple[Any, ...]) -> None:
    """Refuses (raises in) the start of a process or torch's import during a fast test: it
    fails at once instead of running its slow part."""
    if _watching is None:
        return
    if event in SPAWN_EVENTS or (event == "import" and str(args[0]).split(".")[0] == "torch"):
        _watching.append(f"{event} {args[0]!r}" if args else event)
        raise RuntimeError(f"a fast test may not start {_watching[-1]} (tests/slow.py)")


def _watched(item: pytest.Item) -> Generator[None, None, None]:
    global _watching
    if item.get_closest_marker("slow") or "not slow" not in (item.config.option.markexpr or ""):
        return (yield)
    _watching = []
    try:
        result = yield
    except Exception:
        if not _watching:
            raise
        result = None  # what the refusal raised: the failure below says why
    finally:
        started, _watching = _watching, None
    if started:
        pytest.fail(
            f"{item.nodeid} is in the fast set but started {', '.join(started)}: it is slow; use a fixture "
            "or a name tests/slow.py knows, add yours there, or mark it @pytest.mark.slow",
            pytrace=False,
        )
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    return (yield from _watched(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    return (yield from _watched(item))

"""The path of one edit through the server: which modules the buffer's document is handed to,
from the scheduler's check of that version on, and how often that path climbs back up a layer.

    python bench/edit_path.py [--checkout DIR] [--scenario type|save-elsewhere]

A real server (`--checkout`'s `server/`, default this one) runs with `sys.setprofile` on. The
scenario `type` (the default): the client opens `model.py` (a failing module, a part and its
parent, a module that exports), waits for its check, then edits one line of the failing module
and waits for that check and its fixes' proofs. `save-elsewhere`: `model.py` has no export call,
`export_gate.py` beside it exports its `Gate` (issue 27's example); runOn is "save", and the
edit is saved: a forced check, which places the module again and runs it through that file.

Counted, from `Scheduler._run` of the edit's version on (it takes the buffer's document, or its
snapshot, and hands it to `Scheduler._check`), in any task or thread (the engine's callbacks
too): every call of an `exportlens` function that receives the edit's document, its text or its
lines, or an object that holds the document (a snapshot, a diagnosis context). Printed twice: for
every such call, and for the pipeline only (calls into the core layer, the document's own
accessors and lines, and dataclass constructors left out):
- the modules entered, each with how many times it was entered (a call from another module);
- "returns up": in the order of those calls, a call in a higher layer than the call before it
  (the path went down and came back up); "calls up": a call whose caller (the nearest calling
  frame that also holds the document) is in a lower layer than it: a layer that reaches up.
Layers, top to bottom: editor (`lsp/`), check (`check/`, and before it the pipeline's root
modules: check.py, job_building.py, parts.py, static_findings.py, guessed.py, merge.py,
outcomes.py), services (discovery, diagnosis, engine, fixes, persist, imports, report), core
(document, findings, textpos, syntax, codes, targets, settings).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from lsprotocol import types

ROOT = Path(__file__).resolve().parents[1]

MODEL = """
import torch


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, x):
        return self.lin(x).relu()


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def forward(self, x):
        return self.block(x) + 1


class Gate(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x + 1
        return x - 1


if __name__ == "__main__":
    torch.export.export(Net(), (torch.ones(2, 8),))
    torch.export.export(Gate(), (torch.ones(3),))
"""

PIPELINE = {"check", "job_building", "parts", "static_findings", "guessed", "merge", "outcomes"}
SERVICES = {"discovery", "diagnosis", "engine", "fixes", "persist", "imports", "report", "cli"}
LAYERS = ("core", "services", "check", "editor")
REQUEST = "code_action"  # the handler of the driver's requests


def layer(module: str) -> str:
    parts = module.split(".")[1:] or ["?"]
    if parts[0] == "lsp":
        return "editor"
    if parts[0] in PIPELINE:
        return "check"
    if parts[0] in SERVICES:
        return "services"
    return "core"


# -- the server side: a profiled `exportlens serve` -----------------------------------------------
def serve_traced(version: int, out: str) -> None:
    import runpy
    import threading
    from types import FrameType

    armed: list[bool] = []  # the edit's check has started (Scheduler._run of its version)
    tracing: list[object] = []  # the edit's document, once the check has it
    calls: list[dict[str, Any]] = []
    # frames that hold the document, kept alive (so no id is reused); a coroutine's frame is
    # "called" again each time it resumes: counted once
    carrying: dict[int, tuple[FrameType, str]] = {}

    def the_document(frame: FrameType) -> object | None:
        """The edit's document, if one of the call's arguments is it (or holds it)."""
        code = frame.f_code
        for name in code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]:
            value = frame.f_locals.get(name)
            doc = value if hasattr(value, "discovery") and hasattr(value, "version") else None
            doc = doc or getattr(value, "document", None)
            if doc is not None and getattr(doc, "version", None) == version and hasattr(doc, "text"):
                return doc
        return None

    def carries(frame: FrameType, doc: Any) -> bool:
        code = frame.f_code
        names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
        if names and names[0] == "self" and frame.f_locals.get("self") is not doc:
            names = names[1:]  # a method of what holds the document (an accessor) hands nothing on
        for name in names:
            value = frame.f_locals.get(name)
            if value is doc or value is doc.text or value is doc.__dict__.get("source_text"):
                return True
            if getattr(value, "document", None) is doc:
                return True
            if isinstance(value, (list, tuple)) and any(v is doc for v in value[:8]):
                return True
        return False

    def asked(frame: FrameType) -> bool:
        """Inside the driver's code-action requests (asked until the proofs end): not the path."""
        back: FrameType | None = frame
        while back is not None:
            if back.f_code.co_name == REQUEST and back.f_globals.get("__name__", "").endswith("code_actions"):
                return True
            back = back.f_back
        return False

    def hook(frame: FrameType, event: str, arg: object) -> None:
        if event != "call":
            return
        module = frame.f_globals.get("__name__", "")
        if not module.startswith("exportlens"):
            return
        known = carrying.get(id(frame))
        if known is not None and known[0] is frame:
            return  # a coroutine resumed
        if not armed:
            run = frame.f_code.co_name == "_run" and module.endswith("lsp.scheduler")
            if not (run and frame.f_locals.get("version") == version):
                return
            armed.append(True)
        doc = tracing[0] if tracing else None
        if doc is None:
            doc = the_document(frame)
            if doc is None:
                return
            tracing.append(doc)
        if not carries(frame, doc) or asked(frame):
            return
        caller = None
        back = frame.f_back
        while back is not None and caller is None:
            held = carrying.get(id(back))
            caller = held[1] if held is not None and held[0] is back else None
            back = back.f_back
        calls.append({"module": module, "function": frame.f_code.co_qualname, "caller": caller})
        carrying[id(frame)] = (frame, module)

    def dump() -> None:
        Path(out).write_text(json.dumps(calls), encoding="utf-8")

    import atexit

    atexit.register(dump)
    threading.setprofile(hook)
    sys.setprofile(hook)
    sys.argv = ["exportlens", "serve"]
    original_exit = os._exit

    def exit_after_dump(code: int) -> None:
        dump()
        original_exit(code)

    os._exit = exit_after_dump  # the server leaves by os._exit: write the calls first
    runpy.run_module("exportlens", run_name="__main__", alter_sys=True)


# -- the client side -------------------------------------------------------------------------------


async def drive(checkout: Path, out: Path, scenario: str) -> None:
    sys.path.insert(0, str(ROOT))
    from pytest_lsp import ClientServerConfig, LanguageClient
    from tests.lsp.conftest import initialize, make_client, stop
    from tests.shared_sources import EXPORT_GATE, GATE_MODEL

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        env = dict(os.environ, PYTHONPATH=str(checkout / "server"), EXPORTLENS_CACHE_DIR=str(root / ".cache"))
        command = [sys.executable, __file__, "--serve", "2", "--out", str(out)]
        config = ClientServerConfig(server_command=command, client_factory=make_client, server_env=env)
        client = await config.start()
        assert isinstance(client, LanguageClient)
        saving = scenario == "save-elsewhere"
        settings = {"debounceMs": 0, "timeoutSeconds": 120} | ({"runOn": "save"} if saving else {})
        session = await initialize(client, root, settings)
        if saving:
            session.write("export_gate.py", EXPORT_GATE)
        uri, text = session.write("model.py", GATE_MODEL if saving else MODEL)
        opened = await session.open_uri(uri, text)
        assert any(d.code == "data-dependent-branch" for d in opened), opened
        line = next(i for i, s in enumerate(text.splitlines()) if s.startswith("            return "))
        column = len(text.splitlines()[line]) - 1
        version = session.edit(uri, line, column, column + 1, "2")
        assert version == 2
        if saving:
            Path(root, "model.py").write_text(
                text.replace(text.splitlines()[line], text.splitlines()[line][:-1] + "2")
            )
            session.client.text_document_did_save(
                types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
            )
        edited = await session.wait_checked(uri, version)
        branch = next(d for d in edited if d.code == "data-dependent-branch")
        await proven(session, uri, branch)  # the fixes' proofs belong to the edit's path too
        await stop(session)


async def proven(session: Any, uri: str, diagnostic: types.Diagnostic) -> None:
    """Ask for the fixes of `diagnostic` until none is still being proven."""
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=diagnostic.range,
        context=types.CodeActionContext(diagnostics=[diagnostic]),
    )
    for _ in range(1200):
        actions = await session.client.text_document_code_action_async(params) or []
        if actions and not any("checking" in a.title for a in actions if isinstance(a, types.CodeAction)):
            return
        await asyncio.sleep(0.1)
    raise TimeoutError("the fixes were never proven")


def pipeline(calls: list[dict[str, str | None]]) -> list[dict[str, str | None]]:
    """The calls that pass the document from one step to the next: no accessor of the core."""
    return [
        c for c in calls if layer(str(c["module"])) != "core" and "__create_fn__" not in str(c["function"])
    ]


def report(calls: list[dict[str, str | None]]) -> str:
    calls = [c for c in calls if c["caller"] != c["module"]]  # the path: calls into another module
    entered: dict[str, int] = {}
    returns_up = calls_up = 0
    previous: str | None = None
    for call in calls:
        module, caller = str(call["module"]), call["caller"]
        entered[module] = entered.get(module, 0) + 1
        if caller is not None and LAYERS.index(layer(module)) > LAYERS.index(layer(caller)):
            calls_up += 1
        if previous is not None and LAYERS.index(layer(module)) > LAYERS.index(layer(previous)):
            returns_up += 1
        previous = module
    lines = [f"{len(calls)} calls hand the document to another module, {len(entered)} modules entered:"]
    for module, times in entered.items():
        lines.append(f"  {module:<45} {layer(module):<9} entered {times}x")
    lines.append(f"returns up (a call in a higher layer than the one before it): {returns_up}")
    lines.append(f"calls up (a lower layer calling a higher one): {calls_up}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the tree whose server/ runs")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--scenario", choices=("type", "save-elsewhere"), default="type")
    parser.add_argument("--calls", action="store_true", help="also print every call, in order")
    parser.add_argument("--save", type=Path, help="write the calls recorded (JSON) here")
    parser.add_argument("--load", type=Path, help="report the calls of an earlier --save, run nothing")
    args = parser.parse_args()
    if args.serve is not None:
        serve_traced(args.serve, args.out)
        return
    if args.load:
        calls = json.loads(args.load.read_text(encoding="utf-8"))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp, "calls.json")
            asyncio.run(drive(args.checkout.resolve(), out, args.scenario))
            calls = json.loads(out.read_text(encoding="utf-8"))
    if args.save:
        args.save.write_text(json.dumps(calls), encoding="utf-8")
    if args.calls:
        for call in calls:
            if call["caller"] != call["module"]:
                print(f"{call['caller'] or '-':<40} -> {call['module']}.{call['function']}")
    print("Every call:\n" + report(calls))
    print(
        "\nThe pipeline (no calls into the core layer, no dataclass constructors):\n"
        + report(pipeline(calls))
    )


if __name__ == "__main__":
    main()

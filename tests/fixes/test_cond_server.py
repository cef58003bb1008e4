"""torch.cond / torch.where rewrites through the real server: offered proven, applied, re-exported."""

from __future__ import annotations

from lsprotocol import types

from tests.fixes.conftest import actions, apply_edit, errors, pick, proven, resolve
from tests.lsp.conftest import Session, line_of
from tests.worker_torch import WorkerTorch, exec_source

GUARDED = """
    import torch


    class Guarded(torch.nn.Module):
        def forward(self, x):
            # the sign decides
            if (x < 0).any():  # data-dependent
                return x.abs()
            return x.tanh()


    if __name__ == "__main__":
        torch.export.export(Guarded(), (torch.ones(3),))
"""


async def test_cond_rewrite_is_proven_applied_and_exports(server: Session, worker_torch: WorkerTorch) -> None:
    diagnostics = await server.open("fx_guarded.py", GUARDED)
    assert "data-dependent-branch" in errors(diagnostics)
    uri, text = server.write("fx_guarded.py", GUARDED)
    line = line_of(GUARDED, "if (x < 0)")
    found = await proven(server, uri, line)
    cond = pick(found, "Rewrite as torch.cond")
    assert cond.title.endswith("(exports; matches eager on both branches)"), cond.title
    assert cond.is_preferred and cond.kind == "quickfix" and cond.edit is None  # lazily resolved
    where = pick(found, "Rewrite as torch.where")
    assert "exports" in where.title
    done = await resolve(server, cond)
    new = apply_edit(text, done.edit, uri, 1)
    assert "# the sign decides" in new and "torch.cond((x < 0).any()" in new
    # independently, with the worker's torch: the exported rewrite equals the original in eager
    # mode, on both branches
    same = worker_torch.run(
        exec_source(text, "old")
        + exec_source(new, "new")
        + "import torch\n"
        + "old_m, new_m = ns_old['Guarded'](), ns_new['Guarded']()\n"
        + "program = torch.export.export(new_m, (torch.ones(3),)).module()\n"
        + "inputs = (torch.ones(3), -torch.ones(3), torch.tensor([1.0, -2.0, 3.0]))\n"
        + "result = [bool(torch.allclose(program(x), old_m(x))) for x in inputs]\n"
    )
    assert same == [True, True, True]
    version = server.change(uri, new)
    after = await server.wait_checked(uri, version)
    assert errors(after) == []
    # the old action is for version 1: the server refuses to resolve it now
    stale = await resolve(server, cond)
    assert stale.edit is None and stale.disabled is not None


async def test_stale_versions_are_refused_by_server_and_client(server: Session) -> None:
    published = await server.open("fx_stale.py", GUARDED)
    uri, _ = server.write("fx_stale.py", GUARDED)
    line = line_of(GUARDED, "if (x < 0)")
    cond = pick(await proven(server, uri, line), "Rewrite as torch.cond")
    edit = (await resolve(server, cond)).edit
    assert edit is not None and edit.document_changes
    change = edit.document_changes[0]
    assert isinstance(change, types.TextDocumentEdit) and change.text_document.version == 1
    await server.set_settings(runOn="save")  # the edit below is not checked: no newer diagnostics
    try:
        version = server.change(uri, GUARDED + "\n# edited\n")
        assert version == 2 != change.text_document.version  # a client refuses the version-1 edit
        assert await actions(server, uri, line, published) == []  # nothing offered for version 1's findings
        stale = await resolve(server, cond)
        assert stale.edit is None and stale.disabled is not None
    finally:
        await server.set_settings(runOn="type")

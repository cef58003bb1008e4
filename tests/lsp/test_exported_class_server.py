"""The class an export call exports, through the real server (covered.py, discovery/built_class.py).

Issue 26's case: a script builds `model = Net().to(device)` at its top level and exports it; `Net`
has a data-dependent `if`. One finding: the error on the `if`, of `Net`. And when only running
tells what a factory returns, an edit of `Net` re-checks the export that covers it (never `Net`
alone on a guess), and the error names `Net` (exported as `model`).
"""

from __future__ import annotations

from lsprotocol import types

from tests.shared_sources import NET, RUNTIME_ONLY, TO_DEVICE

from .conftest import Session, line_of

REGISTRY = NET + RUNTIME_ONLY["registry"]


async def test_net_to_device_is_one_error_on_the_if_line_naming_net(server: Session) -> None:
    diagnostics = await server.open("net_to_device.py", TO_DEVICE)
    (diag,) = diagnostics
    assert (diag.severity, diag.code) == (types.DiagnosticSeverity.Error, "data-dependent-branch")
    assert diag.range.start.line == line_of(TO_DEVICE, "if y.sum() > 0:")
    assert "refused `Net`" in diag.message and diag.data["module"] == "Net"


async def test_an_edit_of_a_class_a_factory_exports_rechecks_that_export(server: Session) -> None:
    uri, text = server.write("net_registry.py", REGISTRY)
    (diag,) = await server.open_uri(uri, text)
    assert "refused `Net` (exported as `model`)" in diag.message
    # the lens and the hover on `class Net` say which export checks it, not "no example inputs"
    assert "exported as `create` · ✗ 1 export issue" in await server.lenses(uri)
    hover = await server.hover(uri, line_of(REGISTRY, "class Net("), 8)
    assert (
        hover is not None and "— exported as `create` · ✗ 1 export issue\n\nChecked by that export" in hover
    )
    assert "no example inputs" not in hover
    # typed inside Net: the export that covers it runs again, with Net, not a guess of Net's inputs
    version = server.change(uri, REGISTRY.replace("y.sum() > 0", "y.mean() > 0"))
    (diag,) = await server.wait_checked(uri, version)
    assert (diag.code, diag.range.start.line) == ("data-dependent-branch", line_of(REGISTRY, "if y.sum"))
    assert "refused `Net` (exported as `model`)" in diag.message and "y.mean() > 0" in diag.message

"""A notebook's cells as one text: magics inert, lines mapped both ways, and what runs."""

from __future__ import annotations

import ast

from exportlens.notebook import Cell, Notebook, notebook_document
from exportlens.notebook.runs import runs_of


def test_magics_are_inert_and_every_line_keeps_its_place() -> None:
    cells = [
        Cell(0, "%matplotlib inline\n!pip install torch\nimport torch\nfiles = !ls"),
        Cell(1, "# Title", code=False),
        Cell(2, "%%time\nfor i in range(3):\n    print(i)\n"),
        Cell(3, "x = 1 % 2\nif x:\n    %time f()\ny = 3 != 4"),
    ]
    notebook = Notebook(cells)
    lines = notebook.text.split("\n")
    assert lines[:4] == ["", "", "import torch", ""]
    assert lines[4:7] == ["", "", ""]  # a `%%` cell: blank lines
    assert lines[7:11] == ["x = 1 % 2", "if x:", "    pass", "y = 3 != 4"]
    assert [(s.cell.index, s.first, s.lines) for s in notebook.spans] == [(0, 0, 4), (2, 4, 3), (3, 7, 4)]
    span, line = notebook.in_cell(9) or (None, -1)
    assert span is not None and span.cell.index == 3 and line == 2
    span, line = notebook.in_cell(11) or (None, -1)  # past the end: the last cell's last line
    assert span is not None and span.cell.index == 3 and line == 3


def test_only_definitions_and_the_export_cell_run() -> None:
    cells = [
        Cell(0, "import torch\nN = 4\nM = N * 2\nseed = torch.manual_seed(0)\n"),
        Cell(1, "@decorate\nclass Net(torch.nn.Module):\n    pass\nfor _ in range(9):\n    train()\n"),
        Cell(2, "data = load()\nplot(data)\n"),
        Cell(3, "model = Net()\nx = torch.ones(N)\ntorch.export.export(model, (x, data))\n"),
    ]
    doc = notebook_document("/nowhere/nb.ipynb", cells)
    assert doc.text.split("\n") == [
        "import torch", "N = 4", "M = N * 2", "",
        "@decorate", "class Net(torch.nn.Module):", "    pass", "", "",
        "", "",
        "model = Net()", "x = torch.ones(N)", "torch.export.export(model, (x, data))", "",
    ]  # fmt: skip
    assert doc.notebook is not None
    assert [n.id for n in runs_of(doc).missing] == ["data"]


def test_the_tree_is_the_run_texts_own_from_one_parse() -> None:
    """The document's tree is the joined parse's kept statements (no second parse): the same tree
    Python gives the text that runs, a definition sharing a line with training code included."""
    cells = [
        Cell(0, "import torch\nN = 2; train()\nclass Net(torch.nn.Module):\n    pass\n"),
        Cell(1, "for _ in range(9):\n    train()\n"),
        Cell(2, "torch.export.export(Net(), (torch.ones(N),))\n"),
    ]
    doc = notebook_document("/nowhere/nb.ipynb", cells)
    assert doc.text.split("\n")[1] == "", "the line goes, and with it `N = 2`: it does not run"
    assert ast.dump(doc.tree) == ast.dump(ast.parse(doc.text))
    assert doc.notebook is not None and [n.id for n in runs_of(doc).missing] == ["N"]


def test_a_notebook_that_does_not_parse_runs_nothing_more() -> None:
    doc = notebook_document("/nowhere/nb.ipynb", [Cell(0, "def f(:\n"), Cell(1, "train()\n")])
    assert doc.syntax_error is not None


def test_an_edit_inserted_where_a_cell_starts_goes_to_the_cell_before() -> None:
    from lsprotocol import types

    from exportlens.lsp.notebooks import cell_edit

    cells = [Cell(0, "import torch", "cell:a", version=3), Cell(1, "x = 1\n", "cell:b", version=5)]
    doc = notebook_document("/nowhere/nb.ipynb", cells)
    at = types.Position(line=1, character=0)  # joined line 1: the first line of the second cell
    insert = types.TextEdit(range=types.Range(start=at, end=at), new_text="from torch.export import Dim\n")
    (change,) = cell_edit(doc, [insert]).document_changes or []
    assert isinstance(change, types.TextDocumentEdit)
    assert (change.text_document.uri, change.text_document.version) == ("cell:a", 3)
    (edit,) = change.edits
    assert isinstance(edit, types.TextEdit)
    assert edit.range.start == types.Position(line=0, character=len("import torch"))
    assert edit.new_text == "\nfrom torch.export import Dim"


def test_a_training_cells_model_construction_runs_and_its_loop_does_not() -> None:
    from tests.cli.test_cli_notebooks import QUICKSTART

    doc = notebook_document("/nowhere/nb.ipynb", [Cell(i, text) for i, text in enumerate(QUICKSTART)])
    kept = {line.strip() for line in doc.text.splitlines() if line.strip()}
    assert {
        'device = "cuda" if torch.cuda.is_available() else "cpu"',
        "model = NeuralNetwork().to(device)",
    } <= kept
    assert not {
        line for line in kept if "optimizer" in line or "torch.load" in line or line.startswith("for ")
    }
    assert runs_of(doc).missing == []

"""A syntax error through the real server (issue 42, item 6): at Python's own position (the
column ruff and `python file.py` name, not the line's indentation) and with no "Ignore
`syntax-error` on this line" action: a comment cannot make a file that does not parse checkable."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from lsprotocol import types

from .conftest import Session

# The unmatched `)`; a non-ASCII string before it: the column is in UTF-16 units, as LSP wants.
BROKEN = (
    "import torch\n\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n"
    '        tag = "🔥"; return torch.relu(x)) + 1\n'
)
LINE = 5


def _ruff_column(path: Path) -> int:
    """ruff's own 1-based column for the file's syntax error (a second parser, not ours)."""
    ruff = Path(sys.executable).parent / "ruff"
    done = subprocess.run(
        [str(ruff), "check", "--no-cache", "--isolated", "--output-format", "concise", str(path)],
        capture_output=True,
        text=True,
    )
    (row,) = [r for r in done.stdout.splitlines() if r.startswith(str(path))]
    return int(row[len(str(path)) + 1 :].split(":")[1])


async def test_a_syntax_error_sits_where_python_says_and_cannot_be_ignored(server: Session) -> None:
    uri, text = server.write("syntax_col.py", BROKEN)
    (found,) = await server.open_uri(uri, text)
    assert found.code == "syntax-error", found
    line = BROKEN.splitlines()[LINE]
    column = line.index("))") + 1  # the second `)`: in characters (ruff and Python say so)
    assert _ruff_column(server.root / "syntax_col.py") == column + 1
    utf16 = len(line[:column].encode("utf-16-le")) // 2
    assert found.range.start == types.Position(line=LINE, character=utf16), found.range
    actions = await server.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=found.range,
            context=types.CodeActionContext(diagnostics=[found]),
        )
    )
    titles = [a.title for a in actions or []]
    assert not [t for t in titles if "syntax-error" in t], titles

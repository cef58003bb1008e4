"""`python -m exportlens serve` with every `ast.parse` of the server process counted: each call
appends the SHA-1 of the text it parsed to the file named by $EXPORTLENS_PARSE_LOG (test_one_parse)."""

from __future__ import annotations

import ast
import hashlib
import os
import runpy
import sys
from typing import Any

_parse = ast.parse


def _counting_parse(source: Any, *args: Any, **kwargs: Any) -> Any:
    text = source.decode("utf-8", "replace") if isinstance(source, bytes) else source
    if isinstance(text, str):
        with open(os.environ["EXPORTLENS_PARSE_LOG"], "a", encoding="ascii") as log:
            log.write(hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest() + "\n")
    return _parse(source, *args, **kwargs)


ast.parse = _counting_parse  # type: ignore[assignment]
sys.argv = ["exportlens", "serve"]
runpy.run_module("exportlens", run_name="__main__", alter_sys=True)

"""The export worker: runs in the *user's* interpreter, next to their torch.

This package imports only the standard library and torch, and is loaded by
file location (see `exportlens.engine.process`), so an interpreter that has
torch but not ExportLens can run it without our dependencies leaking in.
Its subpackages by role, imported only downwards: host/ -> job/ -> parts/, capture/, lowering/
-> core/ -> wire/; the rest of ExportLens imports only wire/ (docs/architecture.md).
"""

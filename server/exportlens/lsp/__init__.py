"""The ExportLens language server: thin LSP wiring over the editor-agnostic engine.

One feature per module (pygls style): settings, trust, scheduling, diagnostics,
hover, code lenses, commands, progress.  Nothing here imports torch: exports run
in the engine's worker process, in the user's interpreter.
"""

"""How ExportLens is configured: each setting declared once (settings.py), read by the CLI, the
language server and whatever else configures a check."""

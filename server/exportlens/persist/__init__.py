"""Results kept on disk between sessions: reopening an unchanged workspace, or running
`exportlens check` on an unchanged tree, shows what the last check found without exporting.

A file's stored results are valid while its context is: the interpreter and what is installed in
it (torch's version and every other distribution's), ExportLens's own code (a digest of its
files, not its version string), the settings results
depend on, and the text of every workspace file it imports (fingerprint.py).  Within a valid
context each module's results are kept by its own key (check/keys.py), so an edit of one class
leaves the others' stored results usable.  The editor shows restored results marked as cached and
re-checks in the background; the CLI trusts them unless `--no-cache`.
"""

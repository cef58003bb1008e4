"""The `python -c` program that starts worker code in any interpreter.

It loads this package by file location under a private name, so the target
interpreter needs torch but not ExportLens, and none of the engine's own
dependencies land on its sys.path.  argv: this package's __init__.py, its
folder, the entry module (`host.main` for the worker, `job.spawned` for a job child).
"""

BOOT = """\
import importlib, importlib.util, sys
if sys.path and sys.path[0] in ('', '.'):
    del sys.path[0]  # never import from the cwd: a stray torch.py must not shadow torch
spec = importlib.util.spec_from_file_location(
    'exportlens_worker', sys.argv[1], submodule_search_locations=[sys.argv[2]])
module = importlib.util.module_from_spec(spec)
sys.modules['exportlens_worker'] = module
spec.loader.exec_module(module)
importlib.import_module('exportlens_worker.' + sys.argv[3]).main()
"""

"""The start of a `python -c` program that runs the worker's code as the worker does: the package
loaded by file location under its private name (worker/wire/boot.py); argv[1] is its folder."""

LOAD_WORKER = r"""
import collections, importlib, importlib.util, json, sys

here = sys.argv[1]
spec = importlib.util.spec_from_file_location(
    "exportlens_worker", here + "/__init__.py", submodule_search_locations=[here])
package = importlib.util.module_from_spec(spec)
sys.modules["exportlens_worker"] = package
spec.loader.exec_module(package)
"""

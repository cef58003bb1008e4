"""Reading what torch did: a failure into a `FailureRecord` (`failure.py`, with the frames, guard
sites, output and layer sites, stepping into library code), a clean export into an `ExportSummary`
(`summary.py`, `graph_json.py`), graph breaks and narrowed Dims, and the searches for more
failures after the first (`allfailures.py`, `strict_breaks.py`).  A new torch version's error
format is taught here.  Imports `wire/` and `core/` only.
"""

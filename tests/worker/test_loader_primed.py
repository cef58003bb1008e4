"""worker/job/loader.py `prime`: the worker parses and compiles a text once before forking; every job
child on that text reuses the tree and the code, and runs what it would have run without them."""

from __future__ import annotations

import types

from exportlens.worker.job import loader

SOURCE = "x = 1\ny = x + 1\nraise SystemExit('the export call: never run by the load')\n"


def test_a_primed_text_is_parsed_once_and_loads_the_same(tmp_path) -> None:
    path = str(tmp_path / "primed.py")
    loader.prime(path, SOURCE, [3, 0])
    tree = loader.parse(path, SOURCE)
    assert loader.parse(path, SOURCE) is tree  # the worker's tree, not a new parse
    module = loader.load_module(path, SOURCE, tree, "primed_module", [], [3, 0])
    assert isinstance(module, types.ModuleType) and module.y == 2  # stopped before the raise


def test_a_text_that_does_not_parse_is_left_to_the_child(tmp_path) -> None:
    path = str(tmp_path / "broken.py")
    loader.prime(path, "def (:\n", None)  # no exception in the worker
    assert (path, "def (:\n") not in loader._primed


def test_the_worker_keeps_a_few_texts_only(tmp_path) -> None:
    for i in range(loader.PRIMED_AT_MOST + 3):
        loader.prime(str(tmp_path / f"m{i}.py"), f"v = {i}\n", None)
    assert len(loader._primed) <= loader.PRIMED_AT_MOST
    assert (
        str(tmp_path / f"m{loader.PRIMED_AT_MOST + 2}.py"),
        f"v = {loader.PRIMED_AT_MOST + 2}\n",
    ) in loader._primed

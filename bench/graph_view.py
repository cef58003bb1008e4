"""The graph panel's figures (issue 16): a 12-layer transformer (~540 nodes) and a ~2,000-node one.

    .venv/bin/python bench/graph_view.py [--layers 12 45]

- Worker side, per model: torch.export, then worker/capture/graph_json.py's graph_view (the time a check of
  the module the panel shows spends on it) and the size of its JSON.
- Page side (extension/test/runner/graphBench.ts: the panel's bundled page in Debian's chromium,
  headless, as the webview runs it): time from the data arriving to the first paint and dagre's
  layout time, as the panel opens (groups collapsed above 150 nodes) and with every group
  expanded; then the frame times (requestAnimationFrame deltas) while dragging the expanded graph.
The command -> first paint in a real code-server is printed by the UI test (graphUi.ts).
Files go under dist/bench/ (git-ignored).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(ROOT / "bench"))

from exportlens.worker.capture.graph_json import graph_view  # noqa: E402
from models import transformer  # noqa: E402

OUT = ROOT / "dist" / "bench"


def worker_side(layers: int) -> tuple[Path, dict[str, float]]:
    import torch

    spec = transformer(layers)
    folder = OUT / "graph-models"
    folder.mkdir(parents=True, exist_ok=True)
    path = spec.write(folder, strict=False)
    loaded = importlib.util.spec_from_file_location(f"graph_bench_{layers}", path)
    assert loaded is not None and loaded.loader is not None
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)
    started = time.perf_counter()
    program = torch.export.export(module.Transformer(), (torch.randint(0, 1000, (2, 64)),))
    exported = time.perf_counter() - started
    started = time.perf_counter()
    view = graph_view(program, str(path))
    built = time.perf_counter() - started
    text = json.dumps(view)
    out = OUT / f"transformer-{layers}.json"
    out.write_text(text, encoding="utf-8")
    return out, {
        "nodes": len(view["nodes"]),
        "export_s": exported,
        "graph_view_ms": built * 1000,
        "json_kb": len(text) / 1024,
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--layers", type=int, nargs="+", default=[12, 45])
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    subprocess.run(["node", "extension/esbuild.mjs"], cwd=ROOT, check=True, capture_output=True)
    subprocess.run(["node", "extension/esbuild.mjs", "--tests"], cwd=ROOT, check=True)
    files, worker = [], {}
    for layers in args.layers:
        file, figures = worker_side(layers)
        files.append(file)
        worker[file.stem] = figures
    page = subprocess.run(
        ["node", "dist/test/runner/graphBench.js", *map(str, files)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    print(
        "| graph | nodes | export s | graph_view ms | JSON kB | opened: nodes drawn, layout ms, paint ms "
        "| expanded: layout ms, paint ms | pan: frames, max ms, p95 ms |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for line in page.stdout.splitlines():
        row = json.loads(line)
        w = worker[row["graph"]]
        o, e, p = row["opened"], row["expanded"], row["pan"]
        cells = [
            row["graph"],
            w["nodes"],
            f"{w['export_s']:.1f}",
            f"{w['graph_view_ms']:.0f}",
            f"{w['json_kb']:.0f}",
            f"{o['nodes']}, {o['layoutMs']:.0f}, {o['paintMs']:.0f}",
            f"{e['layoutMs']:.0f}, {e['paintMs']:.0f}",
            f"{p['frames']}, {p['maxMs']:.0f}, {p['p95Ms']:.0f}",
        ]
        print("| " + " | ".join(map(str, cells)) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

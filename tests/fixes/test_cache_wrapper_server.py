"""The cache-keeping fix in the editor (issue 44, item 2), through the real server and worker: on
examples/llm_cache.py's refused export call, the quick-fix is offered once proven (its title says
the decode step matched eager generation), applies as one versioned edit, and the file it leaves
checks clean (the decode-step check of item 3 included)."""

from __future__ import annotations

from tests.fixes.conftest import apply_edit, pick, proven, resolve
from tests.lsp.conftest import Session
from tests.paths import ROOT

EXAMPLE = (ROOT / "examples" / "llm_cache.py").read_text(encoding="utf-8")


async def test_the_llm_cache_fix_is_proven_applied_and_leaves_a_clean_file(server: Session) -> None:
    before = await server.open("fx_llm_cache.py", EXAMPLE)
    uri, text = server.write("fx_llm_cache.py", EXAMPLE)
    (finding,) = [d for d in before if d.code == "unflattenable-output"]
    assert "TorchExportableModuleForDecoderOnlyLM" in finding.message
    found = await proven(server, uri, finding.range.start.line)
    fix = pick(
        found, "Export with a static cache through transformers' `TorchExportableModuleForDecoderOnlyLM`"
    )
    assert "max_cache_len=32, the sequence Dim's max" in fix.title, fix.title
    assert fix.title.endswith("decode step at cache position 8 match eager generation's logits)"), fix.title
    new = apply_edit(text, (await resolve(server, fix)).edit, uri, 1)
    assert "exportable.export(" in new and "torch.export.export(" not in new.split('"""')[-1], new
    after = await server.wait_checked(uri, server.change(uri, new))
    assert [d.code for d in after] == [], [d.message for d in after]

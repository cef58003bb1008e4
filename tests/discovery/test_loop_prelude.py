"""What discovery says runs before a call inside a loop (discovery/loops.py), without torch: each
loop holding the call is entered (`[line, col, 1]`), its body's statements before the call follow,
nothing after it, and a loop's `else` is never taken for its body."""

from __future__ import annotations

import textwrap

from exportlens.discovery import discover

HEAD = """
import torch

class Net(torch.nn.Module):
    def forward(self, x):
        return x
"""


def _inputs(body: str) -> tuple[dict[str, object], str]:
    source = textwrap.dedent(HEAD) + textwrap.dedent(body)
    (subject,) = discover(source, "train.py").subjects
    return subject.inputs, source


def at(source: str, needle: str) -> int:
    """The 1-based line holding `needle`."""
    return next(n for n, text in enumerate(source.splitlines(), 1) if needle in text)


def test_an_export_call_in_a_for_loop_enters_it_and_runs_the_body_before_it() -> None:
    inputs, src = _inputs(
        """
        loader = [(torch.ones(2, 3), 0)]
        for xb, yb in loader:
            xb = xb * 2
            ep = torch.export.export(Net(), (xb,))
            print("after the call")
        """
    )
    assert inputs["prelude"] == [[at(src, "for xb"), 0, 1], [at(src, "xb = xb"), 4]]
    assert inputs["call"][:2] == [at(src, "ep = "), 9]


def test_a_compiled_models_first_call_in_nested_while_and_for_with_a_with_block() -> None:
    inputs, src = _inputs(
        """
        model = torch.compile(Net())
        step = 0
        while True:
            lr = 0.1
            for micro_step in range(2):
                X = torch.randn(2, 3)
                with torch.no_grad():
                    out = model(X)
                out.sum().backward()
            step += 1
        """
    )
    assert inputs["kind"] == "compile-call"
    loops = [[at(src, "while True"), 0, 1], [at(src, "lr = "), 4], [at(src, "for micro"), 4, 1]]
    assert inputs["prelude"] == [*loops, [at(src, "X = "), 8]]
    assert inputs["call"][:2] == [at(src, "out = model"), 18]
    assert discover(src, "train.py").load_until == [at(src, "while True"), 0]


def test_the_load_stops_at_the_loop_that_calls_a_model_first_called_in_a_function() -> None:
    """nanoGPT: the first call is `estimate_loss()`'s; the `while True:` that calls the model too
    is where loading stops (a training loop never runs by loading)."""
    source = textwrap.dedent(HEAD) + textwrap.dedent(
        """
        if True:
            model = torch.compile(Net())

        def estimate_loss():
            for k in range(2):
                X = torch.randn(2, 3)
                out = model(X)

        while True:
            losses = estimate_loss()  # nanoGPT's train.py evaluates at iteration 0, then trains
            loss = model(torch.randn(2, 3)).sum()
            loss.backward()
        """
    )
    found = discover(source, "train.py")
    (subject,) = found.subjects
    assert subject.inputs["prelude"] == [[at(source, "for k"), 4, 1], [at(source, "X = "), 8]]
    assert subject.inputs["call"][:2] == [at(source, "out = model(X)"), 14]
    assert found.load_until == [at(source, "while True"), 0]


def test_a_call_in_a_loops_else_is_not_in_its_body() -> None:
    inputs, _ = _inputs(
        """
        for x in range(3):
            pass
        else:
            ep = torch.export.export(Net(), (torch.ones(2),))
        """
    )
    assert inputs["prelude"] == []


def test_a_compiled_methods_instance_called_in_a_loop() -> None:
    source = textwrap.dedent(
        """
        import torch

        class Net(torch.nn.Module):
            @torch.compile
            def forward(self, x):
                return x

        net = Net()
        for step in range(3):
            x = torch.randn(2, 8)
            out = net(x)
        """
    )
    found = discover(source, "train.py")
    (subject,) = found.subjects
    assert subject.inputs["prelude"] == [[at(source, "for step"), 0, 1], [at(source, "x = torch"), 4]]
    assert found.load_until == [at(source, "for step"), 0]

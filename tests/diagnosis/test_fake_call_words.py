"""A graph break on an op that raised on fake tensors (gb4315) says the op and what it raised, whole.

The message is torch 2.13's, as dynamo raised it for nanoGPT's `targets.view(-1)`-style bug
(`logits.transpose(0, 1).view(-1, 8)`) under torch.compile; no torch needed.
"""

from __future__ import annotations

from exportlens.diagnosis.kinds import EAGER_TOO, graph_break_kind

MESSAGE = """RuntimeError when making fake tensor call
  Explanation: Dynamo failed to run FX node with fake tensors: call_method view(*(FakeTensor(..., \
size=(2, 4, 8), grad_fn=<TransposeBackward0>), -1, 8), **{}): got ValueError('Cannot view a tensor with \
shape torch.Size([2, 4, 8]) and strides (8, 16, 1) as a tensor with shape (8, 8)!')
  Hint: Your code may result in an error when running in eager. Please double check that your code \
doesn't contain a similar error when actually running eager/uncompiled.
"""


def test_the_op_and_what_it_raised_are_said_and_the_fix_is_to_run_it_eagerly() -> None:
    kind = graph_break_kind("graph-break", MESSAGE, {"gb_id": "gb4315"}, "logits.view(-1, 8)", "")
    assert kind.detail == (
        "`view` raised ValueError: Cannot view a tensor with shape torch.Size([2, 4, 8]) and strides "
        "(8, 16, 1) as a tensor with shape (8, 8)!"
    )
    assert kind.fix["hint"] == EAGER_TOO and kind.fix["gb_id"] == "gb4315"

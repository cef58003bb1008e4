"""One module per refusal torch.export makes (torch 2.13); checked by tests/test_diagnosis_refusals.py."""

import copy
import json
import random
import time

import torch
from torch.export import Dim

torch.library.define("exportlens_test::double", "(Tensor x) -> Tensor")


@torch.library.impl("exportlens_test::double", "CPU")
def _double(x):
    return x * 2


@torch.library.custom_op("exportlens_test::triple", mutates_args=())
def triple(x: torch.Tensor) -> torch.Tensor:
    return x * 3


def _sin(x):
    return x.sin()


def _positive(x):
    return x > 0


def _total(x):
    return x.sum()


def _two(x):
    return (x + 1, x - 1)


def _one(x):
    return (x - 1,)


def _same(x):
    return x


class Branch(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x + 1
        return x - 1


class AnyBranch(torch.nn.Module):
    def forward(self, x):
        if (x < 0).any():
            return x.abs()
        return x.tanh()


class ItemIf(torch.nn.Module):
    def forward(self, x):
        if x.max().item() > 0:
            return x + 1
        return x


class NonzeroIf(torch.nn.Module):
    def forward(self, x):
        nz = x.nonzero()
        if nz.shape[0] > 3:
            return x + 1
        return x


class ReshapeDim(torch.nn.Module):
    def forward(self, x):
        return x.reshape(8, 16)


class CompareDim(torch.nn.Module):
    def forward(self, x):
        if x.shape[0] == 8:
            return x + 1
        return x


class NarrowDim(torch.nn.Module):
    def forward(self, x):
        if x.shape[0] > 16:
            return x + 1
        return x - 1


class ShareDims(torch.nn.Module):
    def forward(self, x, y):
        return x * y


class StaticPartner(torch.nn.Module):
    def forward(self, x, y):
        return x - y


class TinyExample(torch.nn.Module):
    def forward(self, x, y):
        return x + y


class WrongKey(torch.nn.Module):
    def forward(self, x):
        return x + 1


class OutOfRange(torch.nn.Module):
    def forward(self, x):
        return x + 1


class OpenFile(torch.nn.Module):
    def forward(self, x):
        open(__file__).close()
        return x + 1


class TimeCall(torch.nn.Module):
    def forward(self, x):
        return x + time.time()


class RandomCall(torch.nn.Module):
    def forward(self, x):
        return x + random.random()


class SeedCall(torch.nn.Module):
    def forward(self, x):
        torch.manual_seed(0)
        return x + 1


class JsonCall(torch.nn.Module):
    def forward(self, x):
        return x + len(json.dumps([1]))


class FormatTensor(torch.nn.Module):
    def forward(self, x):
        return x + len(f"{x}")


class HashTensor(torch.nn.Module):
    def forward(self, x):
        return x + hash(x) % 2


class DeepCopy(torch.nn.Module):
    def forward(self, x):
        return copy.deepcopy(x) + 1


class NumpyCall(torch.nn.Module):
    def forward(self, x):
        return x + float(x.numpy().sum())


class FloatCall(torch.nn.Module):
    def forward(self, x):
        return x * float(x.sum())


class DataPtr(torch.nn.Module):
    def forward(self, x):
        return x + x.data_ptr() % 2


class AssertTensor(torch.nn.Module):
    def forward(self, x):
        assert (x > -100).all()
        return x + 1


class CondDtype(torch.nn.Module):
    def forward(self, x):
        return torch.cond(x.sum() > 0, _sin, _positive, (x,))


class CondRank(torch.nn.Module):
    def forward(self, x):
        return torch.cond(x.sum() > 0, _sin, _total, (x,))


class CondCount(torch.nn.Module):
    def forward(self, x):
        return torch.cond(x.sum() > 0, _two, _one, (x,))


class CondAlias(torch.nn.Module):
    def forward(self, x):
        return torch.cond(x.sum() > 0, _same, _sin, (x,))


class CustomOp(torch.nn.Module):
    def forward(self, x):
        return torch.ops.exportlens_test.double(x) + 1


class CustomOpNoFake(torch.nn.Module):
    def forward(self, x):
        return triple(x) + 1


class UserRaise(torch.nn.Module):
    def forward(self, x):
        if x.shape[0] < 0:
            return x
        raise ValueError("negative sizes are not allowed")


def example():
    return (torch.randn(8),)


if __name__ == "__main__":
    batch = Dim("batch")
    bx, by = Dim("bx"), Dim("by")
    small = Dim("small", min=2, max=8)
    torch.export.export(Branch(), example())
    torch.export.export(AnyBranch(), example())
    torch.export.export(ItemIf(), example())
    torch.export.export(NonzeroIf(), example())
    torch.export.export(ReshapeDim(), (torch.randn(8, 16),), dynamic_shapes={"x": {0: batch}})
    torch.export.export(CompareDim(), example(), dynamic_shapes={"x": {0: batch}})
    torch.export.export(NarrowDim(), example(), dynamic_shapes={"x": {0: batch}})
    pair, tiny = (torch.randn(8), torch.randn(8)), (torch.randn(1), torch.randn(1))
    torch.export.export(ShareDims(), pair, dynamic_shapes={"x": {0: bx}, "y": {0: by}})
    torch.export.export(StaticPartner(), pair, dynamic_shapes={"x": {0: bx}, "y": None})
    torch.export.export(TinyExample(), tiny, dynamic_shapes={"x": {0: bx}, "y": {0: bx}})
    torch.export.export(WrongKey(), example(), dynamic_shapes={"z": {0: batch}})
    torch.export.export(OutOfRange(), (torch.randn(10),), dynamic_shapes={"x": {0: small}})
    torch.export.export(OpenFile(), example())
    torch.export.export(TimeCall(), example())
    torch.export.export(RandomCall(), example())
    torch.export.export(SeedCall(), example())
    torch.export.export(JsonCall(), example())
    torch.export.export(FormatTensor(), example())
    torch.export.export(HashTensor(), example())
    torch.export.export(DeepCopy(), example())
    torch.export.export(NumpyCall(), example())
    torch.export.export(FloatCall(), example())
    torch.export.export(DataPtr(), example())
    torch.export.export(AssertTensor(), example())
    torch.export.export(CondDtype(), example())
    torch.export.export(CondRank(), example())
    torch.export.export(CondCount(), example())
    torch.export.export(CondAlias(), example())
    torch.export.export(CustomOp(), example())
    torch.export.export(CustomOpNoFake(), example())
    torch.export.export(UserRaise(), example())

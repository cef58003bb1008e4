"""A custom op with no fake kernel: `missing-fake-kernel` (add `@torch.library.register_fake`)."""

import torch

torch.library.define("examples::double", "(Tensor x) -> Tensor")


@torch.library.impl("examples::double", "CPU")
def _double(x):
    return x * 2


class UsesOp(torch.nn.Module):
    def forward(self, x):
        return torch.ops.examples.double(x) + 1


if __name__ == "__main__":
    torch.export.export(UsesOp(), (torch.randn(4),))

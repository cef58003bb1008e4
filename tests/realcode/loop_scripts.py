"""Training and generation scripts whose model's first call sits in a loop (issue 40), as written.

NANOGPT_TRAIN: karpathy/nanoGPT's train.py (the training loop, `get_batch`, `estimate_loss`,
`get_lr`, `if compile: model = torch.compile(model)`), beside its model.py (nanogpt_model.py), in
their shape: a tiny config, random init, and `get_batch` building random token ids with
`torch.randint` instead of reading `train.bin`; DDP, wandb, checkpoint resumption and MFU cut.
Nothing is downloaded.

Each script writes a marker file beside itself in its training step (`STEPPED`): run as a script
it writes it; a check must never.
"""

STEPPED = "stepped.marker"

NANOGPT_TRAIN = """
import math
import os
import time
from contextlib import nullcontext

import torch

from model import GPTConfig, GPT

out_dir = os.path.dirname(os.path.abspath(__file__))
eval_interval = 2000
log_interval = 1
eval_iters = 2
eval_only = False
always_save_checkpoint = True
gradient_accumulation_steps = 2
batch_size = 2
block_size = 8
n_layer = 2
n_head = 2
n_embd = 16
dropout = 0.0
bias = False
learning_rate = 6e-4
max_iters = 3
weight_decay = 1e-1
beta1 = 0.9
beta2 = 0.95
grad_clip = 1.0
decay_lr = True
warmup_iters = 2
lr_decay_iters = 3
min_lr = 6e-5
device = "cpu"
dtype = "float32"
compile = True
master_process = True

torch.manual_seed(1337)
device_type = "cuda" if "cuda" in device else "cpu"
ctx = nullcontext() if device_type == "cpu" else torch.amp.autocast(device_type=device_type)
meta_vocab_size = 64


def get_batch(split):
    # nanoGPT reads np.memmap(train.bin); random token ids of the same shape here
    ix = torch.randint(1000 - block_size, (batch_size,))
    data = torch.randint(meta_vocab_size, (1000,))
    x = torch.stack([data[i:i + block_size] for i in ix])
    y = torch.stack([data[i + 1:i + 1 + block_size] for i in ix])
    return x.to(device), y.to(device)


iter_num = 0
best_val_loss = 1e9
model_args = dict(n_layer=n_layer, n_head=n_head, n_embd=n_embd, block_size=block_size,
                  bias=bias, vocab_size=None, dropout=dropout)
model_args["vocab_size"] = meta_vocab_size
gptconf = GPTConfig(**model_args)
model = GPT(gptconf)
model.to(device)
optimizer = model.configure_optimizers(weight_decay, learning_rate, (beta1, beta2), device_type)
if compile:
    print("compiling the model... (takes a ~minute)")
    unoptimized_model = model
    model = torch.compile(model)


@torch.no_grad()
def estimate_loss():
    out = {}
    model.eval()
    for split in ["train", "val"]:
        losses = torch.zeros(eval_iters)
        for k in range(eval_iters):
            X, Y = get_batch(split)
            with ctx:
                logits, loss = model(X, Y)
            losses[k] = loss.item()
        out[split] = losses.mean()
    model.train()
    return out


def get_lr(it):
    if it < warmup_iters:
        return learning_rate * (it + 1) / (warmup_iters + 1)
    if it > lr_decay_iters:
        return min_lr
    decay_ratio = (it - warmup_iters) / (lr_decay_iters - warmup_iters)
    coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
    return min_lr + coeff * (learning_rate - min_lr)


t0 = time.time()
while True:
    lr = get_lr(iter_num) if decay_lr else learning_rate
    for param_group in optimizer.param_groups:
        param_group["lr"] = lr
    if iter_num % eval_interval == 0 and master_process:
        losses = estimate_loss()
        print(f"step {iter_num}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
        if losses["val"] < best_val_loss or always_save_checkpoint:
            best_val_loss = losses["val"]
            if iter_num > 0:
                torch.save({"model": unoptimized_model.state_dict()}, os.path.join(out_dir, "ckpt.pt"))
    if iter_num == 0 and eval_only:
        break
    for micro_step in range(gradient_accumulation_steps):
        X, Y = get_batch("train")
        with ctx:
            logits, loss = model(X, Y)
            loss = loss / gradient_accumulation_steps
        loss.backward()
    if grad_clip != 0.0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    open(os.path.join(out_dir, "STEPPED"), "w").close()  # the test's marker: a training step ran
    t1 = time.time()
    dt, t0 = t1 - t0, t1
    if iter_num % log_interval == 0 and master_process:
        print(f"iter {iter_num}: loss {loss.item() * gradient_accumulation_steps:.4f}, {dt * 1000:.2f}ms")
    iter_num += 1
    if iter_num > max_iters:
        break
""".replace("STEPPED", STEPPED)

# nanoGPT with its evaluation cut, as a fork that never evaluates has it: the first call is then the
# training loop's own, in `while True:`, `for micro_step in range(...)`, `with ctx:`, its batch from
# `X, Y = get_batch("train")` just before it.
_EVAL = NANOGPT_TRAIN[NANOGPT_TRAIN.index("@torch.no_grad()") : NANOGPT_TRAIN.index("def get_lr")]
_EVALUATING = NANOGPT_TRAIN[
    NANOGPT_TRAIN.index("    if iter_num % eval_interval") : NANOGPT_TRAIN.index(
        "    if iter_num == 0 and eval_only"
    )
]
NANOGPT_TRAIN_NO_EVAL = NANOGPT_TRAIN.replace(_EVAL, "").replace(_EVALUATING, "")

# The canonical loop over a DataLoader of a TensorDataset, the compiled model's first call in it;
# the model's `if h.sum() > 0` is refused (fullgraph=True) and is reached only through the loop.
LOADER = """
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

marker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "STEPPED")


class Gate(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.fc = nn.Linear(width, 4)

    def forward(self, x):
        h = self.fc(x)
        if h.sum() > 0:
            return h.relu()
        return h


dataset = TensorDataset(torch.randn(12, 8), torch.randn(12, 4))
loader = DataLoader(dataset, batch_size=3, shuffle=True)
model = torch.compile(Gate(), fullgraph=True)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = ((model(xb) - yb) ** 2).mean()
        loss.backward()
        optimizer.step()
        open(marker, "w").close()  # the test's marker: a training step ran
""".replace("STEPPED", STEPPED)

# A generation loop over prompts a generator of the script yields: `for n in range(k)`, the ids
# growing by one sampled token per pass; the exported model's first call is in the inner loop.
GENERATE = """
import os

import torch
import torch.nn as nn
from torch.nn import functional as F

marker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "STEPPED")
block_size, vocab = 6, 32


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(vocab, 16)
        self.head = nn.Linear(16, vocab)

    def forward(self, ids):
        h = self.wte(ids)
        logits = self.head(h)
        return logits[:, -1, :]


def prompts():
    while True:
        yield torch.randint(vocab, (1, 3))


model = TinyLM().eval()
for prompt in prompts():
    ids = prompt
    for n in range(4):
        ids_cond = ids if ids.size(1) <= block_size else ids[:, -block_size:]
        ep = torch.export.export(model, (ids_cond,))
        logits = model(ids_cond)
        next_id = torch.multinomial(F.softmax(logits, dim=-1), num_samples=1)
        ids = torch.cat((ids, next_id), dim=1)
        open(marker, "w").close()  # the test's marker: what follows the call ran
    break
""".replace("STEPPED", STEPPED)

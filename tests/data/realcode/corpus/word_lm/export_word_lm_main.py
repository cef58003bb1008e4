"""Export the word-language model as pytorch/examples word_language_model/main.py builds it, at the
script's top level: the device from the flags, then `model = model.TransformerModel(...).to(device)`
(the module `model` shadowed by the model), an RNN when another architecture is asked for."""

import argparse

import model
import torch

args = argparse.Namespace(model="Transformer", emsize=16, nhid=32, nlayers=2, nhead=2, dropout=0.2, tied=False)
args.cuda, args.mps = torch.cuda.is_available(), False
if args.cuda:
    device = torch.device("cuda")
elif args.mps:
    device = torch.device("mps")
else:
    device = torch.device("cpu")

ntokens = 96
if args.model == "Transformer":
    model = model.TransformerModel(ntokens, args.emsize, args.nhead, args.nhid, args.nlayers, args.dropout).to(device)
else:
    model = model.RNNModel(args.model, ntokens, args.emsize, args.nhid, args.nlayers, args.dropout, args.tied).to(device)
model.eval()
data = torch.randint(0, ntokens, (5, 2)).to(device)
torch.export.export(model, (data,))

"""Export the word-language-model RNNs (LSTM, GRU) and its Transformer variant."""

import torch
from model import RNNModel, TransformerModel
from torch.export import Dim

if __name__ == "__main__":
    ntokens, seq_len, batch_size = 96, 5, 2
    lstm = RNNModel("LSTM", ntokens, 16, 16, 2, dropout=0.2).eval()
    data = torch.randint(0, ntokens, (seq_len, batch_size))
    hidden = lstm.init_hidden(batch_size)
    torch.export.export(lstm, (data, hidden))
    seq, batch = Dim("seq"), Dim("batch")
    torch.export.export(lstm, (data, hidden), dynamic_shapes=({0: seq, 1: batch}, ({1: batch}, {1: batch})))
    gru = RNNModel("GRU", ntokens, 16, 16, 2, dropout=0.2).eval()
    gru_hidden = gru.init_hidden(batch_size)
    torch.export.export(gru, (data, gru_hidden), dynamic_shapes=({0: seq, 1: batch}, {1: batch}))
    transformer = TransformerModel(ntokens, 16, 2, 32, 2, dropout=0.2).eval()
    torch.export.export(transformer, (data,))

"""A Hugging Face fine-tune step, as transformers' docs write it (huggingface/transformers, Apache
License 2.0; the library as installed, 5.25.0): a small BERT classifier, random init, gradient
checkpointing with `use_reentrant=True`, compiled, the batch passed as `**batch`, AdamW step."""
import torch
from transformers import BertConfig, BertForSequenceClassification

torch.manual_seed(0)
config = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                    intermediate_size=64, max_position_embeddings=32, num_labels=3)
model = BertForSequenceClassification(config)
model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": True})
model.train()
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
compiled = torch.compile(model)
batch = {"input_ids": torch.randint(0, 100, (2, 12)), "attention_mask": torch.ones(2, 12, dtype=torch.long),
         "labels": torch.tensor([0, 2])}
outputs = compiled(**batch)
outputs.loss.backward()
optimizer.step()
optimizer.zero_grad()

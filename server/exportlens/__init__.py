"""ExportLens: see where torch.export refuses your model, while you edit it."""

__version__ = "0.1.0"

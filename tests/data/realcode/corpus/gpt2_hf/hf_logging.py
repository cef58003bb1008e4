# ExportLens real-code corpus, case `gpt2_hf`: transformers' logging helpers.
# Modelled on huggingface/transformers src/transformers/utils/logging.py
# @ 0010f60284ab4b9d14b7df9c6525b1a2ad44e640 (Apache License 2.0, Copyright 2020 Optuna, Hugging
# Face). Written for this corpus, not a copy: `get_logger` hands out stdlib loggers, and
# `warning_once` is a `functools.lru_cache`d function set on `logging.Logger` itself.
import functools
import logging


def get_logger(name=None):
    return logging.getLogger(name)


@functools.lru_cache(None)
def warning_once(self, *args, **kwargs):
    self.warning(*args, **kwargs)


logging.Logger.warning_once = warning_once

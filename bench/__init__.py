"""Benchmarks of keras-seq's layers against Keras' built-in recurrent layers.

`python -m bench` (bench/__main__.py) times training steps and inference of
SCRBM, LMN and TrellisNet next to SimpleRNN / GRU / LSTM on the papers'
shapes, one process per backend, and writes a Markdown report. The other
scripts here measure one thing each: `autoencoder.py` (the closed-form
pretraining against a dense SVD), `xi_products.py` (its two routes for
the products with Xi), `reconstruction_memory.py` (the pretraining's
reconstruction error on long pieces), `long_memory.py` (TrellisNet on the
long-memory tasks), `trellis_sensitivity.py`, `pipeline.py`; and the analyses
the findings pages cite, each run as `python -m bench.<name>`:
`ocr_cv_refit` (the OCR cv refit on all nine folds), `unseen_word_errors`
(WSJ POS errors on unseen words), `memory_spectrum` (the LMN memory's
spectral radius), `copy_memory_phases` (copy memory's loss by phase).
"""

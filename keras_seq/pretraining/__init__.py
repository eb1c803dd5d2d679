"""Closed-form pretraining: the linear autoencoder for sequences (numpy/scipy)
and the LMN pretraining scheme (an unrolled Keras network, the autoencoder on
its hidden states, an LMN-B initialised from both)."""

from keras_seq.pretraining.linear_autoencoder import LinearAutoencoder
from keras_seq.pretraining.lmn import fine_tune
from keras_seq.pretraining.lmn import plot_report
from keras_seq.pretraining.lmn import pretrain_lmn

__all__ = ["LinearAutoencoder", "fine_tune", "plot_report", "pretrain_lmn"]

"""The model zoo: recipes (one per row of a paper's table), model builders,
the run loop and reports; `keras_seq.cli` is its command line."""

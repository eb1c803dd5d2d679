"""The model zoo: recipes (one per row of a paper's table), model builders,
the run loop, reports, and the `keras-seq` command line
(`python -m keras_seq.zoo.cli`)."""

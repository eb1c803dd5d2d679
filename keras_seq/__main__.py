"""`python -m keras_seq`: the `keras-seq` command line."""

import sys

from keras_seq.zoo import cli

sys.exit(cli.main())

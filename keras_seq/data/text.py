"""The former home of the text datasets, kept so that its names still import.

Each topic now has its own module in `keras_seq.data`:

* `text_vocabularies`: `vocabulary`, `pos_vocabulary` and `class_names`, by
  dataset name.
* `conll`: CoNLL-2000 chunking (`conll2000_chunking`), `read_conll`,
  `CONLL2000_CHUNK_TAGS`, `CONLL2000_VALID_SENTENCES`.
* `treebank`: the Penn Treebank bracketed-tree reader (`read_trees`,
  `tree_leaves`, `read_treebank`).
* `wsj_pos`: WSJ POS tagging (`wsj_pos`) on those trees, `WSJ_SPLIT_FILES`.
* `ptb`: the PTB word and character streams (`ptb_word`, `ptb_char`).
* `tokens`: `PAD`, `OOV`, `EOS`, vocabulary ranking and id encoding.
* `text_files`: the files' checksums, URLs and lookup.
* `parse_cache`: the in-memory memo of parsed files (`clear_cache`).

The datasets are registered by `conll`, `wsj_pos` and `ptb`, which
`keras_seq.data` imports.
"""

from keras_seq.data.conll import CONLL2000_CHUNK_TAGS
from keras_seq.data.conll import CONLL2000_VALID_SENTENCES
from keras_seq.data.conll import read_conll
from keras_seq.data.parse_cache import clear_cache
from keras_seq.data.text_vocabularies import class_names
from keras_seq.data.text_vocabularies import pos_vocabulary
from keras_seq.data.text_vocabularies import vocabulary
from keras_seq.data.tokens import EOS
from keras_seq.data.tokens import OOV
from keras_seq.data.tokens import PAD
from keras_seq.data.treebank import read_treebank
from keras_seq.data.treebank import read_trees
from keras_seq.data.treebank import tree_leaves
from keras_seq.data.wsj_pos import WSJ_SPLIT_FILES

__all__ = [
    "CONLL2000_CHUNK_TAGS",
    "CONLL2000_VALID_SENTENCES",
    "EOS",
    "OOV",
    "PAD",
    "WSJ_SPLIT_FILES",
    "class_names",
    "clear_cache",
    "pos_vocabulary",
    "read_conll",
    "read_trees",
    "read_treebank",
    "tree_leaves",
    "vocabulary",
]

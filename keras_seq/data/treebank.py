"""A reader of Penn Treebank bracketed trees. `read_trees` parses bracketed
text, `tree_leaves` lists a tree's (word, tag) preterminals, and
`read_treebank` reads the `treebank/combined/wsj_NNNN.mrg` members of the
NLTK treebank zip (latin-1) into tagged sentences."""

import re
import zipfile

from keras_seq.data import archives

_MRG = re.compile(r"treebank/combined/wsj_(\d{4})\.mrg")
_TOKEN = re.compile(r"\n|\(|\)|[^\s()]+")
# One .mrg file of the WSJ treebank holds at most a few hundred KB; a member
# larger than this is not a treebank file and is not read into memory.
MAX_MEMBER_BYTES = 16 * 1024 * 1024


def read_trees(text, source="<string>"):
    """Parse bracketed trees; returns a list of (label, children, line) nodes.

    A node's label is "" when the bracket opens with another bracket (the
    unlabelled root `( (S ...) )` of Penn Treebank files). Children are nodes
    or word strings. Raises ValueError naming `source` and the line for
    unbalanced brackets or a word outside any bracket.
    """
    trees = []
    stack = []  # open nodes: [label, children, line]
    line = 1
    expect_label = False
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token == "\n":
            line += 1
            continue
        if token == "(":
            if expect_label:
                stack[-1][0] = ""
            stack.append([None, [], line])
            expect_label = True
        elif token == ")":
            if not stack:
                raise ValueError(f"{source}, line {line}: unbalanced ')' with no open bracket.")
            label, children, start = stack.pop()
            node = ("" if label is None else label, children, start)
            expect_label = False
            if stack:
                stack[-1][1].append(node)
            else:
                trees.append(node)
        else:
            if not stack:
                raise ValueError(f"{source}, line {line}: {token!r} outside any bracket.")
            if expect_label:
                stack[-1][0] = token
            else:
                stack[-1][1].append(token)
            expect_label = False
    if stack:
        raise ValueError(
            f"{source}, line {stack[-1][2]}: unbalanced '(' never closed (end of file reached at line {line})."
        )
    return trees


def tree_leaves(tree, source="<string>"):
    """(word, tag) pairs of a tree, left to right (`(TAG word)` preterminals)."""
    leaves = []
    todo = [tree]
    while todo:
        label, children, line = todo.pop()
        words = [c for c in children if isinstance(c, str)]
        if words:
            if len(children) != 1:
                raise ValueError(
                    f"{source}, line {line}: malformed node ({label} ...): a word must be the only child of its tag."
                )
            leaves.append((words[0], label))
        elif not children:
            raise ValueError(f"{source}, line {line}: empty node ({label}).")
        else:
            todo.extend(reversed(children))
    return leaves


def read_treebank(path):
    """[(file_number, words, tags)] per sentence of `treebank/combined/wsj_*.mrg`
    in the NLTK treebank zip at `path`, `-NONE-` leaves dropped."""
    sentences = []
    with zipfile.ZipFile(path) as archive:
        members = sorted(n for n in archive.namelist() if _MRG.fullmatch(n))
        if not members:
            raise ValueError(f"{path}: no treebank/combined/wsj_NNNN.mrg members.")
        for member in members:
            number = int(_MRG.fullmatch(member).group(1))
            source = f"{path}:{member}"
            data = archives.read_member(archive, member, MAX_MEMBER_BYTES, source, "treebank file")
            text = data.decode("latin-1")
            for tree in read_trees(text, source):
                pairs = [(w, t) for w, t in tree_leaves(tree, source) if t != "-NONE-"]
                if pairs:
                    words, tags = zip(*pairs)
                    sentences.append((number, words, tags))
    return sentences

"""`ARGUMENT=VALUE` pairs of the command line (`train --set`, `select
--only`), read one way: a value is a Python literal (`3`, `0.5`, `1e-3`,
`(3, 5)`, `True`), else text. Which arguments a pair may name is the
caller's to check: a recipe's model arguments, a grid's."""

import ast


def parse(pairs, option, several=False):
    """`["units=50", "dropout=0.5"]` -> `{"units": 50, "dropout": 0.5}`;
    with `several`, a value is a comma-separated list: `["units=50,100"]` ->
    `{"units": (50, 100)}`. `option` names the flag in the error."""
    parsed = {}
    for pair in pairs or ():
        key, equals, text = pair.partition("=")
        if not equals or not key or not text:
            form = "ARGUMENT=V1,V2" if several else "ARGUMENT=VALUE"
            raise ValueError(f"{option} takes {form} pairs; got {pair!r}.")
        parsed[key] = tuple(_value(t) for t in text.split(",")) if several else _value(text)
    return parsed


def _value(text):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text

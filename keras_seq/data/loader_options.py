"""Checking the keyword options a dataset's loader accepts. Reads nothing."""


def check_options(name, options, allowed):
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise TypeError(
            f"Dataset {name!r} got unknown option(s) {unknown}; it accepts {sorted(allowed)}."
        )

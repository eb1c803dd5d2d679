"""Named search spaces: the papers' grids and a compact space for quick runs.

A space is data: a mapping from hyperparameter name to a range (`Choice`,
`Int`, `Float` or `Fixed`). `SearchSpace.define(hp)` registers every entry
with a KerasTuner `HyperParameters` and returns the sampled values. A paper
grid whose points are tuples (the LMN's functional/memory unit pairs) is one
`Choice` over string keys such as `"100x250"`, so the grid holds exactly the
published points and nothing between them.

Ranges are checked when a space is made (`search_space(...)`), before any
trial runs: a bad range raises `ValueError` naming the hyperparameter.
"""

import dataclasses
import numbers


@dataclasses.dataclass(frozen=True)
class Choice:
    values: tuple

    def register(self, hp, name):
        return hp.Choice(name, list(self.values), ordered=False)

    def points(self):
        return tuple(self.values)


@dataclasses.dataclass(frozen=True)
class Int:
    min_value: int
    max_value: int
    step: int | None = None
    sampling: str = "linear"

    def register(self, hp, name):
        return hp.Int(name, self.min_value, self.max_value, step=self.step, sampling=self.sampling)

    def points(self):
        return (self.min_value, self.max_value)


@dataclasses.dataclass(frozen=True)
class Float:
    min_value: float
    max_value: float
    step: float | None = None
    sampling: str = "linear"

    def register(self, hp, name):
        return hp.Float(name, self.min_value, self.max_value, step=self.step, sampling=self.sampling)

    def points(self):
        return (self.min_value, self.max_value)


@dataclasses.dataclass(frozen=True)
class Fixed:
    value: object

    def register(self, hp, name):
        return hp.Fixed(name, self.value)

    def points(self):
        return (self.value,)


# --------------------------------------------------------------------------
# What each hyperparameter may be. Each check raises ValueError with the
# hyperparameter's name; `kind` tells which range types make sense.


def _int_at_least(minimum):
    def check(name, value):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
            raise ValueError(f"Hyperparameter {name!r}: every value must be an integer >= {minimum}; got {value!r}.")

    return check


def _float_in(low, high, low_open=False, high_open=False):
    def check(name, value):
        ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
        if ok:
            ok = (value > low if low_open else value >= low) and (
                high is None or (value < high if high_open else value <= high)
            )
        if not ok:
            closing = ")" if high_open or high is None else "]"
            bracket = f"{'(' if low_open else '['}{low}, {'inf' if high is None else high}{closing}"
            raise ValueError(f"Hyperparameter {name!r}: every value must be a number in {bracket}; got {value!r}.")

    return check


def parse_units_pair(key):
    """`"100x250"` -> `(100, 250)` (functional units, memory units)."""
    try:
        functional, memory = (int(part) for part in str(key).lower().split("x"))
    except ValueError:
        raise ValueError(
            f"Hyperparameter 'units_pair': values are 'FUNCTIONALxMEMORY' strings such as '100x250'; got {key!r}."
        ) from None
    if functional < 1 or memory < 1:
        raise ValueError(f"Hyperparameter 'units_pair': both unit counts must be >= 1; got {key!r}.")
    return functional, memory


def parse_dilations(key):
    """`"1-2-4"` -> `(1, 2, 4)`: the dilation schedule, cycled over levels."""
    try:
        dilations = tuple(int(part) for part in str(key).split("-"))
    except ValueError:
        raise ValueError(f"Hyperparameter 'dilations': values are schedules such as '1-2-4-8'; got {key!r}.") from None
    if not dilations or min(dilations) < 1:
        raise ValueError(f"Hyperparameter 'dilations': every dilation must be >= 1; got {key!r}.")
    return dilations


def _parsed(parser):
    def check(name, value):
        parser(value)

    return check


CHECKS = {
    "units": _int_at_least(1),
    "units_pair": _parsed(parse_units_pair),
    "l2": _float_in(0.0, None),
    "learning_rate": _float_in(0.0, None, low_open=True),
    "check_every": _int_at_least(1),
    "patience_checks": _int_at_least(1),
    "num_levels": _int_at_least(2),
    "hidden_units": _int_at_least(1),
    "dropout": _float_in(0.0, 1.0, high_open=True),
    "input_dropout": _float_in(0.0, 1.0, high_open=True),
    "output_dropout": _float_in(0.0, 1.0, high_open=True),
    "aux_weight": _float_in(0.0, None),
    "dilations": _parsed(parse_dilations),
}


def check_range(name, spec):
    """Raises ValueError if `spec` is not a valid range for `name`."""
    if name not in CHECKS:
        raise ValueError(f"Unknown hyperparameter {name!r}; known: {', '.join(sorted(CHECKS))}.")
    check = CHECKS[name]
    if isinstance(spec, Choice):
        if not spec.values:
            raise ValueError(f"Hyperparameter {name!r}: a Choice needs at least one value.")
        if len(set(spec.values)) != len(spec.values):
            raise ValueError(f"Hyperparameter {name!r}: repeated values in {list(spec.values)}.")
        for value in spec.values:
            check(name, value)
    elif isinstance(spec, (Int, Float)):
        if name in ("units_pair", "dilations"):
            raise ValueError(f"Hyperparameter {name!r} takes a Choice of keys, not a numeric range.")
        if isinstance(spec, Int) and name in (
            "l2",
            "learning_rate",
            "dropout",
            "input_dropout",
            "output_dropout",
            "aux_weight",
        ):
            raise ValueError(f"Hyperparameter {name!r} is a float: use Float or Choice, not Int.")
        if isinstance(spec, Float) and name not in (
            "l2",
            "learning_rate",
            "dropout",
            "input_dropout",
            "output_dropout",
            "aux_weight",
        ):
            raise ValueError(f"Hyperparameter {name!r} is an integer: use Int or Choice, not Float.")
        check(name, spec.min_value)
        check(name, spec.max_value)
        if spec.min_value > spec.max_value:
            raise ValueError(f"Hyperparameter {name!r}: min_value {spec.min_value!r} > max_value {spec.max_value!r}.")
        if spec.step is not None and spec.step <= 0:
            raise ValueError(f"Hyperparameter {name!r}: step must be > 0; got {spec.step!r}.")
        if spec.sampling not in ("linear", "log", "reverse_log"):
            raise ValueError(
                f"Hyperparameter {name!r}: sampling must be linear, log or reverse_log; got {spec.sampling!r}."
            )
        if spec.sampling != "linear" and spec.min_value <= 0:
            raise ValueError(
                f"Hyperparameter {name!r}: {spec.sampling} sampling needs min_value > 0; got {spec.min_value!r}."
            )
    elif isinstance(spec, Fixed):
        check(name, spec.value)
    else:
        raise ValueError(f"Hyperparameter {name!r}: expected Choice, Int, Float or Fixed; got {spec!r}.")


@dataclasses.dataclass(frozen=True)
class SearchSpace:
    name: str
    family: str
    ranges: dict  # hyperparameter name -> Choice | Int | Float | Fixed
    main: str  # the hyperparameter plotted against the score
    source: str = ""

    def __post_init__(self):
        for name, spec in self.ranges.items():
            check_range(name, spec)
        if self.main not in self.ranges:
            raise ValueError(f"Space {self.name!r}: main hyperparameter {self.main!r} is not in its ranges.")

    def define(self, hp):
        """Registers the ranges with `hp`; returns {name: sampled value}."""
        return {name: spec.register(hp, name) for name, spec in self.ranges.items()}

    def grid(self):
        """{name: points} of the Choice/Fixed entries (a range's bounds otherwise)."""
        return {name: spec.points() for name, spec in self.ranges.items()}

    def size(self):
        """Number of points of a finite grid (None if a range is continuous)."""
        total = 1
        for spec in self.ranges.values():
            if isinstance(spec, (Int, Float)):
                return None
            total *= len(spec.points())
        return total


# --------------------------------------------------------------------------
# The spaces.

_LMN_PAPER = "Bacciu et al., Linear Memory Networks, Sec. 5 (Adam 1e-3, early stopping)"
_SCRBM_PAPER = "Tran et al., SCRBM, Sec. 4.2 ('ms' OCR: learning rate and hidden units by grid search)"
_TRELLIS_PAPER = "Bai et al., TrellisNet, App. D and the reference code's settings (spec/trellisnet.md)"

LMN_UNIT_PAIRS = ("50x50", "50x100", "100x100", "100x250", "250x250", "250x500")
L2_GRID = (1e-4, 1e-5, 1e-6, 1e-7, 0.0)
RNN_UNITS = (50, 100, 250, 500, 750)

# The SCRBM paper names the searched hyperparameters (learning rate, hidden
# units) but not their values; these are ours, around its published settings
# (100 hidden units best on melodies, 1000 on OCR 'cv', Adam 1e-3). Its early
# stopping is published: validation checked every 10 epochs, stop after 5
# checks without improvement.
SCRBM_LEARNING_RATES = (1e-2, 3e-3, 1e-3, 3e-4)
SCRBM_UNITS = (50, 100, 250, 500, 1000)

_SPACES = {}


def _add(space):
    _SPACES[(space.family, space.name)] = space


_add(
    SearchSpace(
        "lmn_paper",
        "lmn",
        {
            "units_pair": Choice(LMN_UNIT_PAIRS),
            "l2": Choice(L2_GRID),
            "learning_rate": Fixed(1e-3),
        },
        main="units_pair",
        source=_LMN_PAPER,
    )
)
_add(
    SearchSpace(
        "compact",
        "lmn",
        {
            "units_pair": Choice(("4x4", "8x8", "8x16")),
            "l2": Choice((1e-5, 0.0)),
            "learning_rate": Fixed(1e-3),
        },
        main="units_pair",
        source="small LMNs for quick runs",
    )
)

_add(
    SearchSpace(
        "lmn_paper",
        "rnn",
        {
            "units": Choice(RNN_UNITS),
            "l2": Choice(L2_GRID),
            "learning_rate": Fixed(1e-3),
        },
        main="units",
        source=_LMN_PAPER,
    )
)
_add(
    SearchSpace(
        "scrbm_paper",
        "rnn",
        {
            "units": Choice(SCRBM_UNITS),
            "learning_rate": Choice(SCRBM_LEARNING_RATES),
            "check_every": Fixed(10),
            "patience_checks": Fixed(5),
        },
        main="units",
        source=_SCRBM_PAPER + " (its RNN baseline)",
    )
)
_add(
    SearchSpace(
        "compact",
        "rnn",
        {
            "units": Choice((4, 8, 16)),
            "l2": Choice((1e-5, 0.0)),
            "learning_rate": Fixed(1e-3),
        },
        main="units",
        source="small RNNs for quick runs",
    )
)

_add(
    SearchSpace(
        "scrbm_paper",
        "scrbm",
        {
            "units": Choice(SCRBM_UNITS),
            "learning_rate": Choice(SCRBM_LEARNING_RATES),
            "check_every": Fixed(10),
            "patience_checks": Fixed(5),
        },
        main="units",
        source=_SCRBM_PAPER,
    )
)
_add(
    SearchSpace(
        "compact",
        "scrbm",
        {
            "units": Choice((4, 8, 16)),
            "learning_rate": Choice((1e-2, 1e-3)),
            "check_every": Fixed(1),
            "patience_checks": Fixed(2),
        },
        main="units",
        source="small SCRBMs for quick runs",
    )
)

_add(
    SearchSpace(
        "trellisnet_paper",
        "trellisnet",
        {
            "num_levels": Choice((8, 11, 16, 24)),
            "hidden_units": Choice((120, 256, 512, 1000)),
            "dropout": Choice((0.1, 0.2, 0.28)),  # hidden (variational) dropout
            "input_dropout": Choice((0.1, 0.2, 0.45)),
            "output_dropout": Choice((0.1, 0.2, 0.45)),
            "aux_weight": Choice((0.0, 0.05, 0.1, 0.3)),  # deep supervision lambda
            "dilations": Choice(("1", "1-2", "1-2-4-8", "1-1-2-4-8-16-32")),
            "learning_rate": Choice((1e-3, 2e-3, 4e-3)),
        },
        main="hidden_units",
        source=_TRELLIS_PAPER,
    )
)
_add(
    SearchSpace(
        "compact",
        "trellisnet",
        {
            "num_levels": Choice((2, 3)),
            "hidden_units": Choice((8, 16)),
            "dropout": Choice((0.0, 0.1)),
            "input_dropout": Fixed(0.0),
            "output_dropout": Fixed(0.0),
            "aux_weight": Choice((0.0, 0.1)),
            "dilations": Choice(("1", "1-2")),
            "learning_rate": Fixed(2e-3),
        },
        main="hidden_units",
        source="small TrellisNets for quick runs",
    )
)

FAMILIES = ("lmn", "rnn", "scrbm", "trellisnet")
# "paper" names each family's default published grid.
PAPER = {"lmn": "lmn_paper", "rnn": "lmn_paper", "scrbm": "scrbm_paper", "trellisnet": "trellisnet_paper"}


def names(family):
    return sorted(name for f, name in _SPACES if f == family)


def search_space(family, name="paper", **overrides):
    """The named space of a model family, with optional range overrides
    (e.g. `units=Choice((8, 16))`). Raises ValueError for an unknown family
    or space, or a bad range."""
    if family not in FAMILIES:
        raise ValueError(f"Unknown model family {family!r}; known: {', '.join(FAMILIES)}.")
    key = (family, PAPER[family] if name == "paper" else name)
    if key not in _SPACES:
        raise ValueError(
            f"No search space {name!r} for the {family} family; known: {', '.join(['paper'] + names(family))}."
        )
    space = _SPACES[key]
    if not overrides:
        return space
    for hp_name in overrides:
        if hp_name not in space.ranges:
            raise ValueError(
                f"Space {space.name!r} ({family}) has no hyperparameter {hp_name!r}; it has: {', '.join(space.ranges)}."
            )
    return dataclasses.replace(space, ranges={**space.ranges, **overrides})


def parse_override(text):
    """CLI `NAME=VALUES`: `units=8,16` (Choice), `units=8` (Fixed),
    `learning_rate=1e-4:1e-2` (Float, log sampling), `units=8:64` (Int)."""
    if "=" not in text:
        raise ValueError(f"--set expects NAME=VALUES (e.g. units=50,100 or learning_rate=1e-4:1e-2); got {text!r}.")
    name, values = text.split("=", 1)
    name = name.strip()

    def number(token):
        token = token.strip()
        if name in ("units_pair", "dilations"):
            return token
        try:
            return int(token)
        except ValueError:
            try:
                return float(token)
            except ValueError:
                raise ValueError(f"--set {name}: {token!r} is not a number.") from None

    if ":" in values:
        low, high = (number(v) for v in values.split(":", 1))
        if (
            isinstance(low, int)
            and isinstance(high, int)
            and name not in ("l2", "learning_rate", "dropout", "input_dropout", "output_dropout", "aux_weight")
        ):
            return name, Int(low, high)
        sampling = "log" if name in ("learning_rate", "l2") and float(low) > 0 else "linear"
        return name, Float(float(low), float(high), sampling=sampling)
    points = [number(v) for v in values.split(",") if v.strip()]
    if name in ("l2", "learning_rate", "dropout", "input_dropout", "output_dropout", "aux_weight"):
        points = [float(p) for p in points]
    if not points:
        raise ValueError(f"--set {name}: no values given.")
    return name, (Fixed(points[0]) if len(points) == 1 else Choice(tuple(points)))

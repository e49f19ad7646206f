"""The checks every module makes of the numbers it is given: a whole number in a range, seconds."""

import numbers

#: The largest count beggar takes (cards, tricks, deals, states): well inside
#: the signed 64-bit integers of the engines and of SQLite.
MAX_COUNT = 10 ** 18

#: Seeds and deal numbers are 64-bit.
MAX_SEED = 2 ** 64 - 1

#: Archive ids are SQLite's signed 64-bit integers.
MAX_ID = 2 ** 63 - 1

#: The longest time beggar is given (a search's --time, a backward search's
#: bound): some thirty years.
MAX_SECONDS = 10 ** 9

_SHOWN = {MAX_COUNT: "10**18", MAX_SEED: "2**64-1", MAX_ID: "2**63-1"}


def shown(bound):
    """A bound as people read it: 10**18 rather than 1000000000000000000."""
    return _SHOWN.get(bound, str(bound))


def whole(value, name, low=0, high=None):
    """`value` when it is a whole number from `low` to `high` (None: no upper
    bound), else ValueError naming `name` and the range. bool is not a number
    here; NumPy integers are."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) \
            or value < low or (high is not None and value > high):
        bound = f"of at least {low}" if high is None else f"from {low} to {shown(high)}"
        raise ValueError(f"{name} must be a whole number {bound}, not {value!r}")
    return int(value)


def seconds(value, name, high=MAX_SECONDS):
    """`value` as a float when it is a number of seconds above 0 and at most
    `high`, else ValueError naming `name`. bool is not a number here; nan is
    no number of seconds."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value <= high:
        raise ValueError(f"{name} must be a number of seconds above 0 and at most {high:,}, not {value!r}")
    return float(value)

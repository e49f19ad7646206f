"""One check every module makes of the numbers it is given: a whole number in a range."""

import numbers


def whole(value, name, low=0, high=None):
    """`value` when it is a whole number from `low` to `high` (None: no upper
    bound), else ValueError naming `name` and the range. bool is not a number
    here; NumPy integers are."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) \
            or value < low or (high is not None and value > high):
        bound = f"of at least {low}" if high is None else f"from {low} to {high}"
        raise ValueError(f"{name} must be a whole number {bound}, not {value!r}")
    return int(value)

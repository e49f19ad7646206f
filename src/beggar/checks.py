"""The checks every module makes of the numbers it is given: a whole number
in a range, seconds; and one rule for every number a user writes anywhere
(an option, a deck's counts, a job file's text, an environment variable):
ASCII digits only, at most MAX_DIGITS of them, and a value that is not one
is named in the error cut to a readable length."""

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

#: The most digits a written number may have: every count beggar takes has
#: at most 19, a seed 20, a census rank of the largest deck (255 cards) 174.
MAX_DIGITS = 200

#: The most characters of a bad value an error message echoes.
SHOWN_CHARACTERS = 60

_SHOWN = {MAX_COUNT: "10**18", MAX_SEED: "2**64-1", MAX_ID: "2**63-1"}


def shown(bound):
    """A bound as people read it: 10**18 rather than 1000000000000000000."""
    return _SHOWN.get(bound, str(bound))


def cut(text, most=SHOWN_CHARACTERS):
    """repr(text), cut to `most` characters, with how long it was when cut."""
    if not isinstance(text, str):
        try:
            text = repr(text)
        except ValueError:          # an int of more digits than Python prints
            return f"a number of over {MAX_DIGITS} digits"
        return text if len(text) <= most else f"{text[:most]}... ({len(text):,} characters)"
    if len(text) <= most:
        return repr(text)
    return f"{text[:most]!r}... ({len(text):,} characters)"


def listed(value, error):
    """list(value), unless `value` is text or no sequence at all: then the
    exception that `error()` makes."""
    if not isinstance(value, (str, bytes)):
        try:
            return list(value)
        except TypeError:
            pass
    raise error()


def is_digits(text):
    """Whether `text` is a whole number written in ASCII digits, at most MAX_DIGITS of them."""
    return isinstance(text, str) and 0 < len(text) <= MAX_DIGITS and text.isascii() and text.isdigit()


def number(text, name, low=0, high=None):
    """The whole number written in `text` (is_digits), checked by whole(); else
    ValueError naming `name` and the value, cut to a readable length."""
    if not is_digits(text):
        bound = f"of at least {low}" if high is None else f"from {low} to {shown(high)}"
        raise ValueError(f"{name} must be a whole number {bound} in digits 0-9, not {cut(text)}")
    return whole(int(text), name, low, high)


def whole(value, name, low=0, high=None):
    """`value` when it is a whole number from `low` to `high` (None: no upper
    bound), else ValueError naming `name` and the range. bool is not a number
    here; NumPy integers are."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) \
            or value < low or (high is not None and value > high):
        bound = f"of at least {low}" if high is None else f"from {low} to {shown(high)}"
        raise ValueError(f"{name} must be a whole number {bound}, not {cut(value)}")
    return int(value)


def seconds(value, name, high=MAX_SECONDS):
    """`value` as a float when it is a number of seconds above 0 and at most
    `high`, else ValueError naming `name`. bool is not a number here; nan is
    no number of seconds."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value <= high:
        raise ValueError(f"{name} must be a number of seconds above 0 and at most {high:,}, not {value!r}")
    return float(value)


#: The most devices a GPU job names: more than any machine holds.
MAX_DEVICES = 64


def devices(value, name):
    """The GPU devices `value` names: "all", or device numbers, given as a
    list of whole numbers or written "0,2" (an option, an environment
    variable): "all" or a sorted tuple of distinct numbers; else ValueError
    naming `name`."""
    if value == "all":
        return "all"
    if isinstance(value, str):
        parts = value.split(",")
        if not all(is_digits(part.strip()) for part in parts):
            raise ValueError(f"{name} must be 'all' or device numbers such as '0,2', not {cut(value)}")
        value = [int(part) for part in parts]
    if not isinstance(value, (list, tuple)) or not value or len(value) > MAX_DEVICES:
        raise ValueError(f"{name} must be 'all' or a list of 1 to {MAX_DEVICES} device numbers, not {cut(value)}")
    chosen = [whole(number, f"a device number of {name}", 0, MAX_DEVICES - 1) for number in value]
    if len(set(chosen)) != len(chosen):
        raise ValueError(f"{name} names a device twice: {cut(value)}")
    return tuple(sorted(chosen))

"""The data files installed with beggar (beggar/data), read by name. One that
cannot be read as it was shipped is a fault of the installation, not a user's
bad input: one line naming the installed file and saying whose it is, exit 3."""

from importlib import resources

from .errors import BadInput, Fault


class InstallationFault(Fault):
    """A data file of beggar's installation that is damaged or missing."""


def path(name):
    """Where the data file `name` of this installation is."""
    return str(resources.files("beggar").joinpath("data", name))


def read(name, parse):
    """parse(text, where) of the installed data file `name` (`where`: its
    path, for the messages); an InstallationFault naming the file where it
    cannot be read or `parse` refuses it (BadInput, or ValueError, KeyError,
    TypeError of a file not as shipped)."""
    where = path(name)
    try:
        text = resources.files("beggar").joinpath("data", name).read_text(encoding="utf-8")
        return parse(text, where)
    except (BadInput, ValueError, KeyError, TypeError, OSError) as error:
        told = getattr(error, "strerror", None) or str(error)
        told = told if told.startswith(where) else f"{where}: {told}"
        raise InstallationFault(f"{told}: a file of beggar's installation, damaged or missing "
                                "(reinstall beggar)") from None

"""The package's one error family: every error class of beggar derives from
one of these two bases, so that the command catches two classes and a class
added later cannot slip out as a traceback.

Each class keeps its older base too (ValueError, RuntimeError), so code that
catches those goes on catching it.
"""


class BadInput(Exception):
    """Something the user asked for that cannot be done as asked (a bad deal,
    file, option or job): theirs to correct; the command exits 2."""


class Fault(Exception):
    """Something the machine cannot do now (an archive locked or damaged, a
    full disk, engines that disagree, no GPU): the command exits 3."""

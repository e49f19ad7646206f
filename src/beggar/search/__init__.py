"""Search drivers and the jobs that run them: random sampling and hill climbing,
cut into reproducible chunks, run by worker processes, kept in the archive."""

from ..errors import Fault


class SearchError(Fault):
    """A job that had to stop: the engines disagree, or the archive cannot be written."""

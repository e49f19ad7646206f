"""What the queries of every table share: the time stamp, the one WHERE
builder, the batch of a look-up of many rows, and the guard that turns what
SQLite raises into an ArchiveFault."""

import functools
import sqlite3
from datetime import datetime, timezone

#: Values one look-up of many rows names at most (SQLite before 3.32 takes 999).
BATCH = 900


def now():
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def dicts(cursor):
    """The rows of `cursor`, each a dict by column name."""
    names = [d[0] for d in cursor.description]
    return (dict(zip(names, row)) for row in cursor)


def batched(db, sql, fixed, values):
    """The rows of `sql`, whose {} is the list of values of an IN, for every
    one of `values`, BATCH of them a query; `fixed` the arguments before them."""
    values = list(values)
    for at in range(0, len(values), BATCH):
        batch = values[at:at + BATCH]
        yield from db.execute(sql.format(", ".join("?" * len(batch))), (*fixed, *batch))


def where(*conditions, **equal):
    """(' WHERE ...', its arguments) of the columns `equal` names that are
    given a value (None: not narrowed by it) and of `conditions`, each an
    (SQL, *arguments) tuple or a false value (left out); ('', []) for none.
    Every query that a listing narrows is narrowed here."""
    clauses, args = [], []
    for column, value in equal.items():
        if value is not None:
            clauses.append(f"{column} = ?")
            args.append(value)
    for sql, *values in filter(None, conditions):
        clauses.append(sql)
        args.extend(values)
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), args


def guarded(cls):
    """The class of an archive's queries, each of its methods answering an
    sqlite3.Error with the ArchiveFault it stands for (Archive.fault): no
    sqlite3.Error leaves the archive."""
    def guard(method):
        @functools.wraps(method)
        def guarded_method(self, *args, **kwargs):
            try:
                return method(self, *args, **kwargs)
            except sqlite3.Error as error:
                raise self.fault(error) from None
        return guarded_method
    for name, method in list(vars(cls).items()):
        if callable(method) and not name.startswith("__"):
            setattr(cls, name, guard(method))
    return cls

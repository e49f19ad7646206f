"""The driver rows' queries (a mixin of store.Archive): what a driver
keeps of its own beside its chunks (a hunt's seats), by job, kind and key,
its value a JSON object of the driver's shape, which the archive never
reads into (the driver checks it)."""

import json

from . import migrations, readback, schema
from .sql import dicts, guarded, now, where


@guarded
class DriverRows:
    def put_row(self, job_id, kind, key, value):
        """Keep (or replace) a driver's row, inside the transaction that keeps what it stands for."""
        self.db.execute("INSERT OR REPLACE INTO driver_rows (job, kind, key, value, done_at) VALUES (?, ?, ?, ?, ?)",
                        (job_id, kind, key, json.dumps(value, separators=(",", ":")), now()))

    def rows(self, kind, job_id=None, keys=None):
        """The driver rows of `kind` as dicts, in the order they were kept, each
        checked but for its value (its driver's to check). An archive of format
        6 read as it stands gives its seats as format 7 keeps them; one older has none."""
        keys = None if keys is None else list(keys)     # read twice below
        if self.version == 6:
            found = [dict(zip(("job", "kind", "key", "value", "done_at"), row))
                     for row in migrations.old_driver_rows(self.db, self.path)]
        elif "driver_rows" in schema.tables_after(self.version):
            found = []
        else:
            clause, args = where(kind=kind, job=job_id)
            if keys is not None:
                clause += f" AND key IN ({', '.join('?' * len(keys))})"
            found = dicts(self.db.execute(f"SELECT job, kind, key, value, done_at FROM driver_rows{clause} "
                                          "ORDER BY rowid", (*args, *(keys or ()))))
        return [readback.read_driver_row(self.path, row) for row in found
                if row["kind"] == kind and job_id in (None, row["job"]) and (keys is None or row["key"] in keys)]

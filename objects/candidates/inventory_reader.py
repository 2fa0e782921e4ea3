"""A first index load's inventories, read by a helper process beside the provider scan.

At 1,000,000 computes the first load of the provider index
(objects/candidates/index.py) reads 3.5 million inventory rows: ~3 s in
SQLite and the driver, ~1.5 s more grouping them by provider, on one CPU
while the others idle.  A thread cannot take it over: the driver releases
the GIL around every row's step, and a thread reading rows beside a busy
one finished in the sum of both times (3.2 s + 3.3 s alone, 6.5 s
together).  A process can: :func:`start` runs this file (standard library
only) on the SQLite file; it reads the table in its own snapshot, groups
the rows as index._fill does (each provider's classes in row order, equal
inventories one shape) and writes them, pickled, to its stdout, while this
process scans the providers, their usage, traits and aggregates.

Its snapshot is the caller's only when nothing was committed in between:
:meth:`Helper.result` uses the answer only when the database's change
token (db/change.py: any commit anywhere changes it) read after the helper
has finished still equals the token the caller's snapshot was proven to
be; otherwise, or when the helper failed, it answers None and the caller
reads the table itself, as before.
"""

import array
import gc
import os
import pickle
import sqlite3
import subprocess
import sys

# the inventory rows of index._INVENTORIES_ALL, in the same column order
SQL = ('SELECT resource_provider_id, resource_class_id, total, reserved, min_unit, '
       'max_unit, step_size, allocation_ratio FROM inventories')
# inventory rows (by the table's highest id) from which a first load starts a helper:
# below, its start (~30 ms) costs more than it saves
HELPER_AFTER = 200000
# seconds the caller waits for the helper's answer before reading the table itself
TIMEOUT = 300.0
started = [0]       # helpers started by this process (tests)


class Helper:
    """One helper process reading ``path``'s inventories for a snapshot named ``token``."""

    def __init__(self, db, path, token):
        self._db, self._token = db, token
        self._proc = subprocess.Popen(
            [sys.executable, '-E', '-s', '-S', os.path.abspath(__file__), path],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        started[0] += 1

    def result(self, log):
        """{provider id: {class id: (min, max, step, capacity)}}, equal ones one dict; or None.

        None when the helper failed or when a commit may have come between
        the caller's snapshot and the helper's (``log``: where to say why).
        """
        try:
            out, err = self._proc.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.close()
            log.warning('inventory helper gave no answer in %.0f s: read in process', TIMEOUT)
            return None
        if self._proc.returncode != 0:
            log.warning('inventory helper failed (%s): read in process',
                        err.decode(errors='replace').strip()[-300:] or self._proc.returncode)
            return None
        if self._db.change_token() != self._token:
            log.info('a commit during the inventory helper\'s read: read in process')
            return None
        ids_bytes, shape_bytes, shapes = pickle.loads(out)
        ids, which = array.array('q'), array.array('q')
        ids.frombytes(ids_bytes)
        which.frombytes(shape_bytes)
        shared = [dict(items) for items in shapes]
        return dict(zip(ids, map(shared.__getitem__, which)))

    def close(self):
        """End the helper if it still runs."""
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.communicate()


def start(ctx, token, biggest_id):
    """A Helper for a first load in ``ctx``'s snapshot (named ``token``), or None.

    None unless the database is a SQLite file, ``token`` names the snapshot
    and the inventories table reaches HELPER_AFTER rows (``biggest_id``:
    its highest id, or None when empty).
    """
    db = ctx.db
    if token is None or not db.is_sqlite or (biggest_id or 0) < HELPER_AFTER:
        return None
    # (this file also runs alone, on the standard library only)
    import sqlalchemy as sa
    path = sa.engine.make_url(db.url).database
    if not path or path == ':memory:' or not os.path.isfile(path):
        return None
    return Helper(db, path, token)


def read(path):
    """(provider ids, their shape numbers, the shapes) of ``path``'s inventories, pickled.

    A provider's rows are mostly one run of the table; one seen again later
    gets the shape of its earlier items and the new ones, in row order.
    """
    gc.disable()            # millions of small tuples, none of them in a cycle
    numbers: dict = {}
    shapes: list = []
    done: dict = {}         # provider id: shape number

    def finish(rp_id, items):
        earlier = done.get(rp_id)
        key = tuple(items) if earlier is None else shapes[earlier] + tuple(items)
        n = numbers.get(key)
        if n is None:
            n = numbers[key] = len(shapes)
            shapes.append(key)
        done[rp_id] = n

    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute('PRAGMA query_only = 1')
        cursor = conn.execute(SQL)
        current = None
        items: list[tuple[int, tuple[int, int, int, int]]] = []
        while True:
            rows = cursor.fetchmany(10000)
            if not rows:
                break
            for (rp_id, rc_id, total, reserved, min_unit, max_unit, step,
                 ratio) in rows:
                if rp_id != current:
                    if items:
                        finish(current, items)
                    current, items = rp_id, []
                items.append((rc_id, (min_unit, max_unit, step,
                                      int((total - reserved) * ratio))))
        if items:
            finish(current, items)
    finally:
        conn.close()
    ids, which = array.array('q', done.keys()), array.array('q', done.values())
    return pickle.dumps((ids.tobytes(), which.tobytes(), shapes),
                        protocol=pickle.HIGHEST_PROTOCOL)


if __name__ == '__main__':
    sys.stdout.buffer.write(read(sys.argv[1]))

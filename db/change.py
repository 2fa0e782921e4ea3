"""An exact, cheap "has anything been committed?" detector for a SQLite file.

``PRAGMA data_version`` on one connection changes whenever any *other*
connection (of this process or another one) has committed to the file since
that connection last asked; it never changes otherwise.  The watcher keeps a
connection of its own that never writes, so every commit anywhere shows.
Read-side caches key their entries on the token (see objects/candidates/answer_cache.py).
"""

import os
import sqlite3
import threading


class SqliteWatcher:
    """Tokens that differ across any commit to the SQLite file at ``path``."""

    def __init__(self, path):
        self._path = path
        self._lock = threading.Lock()
        self._conn = None
        self._pid = None

    def token(self):
        """(pid, data_version): equal tokens mean no commit happened in between."""
        with self._lock:
            pid = os.getpid()
            if self._conn is None or self._pid != pid:
                # a forked worker gets a connection (and a token space) of its own
                self._conn = sqlite3.connect(self._path, isolation_level=None,
                                             check_same_thread=False)
                self._pid = pid
            return pid, self._conn.execute('PRAGMA data_version').fetchone()[0]

    def close(self):
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None

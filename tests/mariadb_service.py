"""A throwaway MariaDB server for tests (Debian ``mariadb-server``, no systemd).

Same contract as the servers in :mod:`tests.services`: a fresh data directory in
a temporary directory, a free loopback port, its own socket and PID file, and a
stop by the PID this module started.
"""

import os
import shutil
import signal
import subprocess
import tempfile

from tests import services

MARIADBD = os.environ.get('BERTH_MARIADBD', '/usr/sbin/mariadbd')
USER = 'berth'
PASSWORD = 'berth'


class MariaDB(services.Service):
    """``mariadb-install-db`` + ``mariadbd`` as user mysql, with database ``berth``.

    The server keeps the Debian defaults that matter for parity
    (utf8mb4, a case-insensitive collation, REPEATABLE READ) so the tests show
    that berth sets what it needs itself; durability is off for speed.
    """

    name = 'mariadb'
    binaries = (MARIADBD, 'mariadb-install-db', 'mariadb', 'mariadb-admin')
    ready_timeout = 60

    def __init__(self, workdir):
        super().__init__(workdir)
        # the mysql user must reach its data dir: pytest's tmp dirs are 0700 root
        self.dir = tempfile.mkdtemp(prefix='berth-mariadb-')
        self.log = os.path.join(self.dir, 'mariadb.log')
        self.socket = os.path.join(self.dir, 'mysqld.sock')
        self.port = services.free_port()

    def url_for(self, database):
        return ('mysql+pymysql://%s:%s@127.0.0.1:%d/%s?charset=utf8mb4'
                % (USER, PASSWORD, self.port, database))

    @property
    def url(self):
        return self.url_for('berth')

    def _client(self, program, *args):
        # root over the socket: unix_socket authentication as the OS user root
        return subprocess.run([program, '--no-defaults', '--user=root',
                               '--socket=' + self.socket] + list(args),
                              capture_output=True, text=True, check=False)

    def sql(self, statement):
        """Run ``statement`` as root; raise ServiceError when it fails."""
        done = self._client('mariadb', '-e', statement)
        if done.returncode != 0:
            raise services.ServiceError('mariadb: %s failed: %s'
                                        % (statement, done.stderr))
        return done.stdout

    def start(self):
        shutil.chown(self.dir, 'mysql', 'mysql')
        data = os.path.join(self.dir, 'data')
        # temporary tables in a directory of this server's own: two servers
        # bootstrapping at once in the shared /tmp once lost one's temporary
        # table to the other ("Could not remove temporary table", then
        # "Unknown table 'mysql.tmp_user_sys'")
        tmp = os.path.join(self.dir, 'tmp')
        os.makedirs(tmp, exist_ok=True)
        shutil.chown(tmp, 'mysql', 'mysql')
        for attempt in (1, 2):
            with open(self.log, 'ab') as log:
                done = subprocess.run(
                    ['mariadb-install-db', '--no-defaults', '--datadir=' + data,
                     '--tmpdir=' + tmp, '--user=mysql', '--skip-test-db',
                     '--auth-root-authentication-method=socket'],
                    stdout=log, stderr=subprocess.STDOUT, check=False)
            if done.returncode == 0:
                break
            shutil.rmtree(data, ignore_errors=True)     # the second try starts afresh
        if done.returncode != 0:
            raise services.ServiceError('mariadb-install-db failed (twice):\n%s'
                                        % services._tail(self.log))
        # mariadbd drops to --user itself, so the PID we keep is the server's own
        self.proc = self._spawn([
            MARIADBD, '--no-defaults', '--datadir=' + data, '--user=mysql',
            '--bind-address=127.0.0.1', '--port=%d' % self.port,
            '--socket=' + self.socket, '--pid-file=' + os.path.join(self.dir, 'mysqld.pid'),
            '--tmpdir=' + tmp,
            '--skip-name-resolve', '--skip-log-bin', '--max-connections=300',
            '--character-set-server=utf8mb4', '--collation-server=utf8mb4_general_ci',
            '--innodb-flush-log-at-trx-commit=0', '--innodb-doublewrite=0',
            '--innodb-buffer-pool-size=64M', '--innodb-log-file-size=32M',
            '--sync-binlog=0', '--innodb-lock-wait-timeout=20'])
        self._wait_ready(lambda: self._client('mariadb-admin', 'ping').returncode == 0)
        self.sql("CREATE USER '%s'@'127.0.0.1' IDENTIFIED BY '%s'; "
                 "GRANT ALL PRIVILEGES ON *.* TO '%s'@'127.0.0.1'; "
                 "CREATE DATABASE berth" % (USER, PASSWORD, USER))
        return self

    def stop(self, timeout=20):
        # SIGTERM is mariadbd's normal shutdown
        services._stop_pid(self.proc, signal.SIGTERM, timeout)
        self.proc = None
        shutil.rmtree(self.dir, ignore_errors=True)

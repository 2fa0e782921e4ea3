"""An operator's mistakes get one line on stderr and a non-zero exit, never a traceback.

Each command runs as a real process, as an operator types it: a missing or
malformed config file, a database server that is not there, a database
without berth's schema, a port another program holds.  The line must name
what is wrong and what to do (cli/config.make_conf_or_exit,
cli/start_errors.py).
"""

import pathlib
import socket
import subprocess
import sys

import pytest

from tests import services

pytestmark = pytest.mark.cli

BIN = pathlib.Path(sys.executable).parent


def _run(tmp_path, *argv, timeout=120):
    proc = subprocess.run([str(BIN / argv[0]), *argv[1:]], capture_output=True,
                          text=True, timeout=timeout, cwd=tmp_path)
    return proc.returncode, proc.stdout, proc.stderr


def _one_line(stderr, prog):
    """The last stderr line, after checking no traceback came before it."""
    assert 'Traceback' not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.startswith(prog + ':')]
    assert len(lines) == 1, stderr
    return lines[0]


def _conf(tmp_path, body):
    path = tmp_path / 'berth.conf'
    path.write_text(body)
    return str(path)


@pytest.mark.parametrize('argv', [
    ('berth', 'serve', '--config-file'),
    ('berth-api', '--config-file'),
    ('berth-conductor', '--config-file'),
    ('berth-manage', '--config-file'),
])
def test_a_missing_config_file_is_named(tmp_path, argv):
    rc, _, err = _run(tmp_path, *argv, str(tmp_path / 'nope.conf'),
                      *(('db', 'version') if argv[0] == 'berth-manage' else ()))
    assert rc == 2
    line = _one_line(err, argv[0])
    assert 'Failed to find some config files: %s' % (tmp_path / 'nope.conf') in line


@pytest.mark.parametrize('prog', ['berth', 'berth-api', 'berth-conductor'])
def test_a_malformed_config_file_names_its_file_and_line(tmp_path, prog):
    conf = _conf(tmp_path, '[DEFAULT]\nhost = a\n[api\nworkers = 2\n')
    argv = ('serve', '--config-file', conf) if prog == 'berth' else ('--config-file', conf)
    rc, _, err = _run(tmp_path, prog, *argv)
    assert rc == 2
    line = _one_line(err, prog)
    assert 'Failed to parse %s: at %s:3' % (conf, conf) in line


@pytest.mark.parametrize('prog', ['berth', 'berth-api', 'berth-conductor', 'berth-manage'])
def test_a_misspelled_option_is_named_with_its_line_and_the_right_name(tmp_path, prog):
    conf = _conf(tmp_path, '[DEFAULT]\nhost = a\n# placment_port = 1\n[api]\n'
                           'workers = 1\nplacment_port = 9000\n[elsewhere]\nx = 1\n')
    argv = {'berth': ('serve', '--config-file', conf),
            'berth-manage': ('--config-file', conf, 'db', 'version')}.get(
        prog, ('--config-file', conf))
    rc, _, err = _run(tmp_path, prog, *argv)
    assert rc == 2
    assert 'Traceback' not in err, err
    errors = [e for e in err.splitlines() if e.startswith(prog + ':')
              and not e.startswith(prog + ': warning:')]
    assert errors == [("%s: %s:6: unknown option 'placment_port' in [api] (did you mean "
                    "'placement_port'?)" % (prog, conf))]
    # a section no part of berth reads (another program's, in a shared file) is a warning
    assert '%s: warning: %s:7: [elsewhere] is not read by berth' % (prog, conf) in err


def test_db_sync_against_a_database_that_is_not_there(tmp_path):
    port = services.free_port()         # nobody listens there
    conf = _conf(tmp_path, '[database]\nconnection = postgresql+psycopg2://berth:pw@'
                           '127.0.0.1:%d/berth\nmax_retries = 1\nretry_interval = 0\n'
                 % port)
    rc, _, err = _run(tmp_path, 'berth-manage', '--config-file', conf, 'db', 'sync')
    assert rc == 1
    line = _one_line(err, 'berth-manage')
    assert line.startswith('berth-manage: the database cannot be reached (')
    assert '[database] connection' in line
    assert 'pw@' not in err                          # no password in what it prints


def _sqlite_conf(tmp_path, **api):
    state = tmp_path / 'state'
    state.mkdir(exist_ok=True)
    return _conf(tmp_path, '[DEFAULT]\nstate_path = %s\ntransport_url = fake://\n'
                           '[api]\nauth_strategy = noauth2\nplacement_port = %d\n'
                           'baremetal_port = %d\n[database]\nconnection = sqlite:///%s\n'
                 % (state, api.get('placement_port') or services.free_port(),
                    services.free_port(), state / 'empty.sqlite'))


def test_berth_api_on_an_empty_database_says_run_db_sync(tmp_path):
    rc, _, err = _run(tmp_path, 'berth-api', '--config-file', _sqlite_conf(tmp_path))
    assert rc == 1
    line = _one_line(err, 'berth-api')
    assert 'the database has no berth schema' in line
    assert 'berth-manage --config-file <the same file> db sync' in line


def test_a_port_in_use_names_the_option_that_changes_it(tmp_path):
    with socket.socket() as busy:
        busy.bind(('127.0.0.1', 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        rc, _, err = _run(tmp_path, 'berth', 'serve', '--data-dir', str(tmp_path / 'd'),
                          '--placement-port', str(port),
                          '--baremetal-port', str(services.free_port()))
    assert rc == 1
    line = _one_line(err, 'berth')
    assert '127.0.0.1:%d is already in use' % port in line
    assert '[api] placement_port' in line and '--placement-port' in line

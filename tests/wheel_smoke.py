"""The wheel, as an operator gets it: build, install into an empty venv, serve, stop.

    python tests/wheel_smoke.py [--keep]

Builds the wheel from this checkout (pbr reads the version from its git
history), creates a fresh virtualenv in a temporary directory, installs the
wheel there with ``-c constraints.txt`` (its declared requirements only, none
of the test requirements), checks ``berth --version`` and that the code runs
from the venv and not from the checkout, then starts ``berth serve`` on two
free loopback ports, waits for ``GET /`` on the placement port to answer 200
with the version document, sends SIGTERM and expects exit status 0 within the
documented stop bound.  Exits 0 on success, 1 with the server's output on any
failure; never leaves a process or (without ``--keep``) a file behind.

Run by ``make test-wheel`` (part of ``make test``).  Standard library only.
"""

import argparse
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[1]
START_TIMEOUT = 120    # seconds for berth serve to answer (migrations, conductor start)
# berth serve's stop bound: [conductor] graceful_shutdown_timeout (60) per
# embedded conductor (1) plus cli.stacks.STOP_MARGIN (30)
STOP_BOUND = 90


class SmokeFailure(Exception):
    pass


def _run(cmd, **kwargs):
    print('+ %s' % ' '.join(str(c) for c in cmd), flush=True)
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kwargs)
    if proc.returncode != 0:
        raise SmokeFailure('%s exited %d:\n%s%s' % (cmd[0], proc.returncode,
                                                      proc.stdout, proc.stderr))
    return proc.stdout


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def _clean_env():
    """The environment without anything pointing Python at the checkout or our venv."""
    env = {k: v for k, v in os.environ.items()
           if k not in ('PYTHONPATH', 'VIRTUAL_ENV', 'PYTHONHOME', 'PYTHONSTARTUP')}
    env['PYTHONDONTWRITEBYTECODE'] = '1'
    return env


def build_wheel(work):
    dist = work / 'dist'
    _run([sys.executable, '-m', 'pip', 'wheel', '-q', '--no-deps', '-w', dist, ROOT])
    wheels = sorted(dist.glob('berth-*.whl'))
    if len(wheels) != 1:
        raise SmokeFailure('expected one berth wheel in %s, found %s' % (dist, wheels))
    return wheels[0]


def install(work, wheel, env):
    venv = work / 'venv'
    base = getattr(sys, '_base_executable', None) or sys.executable
    _run([base, '-m', 'venv', venv], env=env)
    out = _run([venv / 'bin' / 'python', '-m', 'pip', 'install',
                '-c', ROOT / 'constraints.txt', wheel], env=env, cwd=work)
    print(out.strip().splitlines()[-1], flush=True)   # "Successfully installed ..."
    return venv


def check_installed(venv, wheel, work, env):
    expected = wheel.name.split('-')[1]
    version = _run([venv / 'bin' / 'berth', '--version'], env=env, cwd=work).strip()
    print('berth --version: %s' % version, flush=True)
    if version != expected:
        raise SmokeFailure('berth --version says %r, the wheel is %r' % (version, expected))
    where = _run([venv / 'bin' / 'python', '-c', 'import cli; print(cli.__file__)'],
                 env=env, cwd=work).strip()
    if not pathlib.Path(where).is_relative_to(venv):
        raise SmokeFailure('berth runs from %s, not from the venv' % where)
    sample = venv / 'share' / 'berth' / 'etc' / 'berth.conf.sample'
    if not sample.is_file():
        raise SmokeFailure('the wheel did not install %s' % sample)


def _get_root(port):
    try:
        with urllib.request.urlopen('http://127.0.0.1:%d/' % port, timeout=5) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()
    except OSError:
        return None, b''


def serve_and_stop(venv, work, env):
    placement, baremetal = _free_port(), _free_port()
    log_path = work / 'serve.log'
    cmd = [str(venv / 'bin' / 'berth'), 'serve', '--data-dir', str(work / 'data'),
           '--placement-port', str(placement), '--baremetal-port', str(baremetal)]
    print('+ %s' % ' '.join(cmd), flush=True)
    with open(log_path, 'wb') as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=work,
                                env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if proc.poll() is not None:
                raise SmokeFailure('berth serve exited %d before answering' % proc.returncode)
            status, body = _get_root(placement)
            if status == 200:
                break
            if time.monotonic() > deadline:
                raise SmokeFailure('GET / on port %d: no 200 within %d s (last: %s)'
                                   % (placement, START_TIMEOUT, status))
            time.sleep(0.5)
        versions = json.loads(body).get('versions')
        if not versions or versions[0].get('id') != 'v1.0':
            raise SmokeFailure('GET / is not the microversion document: %r' % body[:200])
        print('GET http://127.0.0.1:%d/ -> 200, max_version %s'
              % (placement, versions[0].get('max_version')), flush=True)
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(STOP_BOUND)
        except subprocess.TimeoutExpired:
            raise SmokeFailure('berth serve still running %d s after SIGTERM' % STOP_BOUND)
        print('SIGTERM -> exit %d after %.1f s' % (code, time.monotonic() - started),
              flush=True)
        if code != 0:
            raise SmokeFailure('berth serve exited %d on SIGTERM' % code)
    except SmokeFailure as exc:
        raise SmokeFailure('%s\n--- berth serve output ---\n%s'
                           % (exc, log_path.read_text(errors='replace'))) from None
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--keep', action='store_true',
                        help='keep the temporary directory (wheel, venv, log)')
    args = parser.parse_args(argv)
    work = pathlib.Path(tempfile.mkdtemp(prefix='berth-wheel-'))
    env = _clean_env()
    started = time.monotonic()
    try:
        wheel = build_wheel(work)
        print('built %s' % wheel.name, flush=True)
        venv = install(work, wheel, env)
        check_installed(venv, wheel, work, env)
        serve_and_stop(venv, work, env)
    except SmokeFailure as exc:
        print('wheel smoke test FAILED: %s' % exc, file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print('kept %s' % work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    print('wheel smoke test passed in %.0f s' % (time.monotonic() - started))
    return 0


if __name__ == '__main__':
    sys.exit(main())

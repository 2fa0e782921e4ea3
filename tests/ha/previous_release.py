"""The previous berth release, built into a venv of its own (cached per machine).

The rolling-upgrade tests run processes of the release tagged ``TAG`` beside
processes of this tree.  The old release gets:

* its source, ``git archive <tag>`` of this repository (so a shallow clone
  without the tag cannot build it: the tests skip and name the tag);
* a venv without pip whose one ``.pth`` line puts the *current* venv's
  site-packages on its path: the third-party packages are shared, not
  reinstalled (a plain path line, so the current venv's own ``.pth`` files,
  among them the editable finder of this tree's berth, are not run there);
* berth itself installed from that source with ``pip --no-deps`` (the
  current venv's pip, ``--python`` the new venv), ``PBR_VERSION`` set since an
  archive has no git metadata for pbr.

Building takes about 3 s (measured cold on the 2-core CI box: the archive,
``venv --without-pip`` and pip's isolated pbr build from the local package
index; installing the third-party packages again is what `make install` does
in about 3 minutes);
the result lives under ``$XDG_CACHE_HOME/berth-previous-release``
(``~/.cache`` by default, ``BERTH_PREVIOUS_RELEASE_CACHE`` overrides it),
keyed by the tag's commit and the current venv's site-packages, and is
built under a lock so parallel runs build it once.
"""

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TAG = '0.1.0'
# the commit each release tag names, for clones that did not fetch tags (a CI
# checkout of one branch often has the history but not the tags)
RELEASES = {'0.1.0': 'c15862763a023a0b45cf3b78859f8e1e75b5bb6b'}
PACKAGES = ('api', 'cli', 'common', 'conductor', 'db', 'objects')


class Unavailable(Exception):
    """The previous release cannot be built here (the message says why)."""


class Release:
    """One built release: its venv, source tree, version and RPC API version."""

    def __init__(self, tag, commit, path):
        self.tag = tag
        self.commit = commit
        self.path = path
        self.venv = os.path.join(path, 'venv')
        self.source = os.path.join(path, 'src')

    def bin(self, name):
        return os.path.join(self.venv, 'bin', name)

    @property
    def rpc_api_version(self):
        """``RPC_API_VERSION`` of the old release (read from its source)."""
        with open(os.path.join(self.source, 'conductor', 'rpcapi', 'version.py')) as f:
            return re.search(r"^RPC_API_VERSION = '([0-9.]+)'", f.read(), re.M).group(1)

    def version(self):
        """The version the old venv's berth reports (its installed metadata)."""
        return subprocess.run(
            [self.bin('python'), '-c', 'from common import version; '
             'print(version.version_string())'],
            capture_output=True, text=True, check=True, cwd=self.path,
            env=clean_env()).stdout.strip()


def clean_env(**extra):
    """The environment for an old-release process: nothing of this tree on its path."""
    env = {k: v for k, v in os.environ.items()
           if k not in ('PYTHONPATH', 'VIRTUAL_ENV', 'PYTHONHOME')}
    env.update(extra)
    return env


def _git(*args):
    return subprocess.run(['git', '-C', ROOT] + list(args), capture_output=True,
                          text=True)


def tag_commit(tag=TAG):
    """The commit ``tag`` names; raises Unavailable when the tag or history is missing.

    Without the tag, the commit recorded in RELEASES is used when the
    history has it.
    """
    done = _git('rev-parse', '--verify', '--quiet', '%s^{commit}' % tag)
    if (done.returncode != 0 or not done.stdout.strip()) and tag in RELEASES:
        done = _git('rev-parse', '--verify', '--quiet', '%s^{commit}' % RELEASES[tag])
    if done.returncode != 0 or not done.stdout.strip():
        shallow = _git('rev-parse', '--is-shallow-repository').stdout.strip() == 'true'
        raise Unavailable(
            'the git tag %r (the previous release) is not in %s%s: fetch it with '
            '"git fetch --tags%s"' % (tag, ROOT, ' (a shallow clone)' if shallow else '',
                                      ' --unshallow' if shallow else ''))
    return done.stdout.strip()


def cache_root():
    explicit = os.environ.get('BERTH_PREVIOUS_RELEASE_CACHE')
    if explicit:
        return explicit
    base = os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache')
    return os.path.join(base, 'berth-previous-release')


def _site_packages():
    return sysconfig.get_paths()['purelib']


def build(tag=TAG, out=print):
    """The built Release of ``tag`` (from the cache, or built now); raises Unavailable."""
    commit = tag_commit(tag)
    site = _site_packages()
    key = '%s-%s' % (commit[:12], hashlib.sha256(
        ('%s\n%s' % (site, sys.version)).encode()).hexdigest()[:8])
    root = cache_root()
    os.makedirs(root, exist_ok=True)
    path = os.path.join(root, key)
    with open(os.path.join(root, '.lock'), 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.exists(os.path.join(path, 'ready')):
            out('previous release: building %s (%s) into %s' % (tag, commit[:12], path))
            _build(tag, commit, site, path)
    return Release(tag, commit, path)


def _build(tag, commit, site, path):
    """Build into ``path`` itself (a venv embeds its path); ``ready`` marks it done."""
    shutil.rmtree(path, ignore_errors=True)
    try:
        source = os.path.join(path, 'src')
        os.makedirs(source)
        archive = os.path.join(path, 'src.tar')
        done = _git('archive', '--format=tar', '-o', archive, commit)
        if done.returncode != 0:
            raise Unavailable('git archive %s failed: %s' % (tag, done.stderr.strip()))
        with tarfile.open(archive) as tar:
            tar.extractall(source, filter='data')
        os.unlink(archive)
        venv = os.path.join(path, 'venv')
        base = getattr(sys, '_base_executable', sys.executable)
        subprocess.run([base, '-m', 'venv', '--without-pip', venv], check=True)
        python = os.path.join(venv, 'bin', 'python')
        old_site = subprocess.run(
            [python, '-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])'],
            capture_output=True, text=True, check=True).stdout.strip()
        with open(os.path.join(old_site, 'berth-shared-site.pth'), 'w') as f:
            f.write(site + '\n')
        done = subprocess.run(
            [sys.executable, '-m', 'pip', '--python', python, 'install', '-q',
             '--no-deps', source],
            capture_output=True, text=True, cwd=path,
            env=clean_env(PBR_VERSION=tag))
        if done.returncode != 0:
            raise RuntimeError('installing berth %s failed:\n%s%s'
                               % (tag, done.stdout, done.stderr))
        open(os.path.join(path, 'ready'), 'w').close()
    except BaseException:
        shutil.rmtree(path, ignore_errors=True)
        raise

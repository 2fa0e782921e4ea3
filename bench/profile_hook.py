"""py-spy over a matrix cell's berth processes while its claims run (opt-in, bench only).

``BERTH_BENCH_PYSPY=/path/to/py-spy`` makes ``bench.claims --matrix`` record
the API processes (the berth-api master and its workers) and every
conductor from the end of the cell's first counter snapshot to the start
of its second one, i.e. while the claims run, as collapsed stacks
(``--format raw``, only samples holding the GIL: Python's own CPU) into
``BERTH_BENCH_PROFILE_DIR`` (default: a new temporary directory, printed).
py-spy samples from a process of its own: the cell's numbers are then not
comparable with an unprofiled run's; profile in a run of its own.
Summarise with ``python -m bench.profile_hook DIR``.
"""

import collections
import os
import pathlib
import signal
import subprocess
import sys
import tempfile

RATE = 500


class Recorder:
    """py-spy record per process kind, started and stopped around the claims."""

    def __init__(self, pyspy, out_dir, label):
        self.pyspy = pyspy
        self.out_dir = pathlib.Path(out_dir)
        self.label = label
        self.procs = []

    @classmethod
    def from_env(cls, label):
        """A Recorder when ``BERTH_BENCH_PYSPY`` is set, else None."""
        pyspy = os.environ.get('BERTH_BENCH_PYSPY')
        if not pyspy:
            return None
        out = os.environ.get('BERTH_BENCH_PROFILE_DIR') or tempfile.mkdtemp(
            prefix='berth-bench-pyspy-')
        os.makedirs(out, exist_ok=True)
        print('py-spy profiles of %s in %s' % (label, out), file=sys.stderr)
        return cls(pyspy, out, label)

    def start(self, pids):
        """Record ``{kind: [pid]}`` (each with its subprocesses)."""
        for kind, kind_pids in pids.items():
            for pid in kind_pids:
                path = self.out_dir / ('%s-%s-%d.txt' % (self.label, kind, pid))
                self.procs.append(subprocess.Popen(
                    [self.pyspy, 'record', '--pid', str(pid), '--subprocesses',
                     '--nonblocking', '--gil', '--format', 'raw', '--nolineno', '--rate',
                     str(RATE), '--output', str(path)],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

    def stop(self):
        """SIGINT every recorder (py-spy writes its file then) and wait for it."""
        from bench import matrix
        matrix.stop_processes(self.procs, signal.SIGINT, wait=60)
        self.procs = []


def summarise(paths, top=25):
    """Per file: samples, and the functions with the most samples (inclusive, self)."""
    lines = []
    for path in paths:
        inclusive: collections.Counter[str] = collections.Counter()
        own: collections.Counter[str] = collections.Counter()
        total = 0
        for line in pathlib.Path(path).read_text().splitlines():
            stack, _, count = line.rpartition(' ')
            if not stack:
                continue
            n = int(count)
            total += n
            frames = stack.split(';')
            for frame in set(frames):
                inclusive[frame] += n
            own[frames[-1]] += n
        lines.append('== %s: %d samples' % (path, total))
        lines.append('-- inclusive')
        lines += ['%6.1f%%  %s' % (100.0 * n / total, f)
                  for f, n in inclusive.most_common(top)]
        lines.append('-- self')
        lines += ['%6.1f%%  %s' % (100.0 * n / total, f) for f, n in own.most_common(top)]
    return '\n'.join(lines)


if __name__ == '__main__':
    folder = pathlib.Path(sys.argv[1])
    print(summarise(sorted(folder.glob('*-api-*.txt')) +
                    sorted(folder.glob('*-conductor-*.txt'))))

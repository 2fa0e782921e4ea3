"""Every bench module imports: a move inside berth must not leave a bench broken."""

import importlib
import pathlib

import pytest

BENCH = pathlib.Path(__file__).resolve().parents[2] / 'bench'


@pytest.mark.parametrize('name', sorted(p.stem for p in BENCH.glob('*.py')
                                        if p.stem != '__init__'))
def test_bench_module_imports(name):
    importlib.import_module('bench.%s' % name)

"""The compatibility tier: the community's own suites run unmodified against a real berth.

Each suite comes from the package index into a venv of its own, pinned by a
``*-pins.txt`` file beside its test module (:mod:`tests.compat.suite_venv`),
and runs as a subprocess against a berth started for it.  A suite's module
prints its counts and fails on any failure that its reviewed expected-failures
list does not name.  Everything here is marked ``compat`` (and ``integration``,
so the parallel pass leaves it alone); ``make test-compat`` runs it.
"""

"""Write the api-ref's request and answer samples by driving a real embedded berth.

``python -m cli.api_ref.samples api-ref/source/samples`` (``make sample-config``)
starts berth in-process on a fresh SQLite database in a temporary directory
(noauth2, one conductor, free loopback ports), runs the scenario of
cli/api_ref/scenario.py and writes one file per request and answer body.
tests/functional/test_api_ref_samples.py runs it too and fails while the committed
samples differ.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from typing import Any
import urllib.error
import urllib.request

from api.baremetal import version as baremetal_version
from api.placement import microversion
from cli import deployment
from cli.api_ref import scenario
from common.conf import builder

# a liveness bound of a node allocation's conductor work, not a timing
ALLOCATION_DEADLINE = 60.0


class SampleError(RuntimeError):
    """A scenario step did not answer as the scenario expects."""


def _conf(state_path: str) -> Any:
    return builder.build(config_files=[], overrides={
        'state_path': state_path, 'host': 'berth-docs',
        'api.auth_strategy': 'noauth2', 'api.placement_port': 0,
        'api.baremetal_port': 0, 'api.threads': 2,
        'database.sqlite_synchronous': False, 'conductor.embedded_conductors': 1})


class _Runner:
    def __init__(self, stack: deployment.Embedded) -> None:
        self.urls = {'placement': stack.placement_url, 'baremetal': stack.baremetal_url}
        self.stable = {stack.placement_url: scenario.PLACEMENT_URL,
                       stack.baremetal_url: scenario.BAREMETAL_URL}
        self.placeholders: dict[str, str] = {}

    def send(self, api: str, method: str, path: str, version: str,
             body: Any = None) -> tuple[int, Any]:
        """(status, parsed answer or None) of one request."""
        headers = {'Content-Type': 'application/json', 'Accept': 'application/json'}
        if api == 'placement':
            headers.update({microversion.HEADER: 'placement %s' % version,
                            'X-Auth-Token': 'admin', 'X-Roles': 'admin,service'})
        else:
            headers[baremetal_version.HEADER] = version
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.urls[api] + path, data=data,
                                         headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                status, text = answer.status, answer.read()
        except urllib.error.HTTPError as exc:
            raise SampleError('%s %s answered %d: %s' % (
                method, path, exc.code, exc.read().decode(errors='replace')))
        return status, (json.loads(text) if text else None)

    def resolve(self, value: Any) -> Any:
        """``value`` with the scenario's generation markers read from berth."""
        if isinstance(value, scenario.Generation):
            return self.send('placement', 'GET', '/resource_providers/' + value.provider,
                             scenario.LATEST)[1]['generation']
        if isinstance(value, scenario.ConsumerGeneration):
            return self.send('placement', 'GET', '/allocations/' + value.consumer,
                             scenario.LATEST)[1]['consumer_generation']
        if isinstance(value, scenario.NodeEvent):
            history = self.send('baremetal', 'GET', '/v1/nodes/%s/history' % value.node,
                                scenario.BAREMETAL)[1]['history']
            made = history[value.index]['uuid']
            if self.placeholders.setdefault(made, str(value)) != str(value):
                raise SampleError('event %s was shown before the step naming it' % made)
            return made
        if isinstance(value, dict):
            return {k: self.resolve(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.resolve(v) for v in value]
        return value

    def wait_allocation(self, ident: str) -> None:
        end = time.monotonic() + ALLOCATION_DEADLINE
        while time.monotonic() < end:
            state = self.send('baremetal', 'GET', '/v1/allocations/' + ident,
                              scenario.BAREMETAL)[1]['state']
            if state != 'allocating':
                return
            time.sleep(0.02)
        raise SampleError('allocation %s still allocating after %ss'
                          % (ident, ALLOCATION_DEADLINE))

    def stable_text(self, value: Any) -> Any:
        return json.loads(scenario.normalize(json.dumps(value), self.stable,
                                             self.placeholders))

    def run(self, step: scenario.Step) -> dict[str, str]:
        """{file name: text} of one step's samples."""
        body = self.resolve(step.body)
        path = step.route.format(**self.resolve(step.args)) + (
            '?' + step.query if step.query else '')
        status, answer = self.send(step.api, step.method, path, step.version, body)
        if step.wait:
            self.wait_allocation(answer['uuid'])
        if (answer is not None) != step.answer:
            raise SampleError('%s %s answered %d %s a body' % (
                step.method, path, status, 'with' if answer is not None else 'without'))
        files: dict[str, str] = {}
        if step.name and body is not None:
            files[step.name + '-req.json'] = scenario.dump(self.stable_text(body))
        if step.name and answer is not None:
            answer = scenario.pin(answer, step.fixed)
            files[step.name + '-resp.json'] = scenario.dump(self.stable_text(answer))
        return files


def render() -> dict[str, str]:
    """{file name: text} of every sample, from a fresh berth."""
    with tempfile.TemporaryDirectory(prefix='berth-api-ref-') as state:
        stack = deployment.Embedded(_conf(state))
        try:
            stack.start()
            runner = _Runner(stack)
            files: dict[str, str] = {}
            for step in scenario.STEPS:
                files.update(runner.run(step))
            return files
        finally:
            stack.stop()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    target = argv[0] if argv else os.path.join('api-ref', 'source', 'samples')
    os.makedirs(target, exist_ok=True)
    files = render()
    for name in os.listdir(target):
        if name.endswith('.json') and name not in files:
            os.remove(os.path.join(target, name))
    for name, text in files.items():
        with open(os.path.join(target, name), 'w', encoding='utf-8') as handle:
            handle.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())

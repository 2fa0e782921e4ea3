"""Every shell block of doc/source says whether it can be pasted as written.

A reader pastes a ``sh``/``shell``/``bash``/``console`` block as it stands.
So each such fence in doc/source/ carries, on the line just above it (blank
lines between are allowed), one of two HTML comments:

* ``<!-- runnable: tests/<path>.py -->``: the block runs as written, and the
  named test pastes it (that file exists and names the page, so the claim is
  checked where it is made);
* ``<!-- not-runnable: <reason> -->``: the block is an illustration, with the
  reason (a placeholder to fill in, a production host's paths, a server the
  reader runs elsewhere).

A block with neither fails here, and so does a ``runnable:`` that names a test
which does not exist or does not read the page.  The blocks are not run here
(CI's time is spent); this test only keeps the claim honest.
"""

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / 'doc' / 'source'
SHELLS = ('sh', 'shell', 'bash', 'console', 'shell-session', 'zsh')
FENCE = re.compile(r'^([ \t]*)(`{3,}|~{3,})[ \t]*\{?(?:code-block\}[ \t]*)?([\w-]*)',
                   re.M)
MARK = re.compile(r'^[ \t]*<!--[ \t]*(runnable|not-runnable):[ \t]*(.*?)[ \t]*-->[ \t]*$')


def shell_blocks(text):
    """``[(line number, language, marker kind or None, marker text)]`` of a page's
    shell fences (fences inside other fences are not opened)."""
    lines = text.splitlines()
    found, closing = [], None
    for n, line in enumerate(lines):
        match = FENCE.match(line)
        if closing is not None:
            if match and match.group(2).startswith(closing) and not match.group(3):
                closing = None
            continue
        if not match:
            continue
        closing = match.group(2)
        language = match.group(3)
        if language not in SHELLS:
            continue
        above = n - 1
        while above >= 0 and not lines[above].strip():
            above -= 1
        mark = MARK.match(lines[above]) if above >= 0 else None
        found.append((n + 1, language, mark.group(1) if mark else None,
                      mark.group(2) if mark else ''))
    return found


def problems(page, text, exists=lambda path: (ROOT / path).is_file(),
             read=lambda path: (ROOT / path).read_text()):
    """What is wrong with a page's shell blocks, one line each."""
    wrong = []
    for line, language, kind, said in shell_blocks(text):
        where = '%s:%d (```%s)' % (page, line, language)
        if kind is None:
            wrong.append('%s: neither <!-- runnable: tests/... --> nor '
                         '<!-- not-runnable: reason --> above it' % where)
        elif kind == 'not-runnable' and not said:
            wrong.append('%s: not-runnable without a reason' % where)
        elif kind == 'runnable':
            if not said.startswith('tests/') or not exists(said):
                wrong.append('%s: runnable names %r, which is no test file' % (where, said))
            elif page not in read(said):
                wrong.append('%s: runnable names %s, which does not read %s'
                             % (where, said, page))
    return wrong


PAGES = sorted(DOCS.rglob('*.md'))


def test_the_docs_have_shell_blocks():
    assert sum(len(shell_blocks(p.read_text())) for p in PAGES) >= 10


@pytest.mark.parametrize('page', PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_shell_block_is_marked(page):
    wrong = problems(str(page.relative_to(ROOT)), page.read_text())
    assert not wrong, '\n'.join(wrong)


def test_an_unmarked_block_is_caught():
    text = 'Start it:\n\n```sh\nberth serve\n```\n'
    assert problems('doc/source/x.md', text) == [
        'doc/source/x.md:3 (```sh): neither <!-- runnable: tests/... --> nor '
        '<!-- not-runnable: reason --> above it']


def test_each_shell_language_and_an_indented_block_are_seen():
    text = ''.join('- item\n\n  <!-- not-runnable: x -->\n  ```%s\n  true\n  ```\n' % lang
                   for lang in SHELLS)
    text += '```console\n$ true\n```\n```python\nprint(1)\n```\n'
    blocks = shell_blocks(text)
    assert [b[1] for b in blocks] == [*SHELLS, 'console']
    assert [b[2] for b in blocks] == ['not-runnable'] * len(SHELLS) + [None]


def test_a_fence_inside_a_fence_is_not_a_block():
    text = '````md\n```sh\nberth serve\n```\n````\n'
    assert shell_blocks(text) == []


def test_a_marker_needs_a_reason_and_a_real_test():
    text = ('<!-- not-runnable: -->\n```sh\na\n```\n'
            '<!-- runnable: tests/nowhere.py -->\n```sh\nb\n```\n'
            '<!-- runnable: tests/there.py -->\n```sh\nc\n```\n'
            '<!-- runnable: tests/reads.py -->\n```sh\nd\n```\n')
    files = {'tests/there.py': 'nothing', 'tests/reads.py': 'doc/source/x.md'}
    wrong = problems('doc/source/x.md', text, exists=files.__contains__,
                     read=files.__getitem__)
    assert wrong == [
        'doc/source/x.md:2 (```sh): not-runnable without a reason',
        "doc/source/x.md:6 (```sh): runnable names 'tests/nowhere.py', which is no test file",
        'doc/source/x.md:10 (```sh): runnable names tests/there.py, which does not read '
        'doc/source/x.md',
    ]

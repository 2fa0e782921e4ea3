"""The plain-text progress bar of the migration commands."""

import io

from cli import manage_migrations


class Tty(io.StringIO):
    def isatty(self):
        return True


def test_pipe_gets_one_line_per_tenth():
    out = io.StringIO()
    bar = manage_migrations.Progress('m', 100, stream=out)
    for done in range(0, 101, 5):
        bar.update(done)
    bar.finish()
    lines = out.getvalue().splitlines()
    assert len(lines) == 11
    assert lines[-1] == 'm [%s] 100/100' % ('#' * 30)
    assert lines[5] == 'm [%-30s] 50/100' % ('#' * 15)


def test_terminal_redraws_in_place():
    out = Tty()
    bar = manage_migrations.Progress('m', 4, stream=out)
    for done in (1, 2, 3, 4):
        bar.update(done)
    bar.finish()
    text = out.getvalue()
    assert text.count('\r') == 4 and text.endswith('4/4\n')


def test_nothing_to_do_is_complete():
    out = io.StringIO()
    manage_migrations.Progress('m', 0, stream=out).update(0)
    assert out.getvalue() == 'm [%s] 0/0\n' % ('#' * 30)

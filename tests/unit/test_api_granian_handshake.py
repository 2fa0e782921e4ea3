"""berth-api's granian parent: where its index handshake listens (issue 53)."""

import os
import socket
import stat

import pytest

pytest.importorskip('granian')

from cli import api_granian  # noqa: E402


def test_the_handshake_listens_in_a_directory_only_its_user_may_enter():
    listener, path = api_granian.handshake_listener()
    try:
        folder = os.path.dirname(path)
        info = os.stat(folder)
        assert stat.S_IMODE(info.st_mode) == 0o700
        assert info.st_uid == os.getuid()
        assert not path.startswith('\0')          # a file, not an abstract name
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.connect(path)
            conn, _ = listener.accept()
            conn.close()
        other, second = api_granian.handshake_listener()   # a second berth-api
        other.close()
        assert os.path.dirname(second) != folder
        os.unlink(second)
        os.rmdir(os.path.dirname(second))
    finally:
        listener.close()
        os.unlink(path)
        os.rmdir(os.path.dirname(path))

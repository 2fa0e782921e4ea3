"""The writer of one HTTP connection (api.server): one send per write, headers with the body.

cheroot writes a response through ``_pyio.BufferedWriter``, the pure-Python
io module, which copies every write into a bytearray and that again into a
new bytes object before sending it; and it sends the status line and
headers in a send of their own before the body's first bytes.  A small
answer therefore left in two segments, with two system calls on the server
and, often, two reads on the client.

:class:`HeldWriter` offers cheroot what it uses of that writer (``write``,
``flush``, ``close``, ``bytes_written``) with one ``sendall`` per write and
no copy, and lets the request hold the headers (:meth:`HeldWriter.hold_next`)
until the body's first write, which carries them.  The request releases
whatever is still held when its response ends (a response without body).
"""


class HeldWriter:
    """Writes to ``sock``; the write after :meth:`hold_next` waits for the next one."""

    __slots__ = ('_sock', '_held', '_hold', 'bytes_written', 'closed')

    def __init__(self, sock):
        self._sock = sock
        self._held = None
        self._hold = False
        self.bytes_written = 0
        self.closed = False

    def hold_next(self):
        """Keep the next write (the status line and headers) for the one after it."""
        self._hold = True

    def write(self, data):
        if self.closed:
            raise ValueError('write to closed file')
        if self._hold:
            self._hold = False
            self._held = bytes(data) if self._held is None else self._held + data
            return len(data)
        size = len(data)
        if self._held is not None:
            data, self._held = self._held + data, None
        self._send(data)
        return size

    def release(self):
        """Send what is held (the headers of a response that had no body to carry them)."""
        self._hold = False
        if self._held is not None:
            data, self._held = self._held, None
            self._send(data)

    def _send(self, data):
        self._sock.sendall(data)
        self.bytes_written += len(data)

    def flush(self):
        self.release()

    def close(self):
        """Drop what is held; the socket is cheroot's to close."""
        self._held = None
        self._hold = False
        self.closed = True

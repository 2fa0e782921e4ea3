"""The buffered reader of one HTTP connection (api.server), with read deadlines.

cheroot reads a connection through ``_pyio.BufferedReader``, the pure-Python
io module: the request line, each header line and the body each go through
several layers of Python calls per read.  :class:`DeadlineReader` offers
cheroot what it uses of that reader (``read``, ``readline``, ``has_data``,
``close``, ``closed``, ``bytes_read``, line iteration) over one bytes buffer,
with the same blocking semantics: ``read(n)`` returns ``n`` bytes or fewer at
the end of the stream, ``readline(n)`` a line of at most ``n`` bytes.

Each socket read is bounded by what is left of the current deadline
(:meth:`DeadlineReader.start_deadline`; api.server starts one for the
request line and headers, another for the body): a read that would pass it
raises ``TimeoutError('timed out')`` and marks the reader ``timed_out``.

Before a server thread parses a request, :meth:`DeadlineReader.gather_headers`
takes what the socket already holds without blocking: a header block that
is not complete yet goes back to cheroot's selector (api.server), so a
client trickling its headers holds no thread while it waits.
"""

import ssl
import time

# the most a single socket read asks for (a larger body arrives in several)
MAX_CHUNK = 64 * 1024


class DeadlineReader:
    """Buffered reads of ``sock``; each bounded by ``read_timeout`` and the deadline.

    ``sock`` already has ``read_timeout`` as its timeout (cheroot sets the
    server's timeout on every accepted socket); it is lowered only for a read
    the deadline leaves less time than that.
    """

    def __init__(self, sock, bufsize, read_timeout):
        self._sock = sock
        self._bufsize = max(bufsize or 0, 1024)
        self._read_timeout = read_timeout
        self._buf = b''
        self.deadline = None
        self.timed_out = False
        self.closed = False
        self.bytes_read = 0
        # when the first byte of the request being gathered came (monotonic)
        self.header_since = None

    def gather_headers(self, limit):
        """Read what the socket holds, without blocking; whether to parse now.

        True when the buffer holds a whole header block (or more than
        ``limit`` bytes, or the stream ended: the parser answers those);
        False when the client has more to send.  A TLS socket is not
        gathered (its reads may need writes): True.
        """
        if isinstance(self._sock, ssl.SSLSocket):
            return True
        buf = self._buf
        # a socket with a timeout polls before it reads, whatever the flags:
        # non-blocking for these reads only
        timeout = self._sock.gettimeout()
        self._sock.settimeout(0.0)
        try:
            while not _complete(buf) and len(buf) <= limit:
                try:
                    chunk = self._sock.recv(MAX_CHUNK)
                except (BlockingIOError, InterruptedError):
                    break
                except OSError:
                    self._buf = buf
                    return True            # the parser meets the error itself
                if not chunk:
                    self._buf = buf
                    return True
                buf += chunk
        finally:
            self._sock.settimeout(timeout)
        self._buf = buf
        if buf and self.header_since is None:
            self.header_since = time.monotonic()
        return _complete(buf) or len(buf) > limit

    def start_deadline(self, seconds):
        """Bound the reads from now on to ``seconds`` in all (None: no bound)."""
        self.deadline = None if seconds is None else time.monotonic() + seconds

    def _recv(self, size):
        if self.closed:
            raise ValueError('read of closed file')
        if self.deadline is None:
            return self._sock.recv(size)
        left = self.deadline - time.monotonic()
        if left <= 0:
            self.timed_out = True
            raise TimeoutError('timed out')
        if left >= self._read_timeout:      # the socket's own timeout binds first
            try:
                return self._sock.recv(size)
            except TimeoutError:
                self.timed_out = True
                raise
        self._sock.settimeout(left)
        try:
            return self._sock.recv(size)
        except TimeoutError:
            self.timed_out = True
            raise
        finally:
            self._sock.settimeout(self._read_timeout)

    def has_data(self):
        """Whether a whole header block is buffered (a pipelined request already read).

        cheroot hands a connection with buffered data straight back to a
        thread; a part of a header block waits in the selector for the rest.
        """
        return _complete(self._buf)

    def read(self, size=-1):
        """``size`` bytes (fewer only at the end of the stream); all, for a negative size."""
        buf = self._buf
        if size is not None and 0 <= size <= len(buf):
            data, self._buf = buf[:size], buf[size:]
        else:
            chunks, have = [buf], len(buf)
            self._buf = b''
            try:
                while size is None or size < 0 or have < size:
                    want = MAX_CHUNK if size is None or size < 0 else size - have
                    chunk = self._recv(min(max(want, self._bufsize), MAX_CHUNK))
                    if not chunk:
                        break
                    chunks.append(chunk)
                    have += len(chunk)
            except BaseException:
                self._buf = b''.join(chunks)     # nothing read is lost
                raise
            data = b''.join(chunks)
            if size is not None and 0 <= size < len(data):
                data, self._buf = data[:size], data[size:]
        self.bytes_read += len(data)
        return data

    def readline(self, size=-1):
        """One line, ``\\n`` included, of at most ``size`` bytes (any length when negative)."""
        if size is None:
            size = -1
        buf = self._buf
        searched = 0
        while True:
            end = buf.find(b'\n', searched)
            if end >= 0:
                end += 1
                break
            if 0 <= size <= len(buf):
                end = size
                break
            searched = len(buf)
            self._buf = buf                      # kept if the read raises
            chunk = self._recv(self._bufsize)
            if not chunk:
                end = len(buf)
                break
            buf += chunk
        if 0 <= size < end:
            end = size
        line, self._buf = buf[:end], buf[end:]
        return line

    def readlines(self, hint=-1):
        lines, total = [], 0
        for line in self:
            lines.append(line)
            total += len(line)
            if 0 < hint <= total:
                break
        return lines

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def close(self):
        self.closed = True
        self._buf = b''


def _complete(buf):
    """Whether ``buf`` holds a header block's end (blank lines before it skipped)."""
    start = len(buf) - len(buf.lstrip(b'\r\n'))
    return b'\r\n\r\n' in buf[start:] or b'\n\n' in buf[start:]

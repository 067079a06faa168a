"""The driver's plumbing: its errors, the reply stream, gnubg's diverted output and its commands.

It runs inside gnubg's embedded Python (``import gnubg`` is built in), uses the standard library
only and imports nothing of bgconf. Importing it moves gnubg's stdout (fd 1) into a private
temporary file (its "chatter"), so that replies, written by ``_send`` on a copy of the old fd 1
with the marker ``@@BGCONF `` in front, never mix with gnubg's own output; ``_command`` runs one
gnubg command and returns the message lines it printed.
"""

import json
import os
import sys
import tempfile

import gnubg  # provided by the gnubg program; not importable elsewhere

MARKER = "@@BGCONF "


class RequestError(Exception):
    """A request this driver cannot answer; its text becomes the error reply."""


class CannotSetUp(Exception):
    """gnubg refuses to be put in the state a request describes; becomes ``{"cannot": ...}``."""


def _redirect_stdout():
    """Move gnubg's own stdout (fd 1) into a temporary file; return (reply stream, chatter fd)."""
    sys.stdout.flush()
    reply_fd = os.dup(1)
    chatter = tempfile.TemporaryFile()
    chatter_fd = os.dup(chatter.fileno())
    chatter.close()
    os.dup2(chatter_fd, 1)
    reply = os.fdopen(reply_fd, "w", encoding="utf-8", newline="\n")
    return reply, chatter_fd


REPLY, CHATTER_FD = _redirect_stdout()


def _libc():
    try:
        import ctypes
        return ctypes.CDLL(None)
    except Exception:
        return None


_LIBC = _libc()


def _flush_c_stdout():
    """Flush gnubg's C stdio buffers (it flushes its own output; this is belt and braces)."""
    if _LIBC is not None:
        try:
            _LIBC.fflush(None)
        except Exception:
            pass


def _chatter_reset():
    """Forget gnubg's output so far (truncate the capture file)."""
    _flush_c_stdout()
    os.lseek(CHATTER_FD, 0, os.SEEK_SET)
    os.ftruncate(CHATTER_FD, 0)


def _chatter_text():
    """gnubg's output since the last reset, as text."""
    _flush_c_stdout()
    end = os.lseek(CHATTER_FD, 0, os.SEEK_CUR)
    os.lseek(CHATTER_FD, 0, os.SEEK_SET)
    chunks = []
    remaining = end
    while remaining > 0:
        chunk = os.read(CHATTER_FD, min(remaining, 65536))
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    os.lseek(CHATTER_FD, end, os.SEEK_SET)
    return b"".join(chunks).decode("utf-8", "replace")


def _messages(text):
    """The lines of gnubg's output that read as messages (board diagrams dropped)."""
    out = []
    for line in text.splitlines():
        s = line.strip()
        if not s or s[0] in "|+" or s[:2] in ("v|", "^|"):
            continue
        if "Position ID" in s or s.startswith("Match ID"):
            continue
        out.append(s)
    return out


def _command(cmd):
    """Run a gnubg command; return the message lines it printed."""
    _chatter_reset()
    gnubg.command(cmd)
    return _messages(_chatter_text())


def _send(obj):
    REPLY.write(MARKER + json.dumps(obj, separators=(",", ":")) + "\n")
    REPLY.flush()

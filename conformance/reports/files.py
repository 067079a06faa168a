"""Output files that never destroy what was there, and the check that an output is not an input.

Every file a ``bgconf`` command writes goes through an ``OutputSet``: each output is written
beside its target (a temporary file ``.NAME.XXXXXXXX.partial`` in the target's own directory,
so that the move cannot cross file systems) and moved into place with ``os.replace`` only when
the set is committed. The files of one set are moved together or not at all: each target that
exists is first kept under a temporary name beside it, and when one move fails the targets
already moved are given their old contents back. A set left without ``commit`` (a usage error,
an engine that does not start, an interruption, an exception) removes its temporary files and
leaves every target byte for byte as it was. SIGINT and SIGTERM are held back while a set moves
its files, so that an interruption cannot leave half a set.

``same_file`` and ``clashes`` compare the files paths reach (device and inode, as
``os.path.samefile``: through symbolic and hard links), never strings. Imports nothing of bgconf.
"""

from __future__ import annotations

import os
import signal
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterable, Iterator

#: the end of the name of a file written beside its target (``.report.jsonl.k3j2x9.partial``)
PARTIAL_SUFFIX = ".partial"


class OutputError(OSError):
    """An output could not be written or moved into place: ``option`` (the command-line option
    that named it, e.g. ``--report``), ``path`` (the target as given) and ``reason`` (one line)."""

    def __init__(self, option: str, path: str | Path, reason: str):
        super().__init__(reason)
        self.option, self.path, self.reason = option, str(path), reason
        self.strerror = reason

    def __str__(self) -> str:
        return f"{self.option} {self.path}: could not be written: {self.reason}"


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _real_target(path: str | Path) -> Path:
    """The file a target names: a symbolic link is followed, so that the file it points to is
    replaced and the link kept."""
    return Path(os.path.realpath(path))


@contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM are held back (delivered when the block ends) in the main thread."""
    try:
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    except (AttributeError, ValueError, OSError):
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


class _Staged:
    def __init__(self, option: str, path: str | Path, target: Path, temp: Path, file: IO[str]):
        self.option, self.path, self.target, self.temp, self.file = option, str(path), target, temp, file


class OutputSet:
    """A set of output files moved into place together (see the module docstring).

    ``stream(option, path)`` opens the file beside ``path`` for writing as the work goes on (a
    reader may follow that file); ``text(option, path, text)`` writes a whole file beside its
    target; ``commit()`` moves every file into place; leaving the ``with`` block without a commit
    discards them. Errors raise ``OutputError`` (an ``OSError``)."""

    def __init__(self) -> None:
        self._staged: list[_Staged] = []
        self.committed = False

    def __enter__(self) -> "OutputSet":
        return self

    def __exit__(self, *exc) -> None:
        if not self.committed:
            self.discard()

    def stream(self, option: str, path: str | Path) -> IO[str]:
        """A text file (UTF-8, no newline translation) beside ``path``, moved to ``path`` at
        ``commit``; its name is ``.NAME.XXXXXXXX.partial``. Folders missing on the way are created.
        Raises OutputError."""
        target = _real_target(path)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=PARTIAL_SUFFIX, dir=target.parent)
        except OSError as exc:
            raise OutputError(option, path, _reason(exc)) from None
        try:
            mode = stat.S_IMODE(target.stat().st_mode)
        except OSError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        try:
            os.fchmod(fd, mode)
        except OSError:
            pass
        file = os.fdopen(fd, "w", encoding="utf-8", newline="")
        self._staged.append(_Staged(option, path, target, Path(name), file))
        return file

    def text(self, option: str, path: str | Path, text: str) -> None:
        """Write ``text`` (UTF-8, as is) beside ``path``; moved into place at ``commit``.
        Raises OutputError."""
        file = self.stream(option, path)
        try:
            with file:
                file.write(text)
        except OSError as exc:
            raise OutputError(option, path, _reason(exc)) from None

    def commit(self) -> None:
        """Move every file into place, together: when one cannot be moved, the targets already
        replaced get their old files back, no target is lost, and OutputError names the one
        that failed. Signals wait until the moves are done."""
        with _signals_held():
            try:
                for s in self._staged:
                    try:
                        s.file.close()  # a file already closed by its writer stays closed
                    except OSError as exc:
                        raise OutputError(s.option, s.path, _reason(exc)) from None
                self._move_all()
            except OutputError:
                self.discard()
                raise
            self.committed = True

    def _move_all(self) -> None:
        kept: list[tuple[Path, Path | None]] = []  # (target, its old file under a temporary name)
        try:
            for s in self._staged:
                old = None
                try:
                    if s.target.exists():
                        fd, name = tempfile.mkstemp(prefix=f".{s.target.name}.", suffix=".old", dir=s.target.parent)
                        os.close(fd)
                        old = Path(name)
                        os.replace(s.target, old)
                    kept.append((s.target, old))
                    os.replace(s.temp, s.target)
                except OSError as exc:
                    raise OutputError(s.option, s.path, _reason(exc)) from None
        except OutputError:
            for target, old in reversed(kept):
                try:
                    if old is not None:
                        os.replace(old, target)
                    elif target.exists():
                        target.unlink()
                except OSError:
                    pass
            raise
        for _target, old in kept:
            if old is not None:
                try:
                    old.unlink()
                except OSError:
                    pass

    def discard(self) -> None:
        """Remove the files written beside their targets; the targets are untouched."""
        for s in self._staged:
            try:
                s.file.close()
            except (OSError, ValueError):
                pass
            try:
                s.temp.unlink()
            except OSError:
                pass
        self._staged = []


def write_file(option: str, path: str | Path, text: str) -> None:
    """One output file written beside ``path`` and moved into place (an ``OutputSet`` of one).
    Raises OutputError."""
    with OutputSet() as files:
        files.text(option, path, text)
        files.commit()


# -- an output that is an input -----------------------------------------------------------------
def _identity(path: str | Path) -> tuple | None:
    """What two names of one file share: the device and inode of the file they reach (symbolic
    and hard links included) when it exists, else the resolved path; None when neither can be
    had."""
    try:
        st = os.stat(path)
        return "file", st.st_dev, st.st_ino
    except (OSError, ValueError):
        try:
            return "path", os.path.realpath(path)
        except (OSError, ValueError):
            return None


def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether the paths name one file: the same device and inode when both exist (as
    ``os.path.samefile``: symbolic and hard links included), else their resolved paths are
    equal."""
    ida = _identity(a)
    return ida is not None and ida == _identity(b)


def clashes(outputs: dict[str, str | Path | None],
            inputs: Iterable[tuple[str, str | Path]]) -> tuple[str, str, str, str] | None:
    """The first output that is the same file as an input (``same_file``): (output option, output
    path, input label, input path), or None. ``outputs`` maps an option to a path (None: not
    given); ``inputs`` is (label, path) pairs, each an input file the command reads. Each path
    is looked up once, so a thousand inputs cost a thousand ``stat`` calls."""
    inputs = [(label, p) for label, p in inputs if p is not None]
    ids: list[tuple | None] | None = None
    for option, path in outputs.items():
        if path is None:
            continue
        mine = _identity(path)
        if mine is None:
            continue
        if ids is None:
            ids = [_identity(source) for _label, source in inputs]
        for (label, source), theirs in zip(inputs, ids):
            if theirs == mine:
                return option, str(path), label, str(source)
    return None

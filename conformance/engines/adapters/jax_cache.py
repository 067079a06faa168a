"""Where JAX keeps what it compiled, between processes: the persistent compilation cache of the
in-process engines built on JAX (pgx).

JAX compiles a jitted function the first time a process calls it at a given shape; pgx's take
about 15 s of CPU for the sizes the suite asks. With the cache set, the next process that needs
the same function (a ``--jobs`` worker, a later run) loads it from disk instead. The cache holds
compiled code only, keyed by JAX on the function, its shapes and JAX's own version: what the
engine answers does not depend on it (tests/test_pgx_batch.py runs the same cases cold, warm and
without a cache).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

#: where JAX keeps pgx's compiled functions between processes: a directory, or ``off`` for none
#: (default: ``jax`` in the user cache directory of bgconf)
CACHE_ENV = "BGCONF_PGX_CACHE"

#: the unusable ``BGCONF_PGX_CACHE`` values this process has already said so of (once each)
_TOLD: set[str] = set()


def compile_cache() -> Path | None:
    """The directory of JAX's persistent compilation cache for pgx, created if need be: the one
    ``BGCONF_PGX_CACHE`` names, else ``jax`` under platformdirs' user cache directory of bgconf
    (``~/.cache/bgconf/jax`` on Linux). None when it is ``off``, when the user set
    ``JAX_COMPILATION_CACHE_DIR`` (JAX reads that itself), or when the directory cannot be made
    or written (pgx then compiles in every process, as without a cache; a directory the user
    named in ``BGCONF_PGX_CACHE`` that way is named on standard error, once a process). Never
    raises."""
    chosen = os.environ.get(CACHE_ENV, "").strip()
    if chosen.lower() == "off" or os.environ.get("JAX_COMPILATION_CACHE_DIR"):
        return None
    try:
        if chosen:
            folder = Path(chosen).expanduser()
        else:
            from platformdirs import user_cache_dir

            folder = Path(user_cache_dir("bgconf")) / "jax"
        folder.mkdir(parents=True, exist_ok=True)
    except (ImportError, OSError) as exc:
        _unusable(chosen, getattr(exc, "strerror", None) or str(exc))
        return None
    if not os.access(folder, os.W_OK | os.X_OK):
        _unusable(chosen, "not writable")
        return None
    return folder


def _unusable(chosen: str, why: str) -> None:
    """Say on standard error, once a process, that the directory the user chose cannot be used
    (nothing is said of the default one: pgx then merely compiles again)."""
    if chosen and chosen not in _TOLD:
        _TOLD.add(chosen)
        print(f"bgconf: warning: {CACHE_ENV}={chosen}: {why}; pgx compiles its functions again in every process",
              file=sys.stderr)


def keep_compiled(jax) -> Path | None:
    """Point ``jax`` (the imported module, before anything is compiled) at ``compile_cache()``,
    keeping every compiled function however quick it was to compile; returns the directory, or
    None when there is none (nothing is changed then)."""
    cache = compile_cache()
    if cache is not None:
        jax.config.update("jax_compilation_cache_dir", str(cache))
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    return cache

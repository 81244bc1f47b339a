"""Running independent chunks of work here or in parallel: one place for joblib and dask.

Long runs (duels, simulation labels) split their work into chunks whose results do not
depend on where they run; `run_chunks` runs them in this process, through joblib
processes, or on a dask.distributed cluster (the current ``Client``, or a local one it
starts and closes), yielding each chunk's result as it finishes.
"""
from __future__ import annotations

from contextlib import nullcontext
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence


def run_chunks(func: Callable[[Any], Any], chunks: Sequence[Any], n_jobs: int = 1,
               backend: Optional[str] = None) -> Iterator[Any]:
    """``func(chunk)`` for every chunk: in order here (``n_jobs`` 1, no backend), else
    through joblib in the order chunks finish. ``func`` must be picklable (a module-level
    function or a `functools.partial` of one)."""
    if n_jobs == 1 and backend is None:
        for chunk in chunks:
            yield func(chunk)
        return
    from joblib import Parallel, delayed, parallel_backend
    if backend and n_jobs == 1:
        n_jobs = -1             # joblib runs n_jobs=1 in this process, whatever the backend
    client = None
    if backend == "dask":
        from dask.distributed import Client, get_client
        try:
            get_client()
        except ValueError:
            client = Client(processes=False)
    try:
        with parallel_backend(backend, n_jobs=n_jobs) if backend else nullcontext():
            tasks: Iterable = (delayed(func)(chunk) for chunk in chunks)
            yield from Parallel(n_jobs=n_jobs, return_as="generator_unordered")(tasks)
    finally:
        if client is not None:
            client.close()


__all__ = ["run_chunks"]

"""Running independent chunks of work here or in parallel: one place for joblib and dask.

Long runs (duels, simulation labels) split their work into chunks whose results do not
depend on where they run; `run_chunks` runs them in this process, through joblib
processes, or on a dask.distributed cluster (the current ``Client``, or a local one it
starts and closes), yielding each chunk's result as it finishes.

Faults end a run with `WorkerError`, a `DdzError`, instead of a traceback or a
hang; the chunks already yielded are kept by the caller (a results file), so rerunning
resumes without losing or repeating one:

* a joblib (loky) worker process that dies (killed, out of memory);
* a dask cluster with no worker left for `DASK_NO_WORKER_SECONDS` (the run would wait
  for ever), a task whose workers kept dying (dask's ``KilledWorker``), or a lost
  connection to the scheduler.

Workers do not outlive a parent killed with ``kill -9`` (they held its stderr 333 s): a
worker process watches its parent once a second and exits when it is gone, even in the
middle of a chunk, and loky's idle workers exit after `LOKY_IDLE_SECONDS` (joblib's
default: 300 s). A loky worker starts watching as it starts (the executor's initializer),
so one still importing when the parent dies exits too; a multiprocessing worker starts at
its first chunk.
"""
from __future__ import annotations

import os
import threading
import time
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence

from .errors import DdzError

#: seconds an idle loky worker waits for work before it exits
LOKY_IDLE_SECONDS = 10
#: seconds a dask run waits with no worker on the cluster before `WorkerError`
DASK_NO_WORKER_SECONDS = 60
#: how often (seconds) a dask run checks its cluster while it waits for results
DASK_POLL_SECONDS = 2.0


class _Orphaned:
    """``func`` run in a worker process that exits as soon as its parent (this process,
    ``parent``) is gone: a daemon thread per worker checks once a second."""

    def __init__(self, func: Callable[[Any], Any], parent: int) -> None:
        self.func, self.parent = func, parent

    def __call__(self, chunk: Any) -> Any:
        _watch_parent(self.parent)
        return self.func(chunk)


_watching: set[int] = set()


def _watch_parent(parent: int) -> None:
    if os.getpid() == parent or parent in _watching:
        return                                    # not a worker, or already watched
    _watching.add(parent)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)                               # the parent died: nobody wants the result
    threading.Thread(target=watch, name="ddzlab-parent-watch", daemon=True).start()


class WorkerError(DdzError):
    """A parallel run lost its workers: a worker process died, every dask worker is gone,
    or the dask scheduler went away. The finished chunks were delivered; rerun to resume."""


def run_chunks(func: Callable[[Any], Any], chunks: Sequence[Any], n_jobs: int = 1,
               backend: Optional[str] = None) -> Iterator[Any]:
    """``func(chunk)`` for every chunk: in order here (``n_jobs`` 1, no backend), else
    through joblib (dask: its client directly) in the order chunks finish. ``func`` must be
    picklable (a module-level function or a `functools.partial` of one). Raises
    `WorkerError` when the workers are lost (module docstring)."""
    if n_jobs == 1 and backend is None:
        for chunk in chunks:
            yield func(chunk)
        return
    if backend == "dask":
        yield from _run_dask(func, chunks)
        return
    from joblib import Parallel, delayed, parallel_config
    from joblib.externals.loky.process_executor import BrokenProcessPool
    if backend and n_jobs == 1:
        n_jobs = -1             # joblib runs n_jobs=1 in this process, whatever the backend
    loky = backend in (None, "loky")
    if backend == "multiprocessing":
        func = _Orphaned(func, os.getpid())
    config = (parallel_config("loky", n_jobs=n_jobs, idle_worker_timeout=LOKY_IDLE_SECONDS,
                              initializer=_watch_parent, initargs=(os.getpid(),)) if loky
              else parallel_config(backend, n_jobs=n_jobs))
    try:
        with config:
            tasks: Iterable = (delayed(func)(chunk) for chunk in chunks)
            yield from Parallel(n_jobs=n_jobs, return_as="generator_unordered")(tasks)
    except BrokenProcessPool as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise WorkerError(f"a worker process died during the run (killed, or out of memory): "
                          f"{first[:200]}") from None


def _run_dask(func: Callable[[Any], Any], chunks: Sequence[Any]) -> Iterator[Any]:
    """The chunks as tasks of the current dask ``Client`` (or a local in-process one),
    yielded as they finish, with the cluster watched while the run waits."""
    from dask.distributed import Client, get_client
    try:
        client, own = get_client(), False
    except ValueError:
        client, own = Client(processes=False), True
    try:
        yield from _watched(client, func, chunks)
    finally:
        if own:
            client.close()


def _watched(client: Any, func: Callable[[Any], Any], chunks: Sequence[Any]) -> Iterator[Any]:
    from concurrent.futures import CancelledError

    from distributed import KilledWorker, wait
    from distributed.client import ClosedClientError
    # OSError: CommClosedError, timeouts; CancelledError: the scheduler dropped the tasks
    lost = (OSError, ClosedClientError, CancelledError)
    where = getattr(client.scheduler, "address", None) or "the dask scheduler"
    try:
        pending = set(client.map(func, list(chunks), pure=False))
    except lost as e:
        raise WorkerError(f"lost the dask scheduler at {where}: {type(e).__name__}: {e}") from None
    alone_since: Optional[float] = None
    try:
        while pending:
            try:
                done, pending = wait(pending, timeout=DASK_POLL_SECONDS, return_when="FIRST_COMPLETED")
            except TimeoutError:                  # distributed's wait raises it on a timeout
                done = set()
            for future in done:
                try:
                    yield future.result()
                except KilledWorker as e:
                    raise WorkerError(f"dask gave up on a task whose workers kept dying: {e}") from None
            if done:
                alone_since = None
                continue
            if client.status in ("closed", "closing"):
                raise WorkerError(f"lost the dask scheduler at {where}")
            if client.scheduler_info(n_workers=-1).get("workers"):
                alone_since = None
            elif alone_since is None:
                alone_since = time.monotonic()
            elif time.monotonic() - alone_since > DASK_NO_WORKER_SECONDS:
                raise WorkerError(f"every dask worker of {where} is gone (none for "
                                  f"{DASK_NO_WORKER_SECONDS} s) with {len(pending)} chunks unfinished: "
                                  "start workers and rerun to resume")
    except lost as e:
        raise WorkerError(f"lost the dask scheduler at {where} ({type(e).__name__}: "
                          f"{str(e).strip().partition(chr(10))[0][:200]})") from None
    finally:
        try:
            client.cancel(list(pending))
        except lost:
            pass                                  # nothing left to cancel on a lost scheduler


__all__ = ["run_chunks", "WorkerError", "LOKY_IDLE_SECONDS", "DASK_NO_WORKER_SECONDS"]

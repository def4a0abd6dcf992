# SPDX-License-Identifier: Apache-2.0
"""Ray: the shim in the workers that run a job's tasks, and tasks in contexts.

``ray.init(runtime_env=fastaudit.ray.runtime_env())`` (or the same
fragment on one ``@ray.remote(runtime_env=...)``) starts the job's worker
processes with ``libfashim.so`` in ``LD_PRELOAD``: Ray sets ``env_vars``
in the environment it execs a worker with, which is when a preload is read.
``@fastaudit.audited([...])`` under ``@ray.remote`` then runs each call of
the function, or of an actor's method, in an audit context; a caller
gives per-call roots as ``f.remote(..., fastaudit_roots=[...])``.

While a context is alive in a worker, the native threads of the process
that run no Python (Ray's core worker: its RPC, object store and log
threads) may write only where every live context allows. They open their
files when the worker starts, before any task, and the object store's
memory is the raylet's; a deployment whose workers do open files there
during a task gives ``worker_roots()`` (the session directory and
``/dev/shm``) as roots too: a denial that names Ray's library as its
caller says so.
"""
from __future__ import annotations

import os
import sys
import warnings
from typing import Any

from ._fastaudit import audit_state
from ._shim import shim_path

__all__ = ['runtime_env', 'worker_roots', 'check_worker', 'FastauditWorkerWarning']


class FastauditWorkerWarning(RuntimeWarning):
    """A Ray worker runs its tasks' contexts without libfashim.so."""


def runtime_env(base: dict[str, Any] | None = None, *, setup_hook: bool = True
                ) -> dict[str, Any]:
    """The ``runtime_env`` (``base`` with these added) whose workers start
    with the shim preloaded.

    ``env_vars['LD_PRELOAD']`` is this install's ``libfashim.so`` before
    whatever ``base`` or this process's environment preloads already; with
    ``setup_hook`` each worker checks at start that the shim loaded and
    warns once, in its log, when it did not (a worker on another platform,
    or a base that overrides ``LD_PRELOAD`` later).
    """
    env = dict(base or {})
    env_vars = {str(k): str(v) for k, v in (env.get('env_vars') or {}).items()}
    shim = shim_path()
    have = env_vars.get('LD_PRELOAD', os.environ.get('LD_PRELOAD', ''))
    rest = [p for p in have.replace(' ', ':').split(':') if p and p != shim]
    env_vars['LD_PRELOAD'] = ':'.join([shim] + rest)
    env['env_vars'] = env_vars
    if setup_hook:
        if 'worker_process_setup_hook' in env:
            raise ValueError('fastaudit.ray.runtime_env: base has a worker_process_setup_hook '
                             'already; pass setup_hook=False and call '
                             'fastaudit.ray.check_worker() from yours')
        env['worker_process_setup_hook'] = 'fastaudit.ray.check_worker'
    return env


def check_worker() -> bool:
    """Warn, once in this worker, when the shim is not loaded; say whether it is."""
    state = audit_state()
    if state['native']:
        return True
    if not sys.platform.startswith('linux'):
        why = f'{sys.platform} is not Linux'
    elif 'libfashim' not in os.environ.get('LD_PRELOAD', ''):
        why = 'LD_PRELOAD does not name it (a runtime_env without fastaudit.ray.runtime_env())'
    else:
        why = str(state.get('native_reason'))
    warnings.warn(f'fastaudit: Ray worker pid {os.getpid()}: libfashim.so is not loaded: {why}. '
                  'Its tasks run in audit contexts without native checks: calls into native '
                  'code no package declares safe are refused by the call monitor instead of '
                  'being judged at libc', FastauditWorkerWarning, stacklevel=2)
    return False


def worker_roots() -> list[str]:
    """The places a Ray process writes on its own: the session directory
    (``/tmp/ray/session_*``: logs, spilled objects, runtime environments)
    and ``/dev/shm`` (the object store's shared memory). Call it after
    ``ray.init`` or in a worker; empty when Ray is not initialised. Roots
    for a task whose worker's own native threads write there while it runs;
    a task may then write there too."""
    try:
        import ray
        node = ray._private.worker.global_worker.node
        session = node.get_session_dir_path() if node is not None else None
    except Exception:
        session = None
    if session is None:
        return []
    return [os.path.realpath(session), '/dev/shm']

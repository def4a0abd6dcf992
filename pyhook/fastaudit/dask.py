# SPDX-License-Identifier: Apache-2.0
"""Dask: the shim in every worker a nanny starts, and tasks in audit contexts.

``client.register_plugin(FastauditPlugin())`` does two things, each with a
mechanism of distributed's own:

- a nanny plugin puts ``libfashim.so`` in the nanny's ``pre_spawn_env``
  (``distributed.nanny.pre-spawn-environ``, the environment set before the
  worker process is spawned: ``LD_PRELOAD`` is read when a program starts,
  so ``distributed.nanny.environ``, set inside the new process, is too late)
  and restarts its worker; nannies that join later get it before their
  first worker starts;
- a worker plugin runs each task that carries a ``fastaudit_roots``
  annotation (``with dask.annotate(fastaudit_roots=[...]):``), or every
  task when the plugin was given roots, in an audit context of those roots.

The plugin is a scheduler plugin that registers the other two on the
scheduler, so that one ``register_plugin`` reaches nannies and workers that
join later too; the scheduler's environment needs fastaudit importable.

A worker whose process has no shim (no nanny started it, a platform other
than Linux, a ``fork``/``forkserver`` start that does not exec) says so once,
in a warning and in the worker's log, and ``worker_report()`` says so too:
its tasks' contexts still refuse what the audit hook sees, but native code
is refused by the call monitor instead of being judged at libc.
"""
from __future__ import annotations

import logging
import os
import sys
import threading
import warnings
from collections.abc import Mapping
from typing import Any

try:
    from dask._task_spec import GraphNode
    from distributed.diagnostics.plugin import NannyPlugin, SchedulerPlugin, WorkerPlugin
    from distributed.protocol.pickle import dumps
except ImportError as e:
    raise ImportError(f'fastaudit.dask needs dask.distributed 2025.1 or later ({e}): '
                      'pip install fastaudit-native[dask]') from e

from ._audited import ROOTS_KEYWORD, policy
from ._fastaudit import audit_state, recent_denials
from ._shim import shim_path

__all__ = ['FastauditPlugin', 'FastauditWorkerWarning', 'worker_report', 'denials',
           'ANNOTATION']

#: The task annotation that names a task's roots: a list of directories.
ANNOTATION = ROOTS_KEYWORD

# Children of distributed's own loggers: what they say is in the logs that
# client.get_worker_logs() and get_worker_logs(nanny=True) return.
logger = logging.getLogger('distributed.worker.fastaudit')
nanny_logger = logging.getLogger('distributed.nanny.fastaudit')


class FastauditWorkerWarning(RuntimeWarning):
    """A worker runs its tasks' contexts without libfashim.so."""


class FastauditPlugin(SchedulerPlugin):
    """Preload the shim into every worker a nanny starts, and run tasks in
    audit contexts.

    ``roots``: when given, every task without a ``fastaudit_roots``
    annotation runs in a context of these directories; by default only
    annotated tasks do. ``preload=False`` leaves the workers' environment
    alone (a deployment that sets ``LD_PRELOAD`` itself). The other
    keywords go to ``mk_audit`` (``preset='data'`` unless given), one
    ``audit_perms`` per distinct set of roots per worker.
    """

    name = 'fastaudit'

    def __init__(self, roots: list[str] | None = None, *, preload: bool = True,
                 **mk_audit_kwargs: Any) -> None:
        if isinstance(roots, (str, bytes, os.PathLike)):
            raise TypeError('FastauditPlugin: roots must be a list of directories, '
                            f'not one path ({roots!r}); write [{roots!r}]')
        self.roots = None if roots is None else [os.fsdecode(os.fspath(r)) for r in roots]
        self.preload = preload
        self.mk_audit_kwargs = {'preset': 'data', **mk_audit_kwargs}

    async def start(self, scheduler: Any) -> None:
        # Nannies first: their workers restart with the shim, and only the
        # new workers get the task plugin, so none warns for want of it.
        if self.preload:
            preload = dumps(_PreloadShim())  # type: ignore[no-untyped-call]
            await scheduler.register_nanny_plugin(comm=None, plugin=preload,
                                                  name='fastaudit-preload', idempotent=False)
        tasks = dumps(_AuditTasks(self.roots, self.mk_audit_kwargs))  # type: ignore[no-untyped-call]
        await scheduler.register_worker_plugin(comm=None, plugin=tasks, name='fastaudit-tasks',
                                               idempotent=False)


# The nanny side. Nannies of a LocalCluster live in the client's process,
# and distributed's WorkerProcess.start copies pre_spawn_env into
# os.environ before it spawns: the client's LD_PRELOAD is put back as it
# was once no worker of this process is starting.
_starting = 0
_saved: dict[str, str | None] = {}


def _composed(existing: str | None, shim: str) -> str:
    rest = [p for p in (existing or '').replace(' ', ':').split(':') if p and p != shim]
    return ':'.join([shim] + rest)


class _PreloadShim(NannyPlugin):
    """Put the shim in the nanny's pre-spawn environment and restart its worker."""

    restart = True

    def setup(self, nanny: Any) -> None:
        if not sys.platform.startswith('linux'):
            self.restart = False
            nanny_logger.warning('fastaudit: nanny %s: not preloading libfashim.so: '
                                 '%s is not Linux', nanny.address, sys.platform)
            return
        if 'LD_PRELOAD' not in _saved:
            _saved['LD_PRELOAD'] = os.environ.get('LD_PRELOAD')
        shim = shim_path()
        before = nanny.pre_spawn_env.get('LD_PRELOAD', _saved['LD_PRELOAD'])
        value = _composed(before, shim)
        nanny.pre_spawn_env['LD_PRELOAD'] = value
        nanny.env['LD_PRELOAD'] = value
        self.value = value
        # A worker that has the shim already (the nanny's own environment
        # preloads it) needs no restart.
        self.restart = shim not in (before or '').split(':')
        if not getattr(nanny, '_fastaudit_instantiate', None):
            plain = nanny.instantiate

            async def instantiate() -> Any:
                global _starting
                _starting += 1
                try:
                    return await plain()
                finally:
                    _starting -= 1
                    if not _starting:
                        _restore(value)
            nanny._fastaudit_instantiate = plain
            nanny.instantiate = instantiate

    def teardown(self, nanny: Any) -> None:
        plain = getattr(nanny, '_fastaudit_instantiate', None)
        if plain is not None:
            nanny.instantiate = plain
            nanny._fastaudit_instantiate = None
        for env in (nanny.pre_spawn_env, nanny.env):
            if env.get('LD_PRELOAD') == getattr(self, 'value', None):   # ours, not a user's
                if _saved.get('LD_PRELOAD') is None:
                    del env['LD_PRELOAD']
                else:
                    env['LD_PRELOAD'] = _saved['LD_PRELOAD']


def _restore(ours: str) -> None:
    # Only what the nanny wrote: a value someone else set since stays.
    if os.environ.get('LD_PRELOAD') != ours:
        return
    old = _saved.get('LD_PRELOAD')
    if old is None:
        del os.environ['LD_PRELOAD']
    else:
        os.environ['LD_PRELOAD'] = old


# The worker side.
_report: dict[str, Any] = {'plugin': False, 'warned': None, 'audited_tasks': 0}
_report_lock = threading.Lock()


def _why_no_shim(worker: Any, state: Mapping[str, Any]) -> str:
    if not sys.platform.startswith('linux'):
        return f'{sys.platform} is not Linux: libfashim.so is for Linux with glibc'
    if getattr(worker, 'nanny', None) is None:
        return ('this worker has no nanny (a LocalCluster with processes=False, or '
                '`dask worker --no-nanny`), so nothing started it with the shim')
    if 'libfashim' not in os.environ.get('LD_PRELOAD', ''):
        return ('its nanny started it without LD_PRELOAD (FastauditPlugin(preload=False), '
                'or distributed.worker.multiprocessing-method is not spawn)')
    return str(state.get('native_reason') or 'the shim did not load')


class _AuditTasks(WorkerPlugin):
    """Run annotated tasks (or every task) in an audit context."""

    def __init__(self, roots: list[str] | None, mk_audit_kwargs: dict[str, Any]) -> None:
        self.roots = roots
        self.mk_audit_kwargs = mk_audit_kwargs

    def setup(self, worker: Any) -> None:
        self.worker = worker
        _report['plugin'] = True
        state = audit_state()
        if not state['native'] and _report['warned'] is None:
            why = _why_no_shim(worker, state)
            _report['warned'] = why
            msg = (f'fastaudit: worker {worker.address}: libfashim.so is not loaded: {why}. '
                   'Its tasks run in audit contexts without native checks: what the audit hook '
                   'sees is refused, and calls into native code no package declares safe are '
                   'refused by the call monitor instead of being judged at libc. Start workers '
                   'with a nanny on Linux, or with LD_PRELOAD=' + shim_path())
            logger.warning(msg)
            warnings.warn(msg, FastauditWorkerWarning, stacklevel=2)

    def transition(self, key: Any, start: str, finish: str, **kwargs: Any) -> None:
        if finish != 'executing':
            return
        ts = self.worker.state.tasks.get(key)
        if ts is None or ts.run_spec is None or isinstance(ts.run_spec, _InContext):
            return
        roots = (ts.annotations or {}).get(ANNOTATION, self.roots)
        if roots is None:
            return
        # Checked where the task runs (a string is refused there, never
        # taken as a list of one-letter roots).
        ts.run_spec = _InContext(ts.run_spec, roots, self.mk_audit_kwargs)


class _InContext(GraphNode):
    """A task's GraphNode, called in an audit context.

    The worker calls the node in the copy of the event loop's Context that
    it runs the task in (a thread of its executor), or awaits it there for a
    coroutine task: the context is entered in that Context, around exactly
    the task's code, dependencies it computes inline included. The policy
    is looked up there too, so that bad roots fail the task, not the worker.
    """

    __slots__ = ('inner', 'roots', 'mk_audit_kwargs')

    def __init__(self, inner: Any, roots: Any, mk_audit_kwargs: dict[str, Any]) -> None:
        self.key = inner.key
        self._dependencies = inner.dependencies
        self.inner = inner
        self.roots = roots
        self.mk_audit_kwargs = mk_audit_kwargs

    @property
    def is_coro(self) -> bool:
        return bool(self.inner.is_coro)

    @property
    def data_producer(self) -> bool:
        return bool(self.inner.data_producer)

    def __repr__(self) -> str:
        return f'<fastaudit {self.roots!r}: {self.inner!r}>'

    def __call__(self, values: Any = ()) -> Any:
        perms = policy(self.roots, **self.mk_audit_kwargs)
        with _report_lock:
            _report['audited_tasks'] += 1
        if self.inner.is_coro:
            return self._await(perms, values)
        with perms():
            return self.inner(values)

    async def _await(self, perms: Any, values: Any) -> Any:
        with perms():
            return await self.inner(values)


def worker_report() -> dict[str, Any]:
    """What fastaudit did in this worker, for ``client.run(worker_report)``:
    whether the shim is loaded (``native``) and if not why, how many tasks ran
    in a context, how many writes and program starts the shim refused
    (``native_denial_count``) and the recent denials of every layer
    (``denials``: the last 32 of the audit hook's, 16 of the shim's)."""
    state = audit_state()
    return {'native': state['native'],
            'native_reason': _report['warned'] or state.get('native_reason'),
            'plugin': _report['plugin'],
            'audited_tasks': _report['audited_tasks'],
            'native_denial_count': state['native_denial_count'],
            'denials': recent_denials()}


def denials(client: Any) -> dict[str, dict[str, Any]]:
    """``worker_report()`` of every worker of ``client``, by worker address."""
    return dict(client.run(worker_report))

# SPDX-License-Identifier: Apache-2.0
"""The public API: mk_audit, audit_state, track_call, active_calls.

Enforcement lives in C (``fastaudit._fastaudit``). What stays in Python is
what only runs outside any context or only serves host callbacks: reading
entry-point metadata once, when the first ``mk_audit`` installs the hook,
and tracking trusted coroutine calls for ``before_deny``/``on_call``.
"""
from __future__ import annotations

import inspect
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import wraps
from importlib.metadata import EntryPoint, entry_points
from typing import Any, NamedTuple, TypeVar

from ._fastaudit import (UNCONFINED, _learn_read, _package, audit_state, mk_audit,
                          recent_denials, suggest_roots)

__all__ = ['mk_audit', 'audit_state', 'track_call', 'active_calls', 'TrackedCall',
           'CallTracker', 'recent_denials', 'Learner', 'suggest_roots', 'UNCONFINED']

_F = TypeVar('_F', bound=Callable[..., Any])


class TrackedCall(NamedTuple):
    """A call of a function wrapped by ``track_call`` (or ``CallTracker.wrap``)
    that is running: what ``before_deny`` and ``on_call`` receive, innermost
    last, in their ``calls`` argument. ``name`` is ``module.qualname``."""

    fn: Callable[..., Any]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    module: str | None
    qualname: str | None
    name: str | None

# Native modules of common packages whose calls write no files, and the
# bundled lxml monitor hook: defaults added to what installed distributions
# declare, unless the host pins the entry points (below). A host narrows
# the defaults by assigning bundled_safe_native before its first mk_audit.
bundled_safe_native: tuple[str, ...] = ('PIL', '_regex', 'bottleneck', 'contourpy', 'kiwisolver',
                       'matplotlib', 'numexpr', 'numpy', 'orjson', 'pandas',
                       'pydantic_core', 'regex._regex', 'rpds')
_BUNDLED_MONITOR_HOOKS = ('fastaudit.hooks:lxml_monitor',)
_stock_entry_points = entry_points


class LearnedRefusal(NamedTuple):
    """One refusal a learning context recorded instead of raising it: the
    event (``libc.open64`` for one libfashim.so saw), the path the engine
    judged (``None`` for an event with no path), the operation and the rule."""

    event: str
    path: str | None
    op: str | None
    rule: str

# Refusals a write root would have allowed (a hard link's source included).
_ROOT_RULES = ('outside-roots', 'no-roots', 'root-itself', 'link-target')


class Learner:
    """What a context of ``mk_audit(..., learn=True)`` would have refused.

    The context refuses nothing its hook judges; each refusal is recorded
    here instead (``records``: event, the path the engine judged, the
    operation, the rule) and approved, so that libfashim.so lets the same
    operation through. What only libfashim.so sees (a C library's own
    ``open``, from any thread, and what the programs the context starts do)
    it lets through too, and appends to the context's record (a memfd, the
    one fa-run --learn uses); those come here with the libc call as the
    event (``libc.open64``). The record holds a bounded number of bytes
    (``record_limit``): past it a would-be denial is counted, not recorded,
    and ``lost`` says how many (``events()`` says so too).
    ``suggested_roots()`` gives the fewest write roots that would have
    allowed the writes, by fa-run --learn's rule: sensitive places come back
    with the reason, for the host to decide.
    """

    def __init__(self, project: str | os.PathLike[str] | None = None,
                 record: int | None = None, record_limit: int | None = None) -> None:
        self.project: str = os.path.realpath(project if project is not None else os.getcwd())
        self._records: list[LearnedRefusal] = []
        self._record = record
        self._at = 0
        self.record_limit = record_limit
        self.lost = 0
        self._lock = threading.Lock()

    def __del__(self) -> None:
        if self._record is not None:
            os.close(self._record)

    @property
    def records(self) -> list[LearnedRefusal]:
        """Every refusal recorded so far, libfashim.so's included, oldest first."""
        self.take_native()
        with self._lock:
            return list(self._records)

    def record(self, event: str, args: tuple[Any, ...], path: str | None, op: str | None,
               rule: str) -> None:
        """Record one refusal (the hook calls this; ``args`` are the event's)."""
        with self._lock:
            self._records.append(LearnedRefusal(event, path, op, rule))

    def take_native(self) -> None:
        """Take libfashim.so's records of this context's would-be denials since the last look."""
        if self._record is None:
            return
        with self._lock:
            got, self._at, self.lost = _learn_read(self._record, self._at)
            self._records.extend(LearnedRefusal('libc.' + call, path, op, rule)
                                 for call, op, rule, path in got)

    def suggested_roots(self) -> list[tuple[str, str | None]]:
        """[(root, None)] to grant, and [(place, why_sensitive)] to think about."""
        paths = [r.path for r in self.records
                 if r.path and r.rule in _ROOT_RULES and r.path.startswith('/')]
        return suggest_roots(paths, self.project)

    def events(self) -> list[str]:
        """Refusals no root would allow: process starts and other blocked events;
        and, when the record was full, how many would-be denials it lost."""
        got = sorted({r.event for r in self.records if r.rule not in _ROOT_RULES})
        if self.lost:
            got.append('%d more not recorded: the record holds %s bytes'
                       % (self.lost, self.record_limit))
        return got


class _ActiveCall:
    __slots__ = ('call', 'active')

    def __init__(self, call: TrackedCall) -> None:
        self.call, self.active = call, True


class CallTracker:
    """Records wrapped coroutine calls in a ContextVar, for host callbacks.

    The package's own tracker is behind ``track_call`` and ``active_calls``;
    a host makes another only to keep a separate record.
    """

    def __init__(self, name: str = 'fastaudit_active_calls') -> None:
        self.ctx: ContextVar[tuple[_ActiveCall, ...]] = ContextVar(name, default=())

    def _call(self, fn: Callable[..., Any], args: Iterable[Any] | None = (),
              kwargs: dict[str, Any] | None = None) -> TrackedCall:
        args = () if args is None else tuple(args)
        kwargs = {} if kwargs is None else dict(kwargs)
        module = getattr(fn, '__module__', None)
        qualname = getattr(fn, '__qualname__', getattr(fn, '__name__', None))
        name = f'{module}.{qualname}' if module and qualname else qualname
        return TrackedCall(fn, args, kwargs, module, qualname, name)

    @contextmanager
    def track(self, fn: Callable[..., Any], args: Iterable[Any] | None = (),
              kwargs: dict[str, Any] | None = None) -> Iterator[TrackedCall]:
        """Count ``fn(*args, **kwargs)`` as running while the block runs, in
        this Context and the tasks it starts; yields its ``TrackedCall``."""
        o = _ActiveCall(self._call(fn, args, kwargs))
        tok = self.ctx.set(self.ctx.get() + (o,))
        try:
            yield o.call
        finally:
            # a child task's copy of the context must not keep the grant
            o.active = False
            self.ctx.reset(tok)

    def active(self) -> tuple[TrackedCall, ...]:
        """The tracked calls running in the current Context (task or thread),
        outermost first: what ``before_deny`` and ``on_call`` get as
        ``calls``. ``fastaudit.active_calls`` is the package's tracker's."""
        return tuple(o.call for o in self.ctx.get() if o.active)

    def wrap(self, fn: _F) -> _F:
        """Decorate a trusted tool's coroutine function: while a call of it
        runs, ``active()`` (and so the ``calls`` that ``before_deny`` and
        ``on_call`` receive) includes its ``TrackedCall``, so that the host
        can approve what that tool does. A function that is not a coroutine
        function, or is wrapped already, comes back as it is.
        ``fastaudit.track_call`` is the package's tracker's."""
        if (getattr(fn, '_fastaudit_orig', None) is not None
                or not inspect.iscoroutinefunction(fn)):
            return fn

        @wraps(fn)
        async def _fn(*args: Any, **kwargs: Any) -> Any:
            with self.track(fn, args, kwargs):
                return await fn(*args, **kwargs)
        _fn._fastaudit_orig = fn  # type: ignore[attr-defined]
        return _fn  # type: ignore[return-value]


_default_call_tracker = CallTracker()
# Bound methods, not functions reading module globals: the hook holds
# active_calls, and code in a context that rebinds this module's names
# must not change what it answers.
track_call = _default_call_tracker.wrap
active_calls = _default_call_tracker.active


def _clean(mods: Iterable[str | None]) -> tuple[str, ...]:
    return tuple(m.strip() for m in mods if m and m.strip())


def _entry_points() -> tuple[tuple[str, ...], tuple[str, ...], tuple[Any, ...],
                            tuple[Any, ...], Callable[[], tuple[TrackedCall, ...]]]:
    """Read the four entry-point groups once, for the C hook, outside any
    context.

    ``entry_points`` is this module's global, looked up now: a host that
    pins the groups replaces ``fastaudit.core.entry_points`` before its
    first ``mk_audit`` and gets exactly what its function returns, with no
    bundled defaults. Module-prefix groups are read as text and never
    imported; hook groups are loaded, since they are called.
    """
    import sys
    eps = entry_points
    stock = eps is _stock_entry_points

    def group(name: str) -> tuple[EntryPoint, ...]:
        return tuple(eps(group=name))
    safe = set(_clean(ep.value for ep in group('fastaudit_safe_native')))
    imports = set(_clean(ep.value for ep in group('fastaudit_import_allow')))
    mon_refs = [ep for ep in group('fastaudit_monitor_hook')]
    if stock:
        safe |= set(_clean(bundled_safe_native))
        have = {ep.value.strip() for ep in mon_refs}
        mon_refs = [EntryPoint(v, v, 'fastaudit_monitor_hook')
                    for v in _BUNDLED_MONITOR_HOOKS if v not in have] + mon_refs
    mon = ()
    if hasattr(sys, 'monitoring'):
        seen, loaded = set(), []
        for ep in mon_refs:
            if ep.value.strip() not in seen:
                seen.add(ep.value.strip())
                loaded.append(ep.load())
        mon = tuple(loaded)
    aud = tuple(ep.load() for ep in group('fastaudit_audit_hook'))
    return tuple(sorted(safe)), tuple(sorted(imports)), mon, aud, active_calls


# What the hook calls back, handed to the extension, which never imports this package.
_package(_entry_points, Learner)

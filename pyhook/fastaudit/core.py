"""The public API: mk_audit, audit_state, track_call, active_calls.

Enforcement lives in C (``fastaudit._fastaudit``). What stays in Python is
what only runs outside any context or only serves host callbacks: reading
entry-point metadata once, when the first ``mk_audit`` installs the hook,
and tracking trusted coroutine calls for ``before_deny``/``on_call``.
"""
import inspect
import os
import threading
from collections import namedtuple
from contextlib import contextmanager
from contextvars import ContextVar
from functools import wraps
from importlib.metadata import EntryPoint, entry_points

from ._fastaudit import (UNCONFINED, audit_state, mk_audit, native_denials, recent_denials,
                          suggest_roots)

__all__ = ['mk_audit', 'audit_state', 'track_call', 'active_calls', 'TrackedCall',
           'CallTracker', 'recent_denials', 'Learner', 'suggest_roots', 'UNCONFINED']

TrackedCall = namedtuple('TrackedCall', 'fn args kwargs module qualname name')

# Native modules of common packages whose calls write no files, and the
# bundled lxml monitor hook: defaults added to what installed distributions
# declare, unless the host pins the entry points (below). A host narrows
# the defaults by assigning bundled_safe_native before its first mk_audit.
bundled_safe_native = ('PIL', '_regex', 'bottleneck', 'contourpy', 'kiwisolver',
                       'matplotlib', 'numexpr', 'numpy', 'orjson', 'pandas',
                       'pydantic_core', 'regex._regex', 'rpds')
_BUNDLED_MONITOR_HOOKS = ('fastaudit.hooks:lxml_monitor',)
_stock_entry_points = entry_points


LearnedRefusal = namedtuple('LearnedRefusal', 'event path op rule')

# Refusals a write root would have allowed (a hard link's source included).
_ROOT_RULES = ('outside-roots', 'no-roots', 'root-itself', 'link-target')


class Learner:
    """What a context of ``mk_audit(..., learn=True)`` would have refused.

    The context refuses nothing its hook judges; each refusal is recorded
    here instead (``records``: event, the path the engine judged, the
    operation, the rule) and approved, so that libfashim.so lets the same
    operation through. What only libfashim.so sees (a C library's own
    ``open``) it lets through too, and reports; those records come here from
    its recent denials, with the libc call as the event (``libc.open64``).
    The shim keeps only its recent denials: ``lost`` counts those that were
    gone before they could be read. ``suggested_roots()`` gives the fewest
    write roots that would have allowed the writes, by fa-run --learn's
    rule: sensitive places come back with the reason, for the host to decide.
    """

    def __init__(self, project=None, native_seen=0):
        self.project = os.path.realpath(project if project is not None else os.getcwd())
        self._records = []
        self._native_seen = native_seen
        self.lost = 0
        self._lock = threading.Lock()

    @property
    def records(self):
        self.take_native()
        with self._lock:
            return list(self._records)

    def record(self, event, args, path, op, rule):
        with self._lock:
            self._records.append(LearnedRefusal(event, path, op, rule))

    def take_native(self):
        """Record libfashim.so's refusals of learning contexts since the last look."""
        got = native_denials()
        with self._lock:
            for d in got:
                if d['seq'] <= self._native_seen:
                    continue
                self.lost += d['seq'] - self._native_seen - 1
                self._native_seen = d['seq']
                # only a learning context's refusals go through unenforced
                if d['policy'] == 'context' and not d['enforced']:
                    self._records.append(LearnedRefusal(
                        'libc.' + d['call'], d['resolved2'] or d['resolved'] or d['path'],
                        d['op'], d['rule']))

    def suggested_roots(self):
        """[(root, None)] to grant, and [(place, why_sensitive)] to think about."""
        paths = [r.path for r in self.records
                 if r.path and r.rule in _ROOT_RULES and r.path.startswith('/')]
        return suggest_roots(paths, self.project)

    def events(self):
        """Refusals no root would allow: process starts and other blocked events."""
        return sorted({r.event for r in self.records if r.rule not in _ROOT_RULES})


class _ActiveCall:
    __slots__ = ('call', 'active')

    def __init__(self, call):
        self.call, self.active = call, True


class CallTracker:
    """Records wrapped coroutine calls in a ContextVar, for host callbacks."""

    def __init__(self, name='fastaudit_active_calls'):
        self.ctx = ContextVar(name, default=())

    def _call(self, fn, args=(), kwargs=None):
        args = () if args is None else tuple(args)
        kwargs = {} if kwargs is None else dict(kwargs)
        module = getattr(fn, '__module__', None)
        qualname = getattr(fn, '__qualname__', getattr(fn, '__name__', None))
        name = f'{module}.{qualname}' if module and qualname else qualname
        return TrackedCall(fn, args, kwargs, module, qualname, name)

    @contextmanager
    def track(self, fn, args=(), kwargs=None):
        o = _ActiveCall(self._call(fn, args, kwargs))
        tok = self.ctx.set(self.ctx.get() + (o,))
        try:
            yield o.call
        finally:
            # a child task's copy of the context must not keep the grant
            o.active = False
            self.ctx.reset(tok)

    def active(self):
        return tuple(o.call for o in self.ctx.get() if o.active)

    def wrap(self, fn):
        if (getattr(fn, '_fastaudit_orig', None) is not None
                or not inspect.iscoroutinefunction(fn)):
            return fn

        @wraps(fn)
        async def _fn(*args, **kwargs):
            with self.track(fn, args, kwargs):
                return await fn(*args, **kwargs)
        _fn._fastaudit_orig = fn
        return _fn


_default_call_tracker = CallTracker()
track_call = _default_call_tracker.wrap
active_calls = _default_call_tracker.active


def _clean(mods):
    return tuple(m.strip() for m in mods if m and m.strip())


def _entry_points():
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

    def group(name):
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

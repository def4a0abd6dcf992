# SPDX-License-Identifier: Apache-2.0
"""``fastaudit.audited``: a function, coroutine or generator that runs in an
audit context, for code that a scheduler calls (a Dask or Ray task, a job
queue's handler) rather than code a host runs itself.

One ``audit_perms`` is made per distinct policy per process and kept: a
worker that runs thousands of tasks of a few tenants makes a few policies,
not thousands. ``mk_audit`` refuses to run inside a context, so the policy
is made before the context is entered, never inside it.
"""
from __future__ import annotations

import functools
import inspect
import os
import threading
from collections.abc import AsyncGenerator, Callable, Generator, Iterable, Mapping
from contextvars import ContextVar
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from ._fastaudit import mk_audit

if TYPE_CHECKING:
    from ._fastaudit import audit_perms

__all__ = ['audited', 'Audited', 'ROOTS_KEYWORD']

#: The keyword a decorated function's caller gives per-call roots with; the
#: wrapper removes it before calling the function.
ROOTS_KEYWORD = 'fastaudit_roots'

_F = TypeVar('_F', bound=Callable[..., Any])
_Roots = Iterable['str | bytes | os.PathLike[str] | os.PathLike[bytes]']

_lock = threading.Lock()
_policies: dict[Any, audit_perms] = {}


def _freeze(value: Any) -> Any:
    """A hashable stand-in for a keyword's value, equal for equal policies."""
    if isinstance(value, (str, bytes)) or value is None:
        return value
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, Mapping):
        return ('{', tuple(sorted((k, _freeze(v)) for k, v in value.items())))
    if isinstance(value, (set, frozenset)):
        return ('set', frozenset(_freeze(v) for v in value))
    if isinstance(value, (list, tuple)):
        return ('seq', tuple(_freeze(v) for v in value))
    hash(value)     # a callable (before_deny, on_call) is its own identity
    return value


def _roots_list(roots: _Roots) -> list[str]:
    if isinstance(roots, (str, bytes, os.PathLike)):
        raise TypeError('fastaudit.audited: roots must be a list of directories, '
                        f'not one path ({roots!r}); write [{roots!r}]')
    return [os.fsdecode(os.fspath(r)) for r in roots]


def policy(roots: _Roots | None, **mk_audit_kwargs: Any) -> audit_perms:
    """The process's ``audit_perms`` for ``mk_audit(roots, **mk_audit_kwargs)``,
    made at its first use and reused after (thread-safe). Relative roots
    are taken from the current directory, as ``mk_audit`` takes them."""
    listed = None if roots is None else _roots_list(roots)
    # A relative root means a different directory after a chdir.
    cwd = os.getcwd() if listed and any(not os.path.isabs(r) for r in listed) else None
    key = (None if listed is None else tuple(listed), cwd, _freeze(mk_audit_kwargs))
    with _lock:
        got = _policies.get(key)
        if got is None:
            got = _policies[key] = mk_audit(listed, **mk_audit_kwargs)
        return got


class Audited:
    """What ``audited(...)`` returns: a decorator, and a context manager
    (``with audited([w]):``) entered per thread and per asyncio task."""

    def __init__(self, roots: _Roots | None, mk_audit_kwargs: dict[str, Any]) -> None:
        self.roots: list[str] | None = None if roots is None else _roots_list(roots)
        self.mk_audit_kwargs = mk_audit_kwargs
        # The contexts `with` entered, per Context: one task's exit never
        # pops another's entry.
        self._entered: ContextVar[tuple[Any, ...]] = ContextVar('fastaudit_audited', default=())

    # Ray and Dask ship decorated functions to workers by value; the entries
    # of `with` stay in the process that made them.
    def __getstate__(self) -> dict[str, Any]:
        return {'roots': self.roots, 'mk_audit_kwargs': self.mk_audit_kwargs}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.roots, self.mk_audit_kwargs = state['roots'], state['mk_audit_kwargs']
        self._entered = ContextVar('fastaudit_audited', default=())

    def __repr__(self) -> str:
        kw = ''.join(f', {k}={v!r}' for k, v in self.mk_audit_kwargs.items())
        return f'fastaudit.audited({self.roots!r}{kw})'

    def perms(self, roots: _Roots | None = None) -> audit_perms:
        """The ``audit_perms`` for ``roots`` (these replace the decorator's),
        or for the decorator's own roots."""
        if roots is None:
            roots = self.roots
            if roots is None and self.mk_audit_kwargs.get('policy') is None:
                raise TypeError('fastaudit.audited: no roots: give them to audited([...]) '
                                f'or per call as {ROOTS_KEYWORD}=[...]')
        return policy(roots, **self.mk_audit_kwargs)

    def _take(self, kwargs: dict[str, Any]) -> audit_perms:
        return self.perms(kwargs.pop(ROOTS_KEYWORD, None))

    def __enter__(self) -> None:
        ctx = self.perms()()
        ctx.__enter__()
        self._entered.set(self._entered.get() + (ctx,))

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        stack = self._entered.get()
        if not stack:
            raise RuntimeError(f'{self!r}: exit without an entry in this thread or task')
        self._entered.set(stack[:-1])
        stack[-1].__exit__(exc_type, exc, tb)

    def __call__(self, fn: _F) -> _F:
        if not callable(fn):
            raise TypeError(f'fastaudit.audited: cannot decorate {fn!r}: not callable')
        if inspect.isasyncgenfunction(fn):
            wrapper: Callable[..., Any] = self._async_generator(fn)
        elif inspect.iscoroutinefunction(fn):
            wrapper = self._coroutine(fn)
        elif inspect.isgeneratorfunction(fn):
            wrapper = self._generator(fn)
        else:
            wrapper = self._function(fn)
        functools.update_wrapper(wrapper, fn)
        sig = _with_roots_keyword(fn)
        if sig is not None:
            wrapper.__signature__ = sig  # type: ignore[attr-defined]
            # Ray reads an actor method's signature from inspect.unwrap()'s
            # answer: the wrapper is where unwrapping stops, so that the
            # keyword is seen. The function is fastaudit_function.
            del wrapper.__wrapped__  # type: ignore[attr-defined]
        wrapper.fastaudit_function = fn  # type: ignore[attr-defined]
        wrapper._fastaudit_audited = self  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    def _function(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            with self._take(kwargs)():
                return fn(*args, **kwargs)
        return run

    def _coroutine(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        async def run(*args: Any, **kwargs: Any) -> Any:
            with self._take(kwargs)():
                return await fn(*args, **kwargs)
        return run

    def _generator(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        # Each step of the generator runs in the context, and only the
        # steps: the consumer's code between two of them is its own, and it
        # may resume the generator from another thread.
        def run(*args: Any, **kwargs: Any) -> Generator[Any, Any, Any]:
            perms = self._take(kwargs)
            with perms():
                gen = fn(*args, **kwargs)
            sent: Any = None
            thrown: BaseException | None = None
            while True:
                try:
                    with perms():
                        if thrown is None:
                            value = gen.send(sent)
                        else:
                            value = gen.throw(thrown)
                except StopIteration as stop:
                    return stop.value
                finally:
                    thrown = None
                try:
                    sent = yield value
                except GeneratorExit:
                    with perms():
                        gen.close()
                    raise
                except BaseException as e:  # given to the generator, as yield would
                    thrown, sent = e, None
        return run

    def _async_generator(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        async def run(*args: Any, **kwargs: Any) -> AsyncGenerator[Any, Any]:
            perms = self._take(kwargs)
            with perms():
                agen = fn(*args, **kwargs)
            sent: Any = None
            thrown: BaseException | None = None
            while True:
                try:
                    with perms():
                        if thrown is None:
                            value = await agen.asend(sent)
                        else:
                            value = await agen.athrow(thrown)
                except StopAsyncIteration:
                    return
                finally:
                    thrown = None
                try:
                    sent = yield value
                except GeneratorExit:
                    with perms():
                        await agen.aclose()
                    raise
                except BaseException as e:
                    thrown, sent = e, None
        return run


def _with_roots_keyword(fn: Callable[..., Any]) -> inspect.Signature | None:
    """fn's signature with the keyword-only ``fastaudit_roots=None`` added,
    which frameworks that check a call against the signature (Ray) read."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    params = list(sig.parameters.values())
    if ROOTS_KEYWORD in sig.parameters:
        raise TypeError(f'fastaudit.audited: {fn!r} has a parameter {ROOTS_KEYWORD!r} '
                        'of its own, which the decorator would take away')
    at = len(params)
    if params and params[-1].kind is inspect.Parameter.VAR_KEYWORD:
        at -= 1
    params.insert(at, inspect.Parameter(ROOTS_KEYWORD, inspect.Parameter.KEYWORD_ONLY,
                                        default=None))
    return sig.replace(parameters=params)


def audited(roots: _Roots | Callable[..., Any] | None = None,
            **mk_audit_kwargs: Any) -> Any:
    """Run a function in an audit context of ``roots``.

    ``@audited([workdir])`` runs each call of a plain function, coroutine
    function, generator or async generator in a context of
    ``mk_audit([workdir], preset='data', **mk_audit_kwargs)`` (the host mode
    unless ``preset`` is given); ``with audited([workdir]):`` runs a block in
    it. A caller gives other roots for one call as
    ``f(..., fastaudit_roots=[...])``, a keyword the wrapper removes, so one
    registered function serves many tenants; ``@audited`` alone (or
    ``@audited()``) takes roots only that way. One ``audit_perms`` is made
    per distinct policy per process and reused. What the function returns,
    raises or yields is unchanged, but for what the context refuses. A
    generator runs each step in the context, not the consumer's code
    between steps.
    """
    if callable(roots) and not isinstance(roots, os.PathLike):
        # @audited without parentheses: roots come per call.
        return Audited(None, {'preset': 'data', **mk_audit_kwargs})(roots)
    return Audited(roots, {'preset': 'data', **mk_audit_kwargs})

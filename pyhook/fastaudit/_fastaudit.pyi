# SPDX-License-Identifier: Apache-2.0
"""Types of fastaudit._fastaudit, the C extension: the hook, contexts and call monitor."""
from collections.abc import Callable, Iterable
from os import PathLike
from types import CodeType, FrameType, TracebackType
from typing import Any, Final, Literal, TypeAlias, TypedDict, final, overload, type_check_only

from .core import Learner, TrackedCall

_StrPath: TypeAlias = str | PathLike[str]
_AnyPath: TypeAlias = str | bytes | PathLike[str] | PathLike[bytes]
_Calls: TypeAlias = tuple[TrackedCall, ...]

# before_deny(event, args, frame, msg, data, calls): a true answer allows the
# event (UNCONFINED lets a process start outside the context's roots).
BeforeDeny: TypeAlias = Callable[[str, tuple[Any, ...], FrameType | None, str, Any, _Calls],
                                 object]
# on_call(caller, callee, fn, code, offset, data, calls): False allows the
# call, sys.monitoring.DISABLE stops monitoring its site, anything else lets
# it be audited.
OnCall: TypeAlias = Callable[[str, str, Any, CodeType, int, Any, _Calls], object]

Symlinks: TypeAlias = Literal['trust', 'beneath', 'nofollow']

MONITORING: Final[int]

@final
@type_check_only
class Unconfined:
    """before_deny's answer for a process start that is to run outside the context's roots."""

UNCONFINED: Final[Unconfined]

@type_check_only
class DenialInfo(TypedDict):
    """AuditDenied.fastaudit, and the same keys on an OSError of a call libfashim.so refused."""
    layer: Literal['hook', 'libc']
    rule: str | None
    fix: str | None

class AuditDenied(PermissionError):
    """A refusal of fastaudit's audit hook or call monitor; str() is the fastaudit API's message."""
    event: str | None
    fix: str | None
    fastaudit: DenialInfo | None
    path: str | bytes | int | None
    resolved: str | None
    rule: str | None
    op: str | None
    roots: tuple[str, ...] | None

@final
@type_check_only
class audit_context:
    """One use of an audit context: ``with audit_perms():``."""
    def __enter__(self) -> None: ...
    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None, /) -> Literal[False]: ...

@final
@type_check_only
class audit_perms:
    """What mk_audit returns: call it for a context manager that enforces the policy."""
    def __call__(self) -> audit_context: ...
    def set_data(self, d: Any, /) -> Any: ...
    def add_imports(self, *mods: str) -> tuple[str, ...]: ...
    def learned(self) -> Learner: ...

@overload
def mk_audit(
    roots: Iterable[_AnyPath] | None,
    before_deny: BeforeDeny | None = None,
    on_call: OnCall | None = None,
    data: Any = None,
    tool_id: int = 3,
    monitor_calls: bool = ...,  # True; with preset, where the Python has a call monitor
    allow_imports: Iterable[str] = (),
    *,
    native: Literal['auto', 'require'] = 'auto',
    allow_outside_symlinks: bool = False,
    native_calls: Literal['audit', 'libc'] | None = None,
    policy: _AnyPath | None = None,
    learn: bool = False,
    symlinks: Symlinks | None = None,
    preset: Literal['data'] | None = None,
    threads: Literal['deny', 'context'] | None = None,
    trust_imports: Literal['named', 'stdlib', 'installed'] | None = None,
    deny: Iterable[_AnyPath] = (),
    deny_read: Iterable[_AnyPath] = (),
) -> audit_perms:
    """Install the audit hook (once) and return an audit_perms context factory."""
@overload
def mk_audit(
    *,
    before_deny: BeforeDeny | None = None,
    on_call: OnCall | None = None,
    data: Any = None,
    tool_id: int = 3,
    monitor_calls: bool = ...,  # True; with preset, where the Python has a call monitor
    allow_imports: Iterable[str] = (),
    native: Literal['auto', 'require'] = 'auto',
    allow_outside_symlinks: bool = False,
    native_calls: Literal['audit', 'libc'] | None = None,
    policy: _AnyPath,
    learn: bool = False,
    symlinks: Symlinks | None = None,
    preset: Literal['data'] | None = None,
    threads: Literal['deny', 'context'] | None = None,
    trust_imports: Literal['named', 'stdlib', 'installed'] | None = None,
    deny: Iterable[_AnyPath] = (),
    deny_read: Iterable[_AnyPath] = (),
) -> audit_perms:
    """With no roots, the roots of the policy file."""

@type_check_only
class NativeDenial(TypedDict):
    """A write or process start libfashim.so refused: the keys of its log line."""
    time: str
    seq: int
    pid: int
    tid: int
    call: str
    op: str
    path: str | None
    resolved: str | None
    path2: str | None
    resolved2: str | None
    flags: str | None
    mode: str | None
    rule: str | None
    reason: str | None
    policy: str | None
    enforced: bool
    caller: str | None
    roots: list[str]
    fix: str | None
    approved_by: str | None

@type_check_only
class LibcDenial(NativeDenial):
    """A record of recent_denials() from libfashim.so."""
    layer: Literal['libc']

@type_check_only
class HookDenial(TypedDict):
    """A record of recent_denials() from the audit hook or the call monitor."""
    layer: Literal['hook']
    seq: int
    time: str
    tid: int
    event: str
    message: str
    path: str | bytes | int | None  # as the refused call was given it
    rule: str | None
    op: str | None
    fix: str | None

Denial: TypeAlias = HookDenial | LibcDenial

@type_check_only
class _AuditStateBase(TypedDict):
    safe_native: tuple[str, ...]
    monitoring: bool
    tool_id: int | None
    active: bool
    roots: tuple[str, ...] | None
    monitor_on: int
    live_entries: int
    monitor_calls: bool | None
    import_allow: tuple[str, ...]
    native: bool
    native_reason: str
    native_denial_count: int
    native_denials: list[NativeDenial]
    denials: list[Denial]

@type_check_only
class AuditState(_AuditStateBase, total=False):
    """audit_state()'s snapshot. Inside a context of preset='data' (or of one of
    its modes): how its native calls are judged and why, its thread and import
    modes; inside a learning context: suggested_roots."""
    preset: Literal['data'] | None
    native_calls: Literal['libc', 'audit', 'unchecked']
    native_calls_why: str
    threads: Literal['deny', 'context']
    trust_imports: Literal['named', 'stdlib', 'installed']
    suggested_roots: list[tuple[str, str | None]]

def audit_state() -> AuditState:
    """A debug snapshot of the audit state."""

def recent_denials() -> list[Denial]:
    """Recent denials of every layer, oldest first."""

def native_denials() -> list[NativeDenial]:
    """Recent writes and process starts refused by libfashim.so, oldest first."""

def suggest_roots(paths: Iterable[str], project: _AnyPath | None = None
                  ) -> list[tuple[str, str | None]]:
    """The fewest write roots that allow writing the given absolute paths."""

def lxml_monitor(caller: str, callee: str, fn: Any, code: CodeType, off: int, data: Any,
                 calls: _Calls, /) -> object:
    """The bundled monitor hook for lxml."""

def _learn_read(fd: int, at: int, /
                ) -> tuple[list[tuple[str, str, str, str]], int, int]: ...

def _package(entry_points: Callable[[], tuple[tuple[str, ...], tuple[str, ...], tuple[Any, ...],
                                               tuple[Any, ...], Callable[[], Any]]],
             learner: type[Learner], /) -> None: ...

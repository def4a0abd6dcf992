# SPDX-License-Identifier: Apache-2.0
"""``%load_ext fastaudit``: every cell of an IPython kernel in an audit context.

``%fastaudit on DIR [DIR...]`` makes each later cell (and the rest of the
current one) run inside ``mk_audit([DIR...])``'s context, ``%fastaudit off``
stops, ``%fastaudit`` alone prints the state. See doc/notebooks.md.

How a cell is wrapped. IPython triggers ``pre_execute`` inside
``run_cell_async``, in the ``Context`` the cell's code then runs in (a task of
its own for a cell with top-level ``await``), for silent runs too, and
``post_execute`` once the run is over. The context is entered in the first
and left in the second, so the kernel's own work between cells (its
message loop, heartbeat, iopub and history threads, completion,
inspection) is never audited, and a ``KeyboardInterrupt`` or a cancelled
async cell still ends in ``post_execute``. For an async cell ipykernel
triggers ``post_execute`` from the request's task, not the cell's: the
context is then left inside the cell task's ``Context``
(``Task.get_context()``, 3.12+), where it was entered. An AST transformer
checks, before any of the cell runs, that the context is in force (a cell
whose context could not be entered is not run), and puts a check in front
of IPython's process starts (``!cmd``, ``!!cmd``, ``%sx``, ``%%bash``,
``%%script``, aliases such as ``%ls``) so that a refused one fails with one
line naming the fix, before any process is forked.

Importing this module imports nothing of IPython: the package re-exports
the two extension functions.
"""
from __future__ import annotations

import ast
import os
import shlex
import sys
import threading
from typing import Any, Iterable, List, Optional, Sequence, Tuple

from ._fastaudit import AuditDenied, audit_state, mk_audit, recent_denials

__all__ = ['load_ipython_extension', 'unload_ipython_extension', 'ExecRefused']

# The name the rewritten cells call, in the user namespace's hidden part.
_CHECK_NAME = '_fastaudit_exec'
# Events that start a program, and where their program and arguments are.
_START_EVENTS = {
    'subprocess.Popen': (0, 1),     # executable, args, cwd, env
    'os.exec': (0, 1),              # path, args, env
    'os.posix_spawn': (0, 1),       # path, argv, env
    'os.spawn': (1, 2),             # mode, path, args, env
    'pty.spawn': (None, 0),         # argv
    'os.system': (None, None),      # command
}
_SHELLS = frozenset(('sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish', 'csh',
                     'tcsh'))
# Magics that install packages: they write outside any notebook's roots.
_INSTALLERS = frozenset(('pip', 'conda', 'mamba', 'micromamba', 'uv'))
_SX = frozenset(('sx', 'system', '!'))


class ExecRefused(AuditDenied):
    """A process start from a cell under ``%fastaudit on`` (``!cmd``,
    ``%%bash``, ...), refused before IPython forked: an AuditDenied whose
    event is ``ipython.<method or magic>``, rule ``blocked-event``. IPython
    shows it as its one line, which ends with the fix."""

    def __init__(self, msg: str, *, event: str, fix: Optional[str],
                 roots: Sequence[str]) -> None:
        super().__init__(msg)
        self.event, self.fix, self.rule, self.roots = event, fix, 'blocked-event', tuple(roots)
        self.path = self.resolved = self.op = None
        # the layer refusals made in Python report
        self.fastaudit = {'layer': 'hook', 'rule': 'blocked-event', 'fix': fix}
        note = (f'fastaudit: {event} refused: a cell under %fastaudit on starts no process '
                f'unless --allow-exec names its program (blocked-event)'
                + (f'; to allow: {fix}' if fix else ''))
        self.__notes__ = [note]   # PEP 678, also before 3.11's add_note

    def _render_traceback_(self) -> List[str]:
        return [f'{type(self).__name__}: {self}']


def _first_word(cmd: Any) -> Optional[str]:
    if isinstance(cmd, bytes):
        cmd = os.fsdecode(cmd)
    if not isinstance(cmd, str):
        return None
    try:
        words = shlex.split(cmd)
    except ValueError:
        words = cmd.split()
    return words[0] if words else None


def _started_program(event: str, args: Tuple[Any, ...]) -> Optional[str]:
    """The program a process-start event runs: a shell's ``-c`` command
    counts as its first word, the way ``!cmd`` is run."""
    where = _START_EVENTS.get(event)
    if where is None:
        return None
    exe_at, argv_at = where
    try:
        if event == 'os.system':
            return _first_word(args[0])
        argv = args[argv_at] if argv_at is not None else None
        if isinstance(argv, (str, bytes)):
            argv = [argv]
        argv = [os.fsdecode(a) if isinstance(a, bytes) else a for a in (argv or ())]
        exe = args[exe_at] if exe_at is not None else None
        exe = os.fsdecode(exe) if isinstance(exe, bytes) else exe
        prog = exe if isinstance(exe, str) else (argv[0] if argv else None)
        if (isinstance(prog, str) and os.path.basename(prog) in _SHELLS
                and len(argv) >= 3 and argv[1] == '-c'):
            return _first_word(argv[2])
        return prog if isinstance(prog, str) else None
    except (IndexError, TypeError, ValueError):
        return None


def _allowed(prog: Optional[str], allow: Sequence[str]) -> bool:
    if not prog:
        return False
    for a in allow:
        if '/' in a:
            if '/' in prog and os.path.realpath(prog) == os.path.realpath(a):
                return True
        elif os.path.basename(prog) == a:
            return True
    return False


def _task_context() -> Any:
    """The Context of the running asyncio task (3.12+), else None."""
    asyncio = sys.modules.get('asyncio')   # no task runs before asyncio is imported
    if asyncio is None:
        return None
    try:
        task = asyncio.current_task()
    except RuntimeError:
        return None
    get = getattr(task, 'get_context', None)
    return get() if get is not None else None


def _kernel_transport(caller: Any, callee: Any, fn: Any, code: Any, off: Any, data: Any,
                      calls: Any) -> Optional[bool]:
    """on_call of a strict context: the kernel's own messages (a print, a
    result, a traceback) go out through pyzmq's native sockets while the
    cell runs; they write no file. Binding a socket (an ipc:// path) is
    still refused."""
    if isinstance(callee, str) and callee.startswith('zmq.') and not callee.endswith('.bind'):
        return False
    return None


def _make_audit(roots: Sequence[str], *, strict: bool, allow_imports: Sequence[str],
                require_native: bool, before_deny: Any) -> Any:
    """The one place that says what a notebook's context is.

    The host mode unless strict: preset='data' (native calls judged at libc
    when the shim is loaded, threads carrying the context, installed
    modules trusted while they import).
    """
    kw: dict[str, Any] = {'before_deny': before_deny,
                          'native': 'require' if require_native else 'auto'}
    if allow_imports:
        kw['allow_imports'] = tuple(allow_imports)
    if not strict:
        kw['preset'] = 'data'
    elif sys.version_info >= (3, 12):
        kw['on_call'] = _kernel_transport
    else:
        # No sys.monitoring before 3.12: the strict context without the
        # call monitor, rather than mk_audit's RuntimeError.
        kw['monitor_calls'] = False
    return mk_audit(list(roots), **kw)


class _Run:
    """One run of a cell: the context entered for it, and where."""
    __slots__ = ('prev', 'cm', 'ctx', 'error')

    def __init__(self, prev: Any) -> None:
        self.prev = prev
        self.cm: Any = None
        self.ctx: Any = None
        self.error: Optional[str] = None


class _Session:
    """The extension's state in one shell."""

    def __init__(self, shell: Any) -> None:
        self.shell = shell
        self.on = False
        self.roots: Tuple[str, ...] = ()
        self.strict = False
        self.require_native = False
        self.allow_exec: Tuple[str, ...] = ()
        self.allow_imports: Tuple[str, ...] = ()
        self.audit: Any = None
        self.base: dict[str, int] = {}
        self.local = threading.local()
        self.check = _ExecCheck(self)
        self.gate: Any = None

    # -- runs, per thread (ipykernel's subshells run cells in threads) --
    def runs(self) -> List[_Run]:
        runs = getattr(self.local, 'runs', None)
        if runs is None:
            runs = self.local.runs = []
        return runs

    def top(self) -> Optional[_Run]:
        runs = self.runs()
        return runs[-1] if runs else None

    def audited_now(self) -> bool:
        run = self.top()
        return bool(self.on and run is not None and run.cm is not None
                    and audit_state()['active'])

    def enter(self, run: _Run) -> None:
        run.error = None
        ctx = _task_context()
        try:
            cm = self.audit()
            cm.__enter__()
        except Exception as e:  # the gate refuses the cell
            run.error = f'{type(e).__name__}: {e}'
            raise
        run.cm, run.ctx = cm, ctx

    @staticmethod
    def leave(run: _Run) -> None:
        cm, ctx = run.cm, run.ctx
        run.cm = run.ctx = None
        if cm is None:
            return
        if ctx is not None and ctx is not _task_context():
            # an async cell's task, finished: its Context is free to run in
            ctx.run(cm.__exit__, None, None, None)
            return
        try:
            cm.__exit__(None, None, None)
        except ValueError:
            if sys.version_info >= (3, 12):
                raise
            # 3.10/3.11: entered in an async cell's own task, whose Context
            # no public API reaches; the entry ends when that Context does.

    # -- IPython events --
    def _history_thread(self) -> None:
        # IPython stops its history thread before every fork (!cmd) and
        # starts it again from store_inputs, which runs inside the cell:
        # start it here, outside any context, so that the kernel's thread is
        # neither refused by nor started in a cell's context.
        hm = getattr(self.shell, 'history_manager', None)
        restart = getattr(hm, '_restart_thread_if_stopped', None)
        if restart is not None:
            try:
                restart()
            except Exception:
                pass

    def pre_execute(self) -> None:
        self._history_thread()
        run = _Run(getattr(self.shell, 'last_execution_result', None))
        self.runs().append(run)
        if self.shell.user_ns.get(_CHECK_NAME) is not self.check:  # after a %reset
            self.shell.push({_CHECK_NAME: self.check}, interactive=False)
        if self.on:
            try:
                self.enter(run)
            except Exception:
                pass  # run.error says why; the gate refuses the cell

    def post_execute(self) -> None:
        runs = self.runs()
        if not runs:
            return
        cur = getattr(self.shell, 'last_execution_result', None)
        raw = getattr(getattr(cur, 'info', None), 'raw_cell', None)
        if (cur is not None and cur is not runs[-1].prev and isinstance(raw, str)
                and (not raw or raw.isspace())):
            # an empty cell: IPython returned before its pre_execute
            return
        self.leave(runs.pop())
        self._history_thread()

    # -- the magic's actions --
    def turn_on(self, roots: Sequence[str], strict: bool, allow_exec: Sequence[str],
                allow_imports: Sequence[str], require_native: bool) -> None:
        run = self.top()
        # a context cannot make another: leave this cell's first
        if run is not None:
            self.leave(run)
        try:
            audit = _make_audit(roots, strict=strict, allow_imports=allow_imports,
                                require_native=require_native, before_deny=self.before_deny)
        except (ValueError, TypeError, RuntimeError, OSError) as e:
            if run is not None and self.on:
                self.enter(run)
            hint = ''
            if require_native and isinstance(e, RuntimeError):
                hint = ("; or start this notebook on the kernel 'python -m fastaudit kernel "
                        "install' installs")
            raise _usage(f'%fastaudit on: {e}{hint}') from None
        self.audit, self.on = audit, True
        self.roots, self.strict = tuple(roots), strict
        self.allow_exec, self.allow_imports = tuple(allow_exec), tuple(allow_imports)
        self.require_native = require_native
        self.base = _denial_marks()
        if run is not None:
            self.enter(run)

    def turn_off(self) -> None:
        run = self.top()
        if run is not None:
            self.leave(run)
        self.on, self.audit = False, None

    def before_deny(self, event: str, args: Any, frame: Any, msg: Any, data: Any,
                    calls: Any) -> bool:
        """Approves a process start of a program given to --allow-exec (it
        still runs confined to the roots when the shim is loaded)."""
        if not self.allow_exec or event not in _START_EVENTS:
            return False
        return _allowed(_started_program(event, tuple(args)), self.allow_exec)

    def command(self, extra_exec: Optional[str] = None) -> str:
        words = ['%fastaudit', 'on'] + [shlex.quote(r) for r in self.roots]
        if self.strict:
            words.append('--strict')
        if self.require_native:
            words.append('--require-native')
        for p in self.allow_imports:
            words += ['--allow-imports', shlex.quote(p)]
        for p in self.allow_exec + ((extra_exec,) if extra_exec else ()):
            words += ['--allow-exec', shlex.quote(p)]
        return ' '.join(words)

    def status(self) -> str:
        st = audit_state()
        if st['native']:
            native = f"on ({st['native_reason']})"
        else:
            native = (f"off ({st['native_reason']}; a kernel from "
                      f"'python -m fastaudit kernel install' has it loaded)")
        if not self.on:
            return ('fastaudit: off: cells run unaudited; %fastaudit on DIR [DIR...] '
                    'to audit them\n'
                    f'  native checks: {native}')
        mode = ("strict (mk_audit's defaults)" if self.strict
                else "host mode (preset='data')")
        count, last = _denials_since(self.base)
        lines = [
            f'fastaudit: on: every cell runs in an audit context, {mode}',
            f"  roots: {', '.join(self.roots)}",
            f'  native checks: {native}',
            f"  programs cells may start: {', '.join(self.allow_exec) or 'none'}",
        ]
        if self.allow_imports:
            lines.append(f"  imports trusted: {', '.join(self.allow_imports)}")
        lines.append(f'  denials since on: {count}')
        if last is not None:
            lines.append(f'  last: {last}')
        return '\n'.join(lines)


def _denial_marks() -> dict[str, int]:
    marks: dict[str, int] = {}
    for d in recent_denials():
        layer, seq = d.get('layer'), d.get('seq')
        if isinstance(layer, str) and isinstance(seq, int):
            marks[layer] = max(marks.get(layer, 0), seq)
    return marks


def _denials_since(base: dict[str, int]) -> Tuple[int, Optional[str]]:
    count, last, last_time = 0, None, ''
    now = _denial_marks()
    for layer, seq in now.items():
        count += max(0, seq - base.get(layer, 0))
    for d in recent_denials():
        if d.get('seq', 0) > base.get(d.get('layer', ''), 0) and d.get('time', '') >= last_time:
            last_time = d.get('time', '')
            what = d.get('message') or (f"{d.get('call')} {d.get('path')!r}: {d.get('reason')}")
            last = str(what).splitlines()[0]
            if d.get('fix'):
                last += f"; to allow: {d['fix']}"
    return count, last


def _usage(msg: str) -> Exception:
    from IPython.core.error import UsageError
    return UsageError(msg)


class _ExecCheck:
    """Called by rewritten cells just before IPython starts a process:
    returns its argument unchanged, or raises ExecRefused."""

    def __init__(self, session: _Session) -> None:
        self.session = session

    def __repr__(self) -> str:
        return '<fastaudit exec check>'

    def __call__(self, kind: str, arg: Any, name: Optional[str] = None,
                 cell: Any = None) -> Any:
        s = self.session
        if not s.audited_now():
            return arg
        shell = s.shell
        prog: Optional[str] = None
        if kind in ('system', 'getoutput', 'system_piped', 'system_raw'):
            what = '!' + str(arg)
            try:
                prog = _first_word(shell.var_expand(arg, depth=1))
            except Exception:
                prog = _first_word(arg)
        elif kind == 'run_line_magic':
            what = f'%{name} {arg}'.rstrip()
            magic = shell.magics_manager.magics['line'].get(name)
            from IPython.core.alias import Alias
            if isinstance(magic, Alias):
                prog = _first_word(magic.cmd)
            elif name in _SX:
                prog = _first_word(arg)
            elif name in _INSTALLERS:
                raise ExecRefused(
                    f'fastaudit: {what}: process starts are refused in the audit context, '
                    f'and installing writes outside its roots: run it after %fastaudit off',
                    event=f'ipython.%{name}', fix='%fastaudit off', roots=s.roots)
            else:
                return arg
        elif kind == 'run_cell_magic':
            what = f'%%{name} {arg}'.rstrip()
            try:   # IPython 9 loads its magics classes when first asked
                script = shell.magics_manager.registry['ScriptMagics']
            except KeyError:
                script = None
            if name in _SX:
                prog = _first_word(cell)
            elif script is not None and name in script.magics.get('cell', {}):
                prog = (_script_program(arg) if name == 'script'
                        else _first_word(script.script_paths.get(name, name)))
            else:
                return arg
        else:
            return arg
        if _allowed(prog, s.allow_exec):
            return arg
        event = f'ipython.{kind}' + (f'({name})' if name else '')
        if prog:
            fix = s.command(os.path.basename(prog))
            raise ExecRefused(f'fastaudit: {what}: starting {prog} is refused in the audit '
                              f'context; to allow it: {fix}', event=event, fix=fix,
                              roots=s.roots)
        raise ExecRefused(f'fastaudit: {what}: process starts are refused in the audit '
                          f'context; to allow one: %fastaudit on ... --allow-exec PROG',
                          event=event, fix=None, roots=s.roots)


def _script_program(line: Any) -> Optional[str]:
    """The program of %%script's line, past its options."""
    try:
        words = shlex.split(str(line))
    except ValueError:
        words = str(line).split()
    it = iter(words)
    for w in it:
        if w in ('--proc', '--out', '--err'):
            next(it, None)
        elif not w.startswith('-'):
            return w
    return None


def _gate_class() -> Any:
    class Gate(ast.NodeTransformer):
        """Refuses a cell whose context is not in force, and puts the exec
        check in front of IPython's process starts."""

        def __init__(self, session: _Session) -> None:
            self.session = session

        def visit_Module(self, node: ast.Module) -> Any:
            s = self.session
            run = s.top()
            if s.on and run is not None and not s.audited_now():
                from IPython.core.error import InputRejected
                why = run.error or 'its context is not in force'
                raise InputRejected(f'fastaudit: the cell was not run: {why}')
            return self.generic_visit(node)

        def visit_Call(self, node: ast.Call) -> Any:
            self.generic_visit(node)
            f = node.func
            if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Call)
                    and isinstance(f.value.func, ast.Name)
                    and f.value.func.id == 'get_ipython' and not f.value.args
                    and node.args):
                return node
            kind = f.attr
            if kind in ('system', 'getoutput', 'system_piped', 'system_raw'):
                node.args[0] = self._check(node.args[0], kind)
            elif kind in ('run_line_magic', 'run_cell_magic') and len(node.args) >= 2:
                name = node.args[0]
                if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
                    return node
                extra: List[ast.expr] = [ast.Constant(name.value)]
                if kind == 'run_cell_magic' and len(node.args) >= 3:
                    cell = node.args[2]
                    extra.append(cell if isinstance(cell, ast.Constant) else ast.Constant(None))
                node.args[1] = self._check(node.args[1], kind, extra)
            return node

        @staticmethod
        def _check(arg: ast.expr, kind: str, extra: Iterable[ast.expr] = ()) -> ast.expr:
            call = ast.Call(func=ast.Name(_CHECK_NAME, ast.Load()),
                            args=[ast.Constant(kind), arg, *extra], keywords=[])
            return ast.copy_location(call, arg)

    return Gate


def _magics_class(session: _Session) -> Any:
    # IPython has no type hints: its decorators are used through Any
    from IPython.core import magic as _magic, magic_arguments as _margs
    m: Any = _magic
    a: Any = _margs
    argument = a.argument

    @m.magics_class
    class FastauditMagics(m.Magics):  # type: ignore[misc]
        @a.magic_arguments()  # type: ignore[untyped-decorator]
        @argument(  # type: ignore[untyped-decorator]
                  'action', nargs='?', choices=('on', 'off'),
                  help='on: audit every cell from here on; off: stop; none: print the state')
        @argument('dirs', nargs='*', metavar='DIR',  # type: ignore[untyped-decorator]
                  help='the roots: where cells may write (on needs at least one)')
        @argument('--strict', action='store_true',  # type: ignore[untyped-decorator]
                  help="mk_audit's strict defaults: calls into undeclared native code and "
                       'thread starts refused, instead of the host mode')
        @argument(  # type: ignore[untyped-decorator]
                  '--allow-exec', action='append', default=[], metavar='PROG',
                  help='let cells start PROG (a name, or a path), with !PROG, %%%%bash for '
                       'bash, subprocess; it runs confined to the roots. Repeatable')
        @argument(  # type: ignore[untyped-decorator]
                  '--allow-imports', action='append', default=[], metavar='PKG',
                  help='trust PKG while it imports (mk_audit allow_imports). Repeatable')
        @argument(  # type: ignore[untyped-decorator]
                  '--require-native', action='store_true',
                  help='refuse to turn on unless native checks are on (libfashim.so loaded)')
        @m.line_magic  # type: ignore[untyped-decorator]
        def fastaudit(self, line: str = '') -> None:
            """Run every cell in a fastaudit audit context.

            %fastaudit on DIR [DIR...] [--strict] [--allow-exec PROG]... [--allow-imports PKG]...
                [--require-native]
            %fastaudit off
            %fastaudit

            With on, every later cell (and the rest of this one) runs in
            mk_audit([DIR...], preset='data')'s context (--strict: mk_audit's
            defaults): writes outside the roots are refused with an AuditDenied
            whose note names the fix; !cmd, %%bash and the like fail with one
            line naming --allow-exec. With the kernel from 'python -m fastaudit
            kernel install' (libfashim.so loaded) native writes are judged too.
            Alone, it prints the state: roots, native checks on or off, denials
            since on. See doc/notebooks.md.
            """
            args = a.parse_argstring(self.fastaudit, line)
            opts = args.strict or args.allow_exec or args.allow_imports or args.require_native
            if args.action is None:
                if args.dirs or opts:
                    raise _usage('%fastaudit: say on: %fastaudit on DIR [DIR...] [options]')
                print(session.status())
            elif args.action == 'off':
                if args.dirs or opts:
                    raise _usage('%fastaudit off takes no directories or options')
                was = session.on
                session.turn_off()
                print('fastaudit: off: cells run unaudited' if was
                      else 'fastaudit: already off')
            else:
                if not args.dirs:
                    raise _usage('%fastaudit on needs at least one directory: '
                                 '%fastaudit on DIR [DIR...] [options]')
                for d in args.dirs:
                    if not os.path.isdir(os.path.expanduser(d)):
                        raise _usage(f'%fastaudit on: {d!r} is not a directory')
                for p in args.allow_exec:
                    if not p or p != p.strip() or (p != '/' and p.endswith('/')):
                        raise _usage(f'%fastaudit on: --allow-exec takes a program name or '
                                     f'path, not {p!r}')
                session.turn_on(args.dirs, args.strict, args.allow_exec, args.allow_imports,
                                args.require_native)
                print(session.status())

    return FastauditMagics


_SESSIONS: dict[int, _Session] = {}


def load_ipython_extension(ipython: Any) -> None:
    """%load_ext fastaudit: the %fastaudit magic, and the cell wrapping it
    turns on."""
    if id(ipython) in _SESSIONS:
        return
    s = _Session(ipython)
    s.gate = _gate_class()(s)
    ipython.events.register('pre_execute', s.pre_execute)
    ipython.events.register('post_execute', s.post_execute)
    ipython.ast_transformers.append(s.gate)
    ipython.register_magics(_magics_class(s)(ipython))
    ipython.push({_CHECK_NAME: s.check}, interactive=False)
    _SESSIONS[id(ipython)] = s


def unload_ipython_extension(ipython: Any) -> None:
    """%unload_ext fastaudit: off, and everything load added removed."""
    s = _SESSIONS.pop(id(ipython), None)
    if s is None:
        return
    s.turn_off()
    ipython.events.unregister('pre_execute', s.pre_execute)
    ipython.events.unregister('post_execute', s.post_execute)
    if s.gate in ipython.ast_transformers:
        ipython.ast_transformers.remove(s.gate)
    ipython.user_ns.pop(_CHECK_NAME, None)
    ipython.user_ns_hidden.pop(_CHECK_NAME, None)
    mm = ipython.magics_manager
    mm.magics['line'].pop('fastaudit', None)
    mm.registry.pop('FastauditMagics', None)


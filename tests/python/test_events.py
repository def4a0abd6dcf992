# SPDX-License-Identifier: Apache-2.0
"""Event classes: allows, setattr, environment, threads, processes, host policy."""
import asyncio
import collections
import dataclasses
import os
import subprocess
import sys
import threading
import traceback

import pytest

from conftest import MON
from fastaudit import track_call


def test_process_creation_denied(mk, root):
    ap = mk([root])
    with ap():
        with pytest.raises(PermissionError, match=r'Audit: subprocess\.Popen blocked in sandbox with args: '):
            subprocess.run(['true'])
        with pytest.raises(PermissionError, match=r'os\.system blocked'):
            os.system('true')
        with pytest.raises(PermissionError, match=r'os\.posix_spawn blocked'):
            os.posix_spawn('/bin/true', ['true'], os.environ)
        with pytest.raises(PermissionError, match=r'os\.exec blocked'):
            os.execv('/bin/true', ['true'])


def test_approved_popen_starts_by_whatever_route_subprocess_takes(mk, root):
    """Approving subprocess.Popen approves the start it makes next, through
    os.posix_spawn (a program named by a path, since 3.13 with close_fds
    too) or _posixsubprocess.fork_exec (an audit event from 3.14); a start of
    its own is still refused, before and after."""
    asked = []

    def before_deny(event, args, *rest):
        asked.append(event)
        return event == 'subprocess.Popen'
    ap = mk([root], before_deny=before_deny)
    with ap():
        with pytest.raises(PermissionError, match=r'os\.posix_spawn blocked'):
            os.posix_spawn('/bin/true', ['true'], os.environ)
        assert subprocess.run(['/bin/true']).returncode == 0
        assert subprocess.run(['/bin/true'], close_fds=False).returncode == 0
        assert subprocess.run(['true']).returncode == 0
        with pytest.raises(PermissionError, match=r'os\.posix_spawn blocked'):
            os.posix_spawn('/bin/true', ['true'], os.environ)
    assert asked == ['os.posix_spawn'] + ['subprocess.Popen'] * 3 + ['os.posix_spawn']


def test_message_and_call_chain(mk, root):
    ap = mk([root])

    def inner():
        sys.audit('my.custom.event', 1, 'two')

    def outer():
        inner()
    with ap():
        with pytest.raises(PermissionError) as ei:
            outer()
    msg = str(ei.value)
    assert msg.startswith("Audit: my.custom.event blocked in sandbox with args: (1, 'two')\nCall chain: ")
    chain = msg.split('Call chain: ')[1]
    assert chain.endswith('test_events.test_message_and_call_chain.<locals>.outer -> '
                          'test_events.test_message_and_call_chain.<locals>.inner') or \
        sys.version_info < (3, 11)
    assert 'Audit context entered' not in msg   # same stack: no origin note
    names = [f.name for f in traceback.extract_tb(ei.value.__traceback__)]
    assert names[-1] == 'inner'
    pkg = os.path.dirname(__import__('fastaudit').__file__)
    assert not any(f.filename.startswith(pkg) for f in traceback.extract_tb(ei.value.__traceback__))


class _Odd:
    def __repr__(self):
        return 'odd \u20ac'


@pytest.mark.parametrize('args', [(), (1,), ('q"uo\'te',), ((1, (2,)), [3], {'k': None}),
                                  tuple(range(20)), (b'\xff', _Odd(), 'é')])
def test_message_args_are_repr(mk, root, args):
    ap = mk([root])
    with ap():
        with pytest.raises(PermissionError) as ei:
            sys.audit('ev.\u00e9', *args)
    first = str(ei.value).split('\n')[0]
    assert first == f'Audit: ev.\u00e9 blocked in sandbox with args: {args!r}'


def test_allowed_events_and_prefixes(mk, root):
    ap = mk([root])
    with ap():
        for ev in ('exec', 'import', 'os.listdir', 'socket.gethostname', 'gc.collect',
                   'fcntl.flock', 'marshal.dumps', 'sys.set_asyncgen_hook_firstiter',
                   'sys.set_asyncgen_hook_finalizer', 'time.sleep', 'os.utime'):
            sys.audit(ev)
        for ev in ('http.client.connect', 'socket.connect', 'ctypes.dlopen', 'gcx',
                   'os.kill', 'fastaudit.call'):
            with pytest.raises(PermissionError):
                sys.audit(ev, 'x', 'y', 'z')


def test_setattr_rules(mk, root):
    ap = mk([root])

    def f(a=1, *, b=2):
        return a
    with ap():
        @dataclasses.dataclass
        class D:
            x: int
        P = collections.namedtuple('P', 'x y')
        assert P(1, 2).x == 1 and D(1).x == 1

        class C:
            pass
        C.__name__ = 'C2'
        C.__qualname__ = 'C2'
        C.__doc__ = 'doc'
        C.x = 1
        f.__defaults__ = (3,)
        with pytest.raises(PermissionError, match=r'object\.__setattr__ blocked'):
            f.__code__ = (lambda: 0).__code__
        with pytest.raises(PermissionError, match=r'object\.__setattr__ blocked'):
            f.__kwdefaults__ = {'b': 5}
    assert f() == 3 and f.__kwdefaults__ == {'b': 2}


def test_environment_rules(mk, root):
    seen = []

    def before_deny(event, args, frame, msg, data, calls):
        seen.append((event, args))
        return data == 'allow-env'
    ap = mk([root], before_deny=before_deny)
    old_path = os.environ['PATH']
    try:
        with ap():
            os.environ['MY_TEST_HARMLESS'] = '1'
            del os.environ['MY_TEST_HARMLESS']
            os.environ['MY_SETTING'] = 'x'
            for k in ('PATH', 'LD_LIBRARY_PATH', 'HOME', 'PYTHONPATH', 'PIP_INDEX_URL', 'UV_X',
                      'tmpdir', 'LD_PRELOAD', 'FA_POLICY'):
                with pytest.raises(PermissionError, match=r'os\.putenv blocked'):
                    os.environ[k] = '/evil'
            with pytest.raises(PermissionError, match=r'os\.unsetenv blocked'):
                del os.environ['PATH']
        assert os.environ['PATH'] == old_path
        ap.set_data('allow-env')
        with ap():
            os.environ['VIRTUAL_ENV'] = '/venv'
        assert os.environ['VIRTUAL_ENV'] == '/venv'
        assert ('os.putenv', (b'PATH', b'/evil')) in seen
    finally:
        os.environ.pop('VIRTUAL_ENV', None)
        os.environ.pop('MY_SETTING', None)


@pytest.mark.skipif(not MON, reason='CPython raises thread events from 3.12')
def test_thread_rule(mk, root):
    ap = mk([root])
    with ap():
        t = threading.Thread(target=lambda: None)
        with pytest.raises(PermissionError, match=r'_thread\.start_(new|joinable)_thread blocked'):
            t.start()

        async def main():
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(None, lambda: threading.current_thread().name)
        assert asyncio.run(main()).startswith('asyncio_')


def test_asyncio_run_inside_context(mk, root):
    ap = mk([root])

    async def agen():
        yield 1

    async def main():
        async for x in agen():
            return x
    with ap():
        assert asyncio.run(main()) == 1


def test_before_deny_arguments_and_results(mk, root, outside):
    calls = []

    def before_deny(event, args, frame, msg, data, tracked):
        calls.append((event, args, frame, msg, data, tracked))
        if event == 'raise.me':
            raise KeyError('from host')
        return event == 'allowed.by.host'

    ap = mk([root], before_deny=before_deny, data={'k': 1})

    def user_code():
        sys.audit('allowed.by.host', 42)
        with pytest.raises(PermissionError):
            sys.audit('denied.by.host')
        with pytest.raises(KeyError):
            sys.audit('raise.me')
        with pytest.raises(PermissionError):
            open(outside / 'f', 'w')
    with ap():
        user_code()
    ev, args, frame, msg, data, tracked = calls[0]
    assert ev == 'allowed.by.host' and args == (42,) and data == {'k': 1} and tracked == ()
    assert frame.f_code.co_name == 'user_code'
    assert msg.startswith('Audit: allowed.by.host blocked in sandbox')
    assert calls[-1][0] == 'open' and calls[-1][3].startswith('open ')


def test_packaged_audit_hook(mk, root):
    ap = mk([root])
    with ap():
        sys.audit('fa_test.allowed_by_package_hook')
        with pytest.raises(PermissionError):
            sys.audit('fa_test.not_allowed')


def test_host_allows_path_write(mk, root, outside):
    ap = mk([root], before_deny=lambda ev, args, *rest: ev == 'open' and 'ok' in str(args[0]))
    with ap():
        open(outside / 'ok', 'w').close()
        with pytest.raises(PermissionError):
            open(outside / 'no', 'w')
    assert (outside / 'ok').exists()


def test_tracked_call_grants_subprocess(mk, root):
    def before_deny(event, args, frame, msg, data, calls):
        return event == 'subprocess.Popen' and any(c.name.endswith('trusted_tool') for c in calls)

    @track_call
    async def trusted_tool():
        return subprocess.run(['true']).returncode

    async def plain():
        return subprocess.run(['true']).returncode

    async def main():
        assert await trusted_tool() == 0
        with pytest.raises(PermissionError):
            await plain()
    ap = mk([root], before_deny=before_deny)
    with ap():
        asyncio.run(main())


def test_tracked_call_inactive_after_return(mk):
    from fastaudit import active_calls
    holder = {}

    @track_call
    async def tool():
        holder['task'] = asyncio.ensure_future(later())
        assert [c.qualname for c in active_calls()] == ['test_tracked_call_inactive_after_return.<locals>.tool']

    async def later():
        await asyncio.sleep(0.01)
        return active_calls()

    async def main():
        await tool()
        return await holder['task']
    assert asyncio.run(main()) == ()
    assert track_call(len) is len
    assert track_call(tool) is tool

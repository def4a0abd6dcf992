# SPDX-License-Identifier: Apache-2.0
"""Native writes checked inside audit contexts, with libfashim.so preloaded.

Each case runs a fresh interpreter under LD_PRELOAD (the shim must be there
from the start) and reports what happened as JSON.
"""
import json
import os
import subprocess
import sys
import textwrap

import pytest

SHIM = os.environ.get('FA_SHIM') or os.path.join(
    os.environ.get('FA_BUILDDIR', ''), 'src', '.libs', 'libfashim.so')

pytestmark = pytest.mark.skipif(not os.path.exists(SHIM), reason='libfashim.so not built')

PRELUDE = '''
import asyncio, json, os, subprocess, sys
import fa_probe
from fastaudit import mk_audit, audit_state, track_call
root, out = sys.argv[1], sys.argv[2]
res = {}
def attempt(key, fn, *a):
    try:
        r = fn(*a)
        res[key] = 'ok' if r is None or r is True or (type(r) is int and r == 0) else repr(r)
    except OSError as e:
        # the audit hook raises PermissionError(msg), libc failures carry errno
        res[key] = 'PermissionError' if e.errno is None else 'errno %d' % e.errno
'''


def run(native_mods, root, outside, body, preload=True):
    probe_dir = os.path.dirname(native_mods[0].__file__)
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join([probe_dir] + sys.path)
    if preload:
        env['LD_PRELOAD'] = SHIM
    else:
        env.pop('LD_PRELOAD', None)
    code = PRELUDE + textwrap.dedent(body) + '\nprint(json.dumps(res))\n'
    p = subprocess.run([sys.executable, '-c', code, str(root), str(outside)], env=env,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.splitlines()[-1])


def test_native_writes_inside_context(native_mods, root, outside):
    r = run(native_mods, root, outside, '''
        ap = mk_audit([root], monitor_calls=False)
        res['native'] = audit_state()['native']
        with ap():
            attempt('in_gil', fa_probe.write_file, root + '/a', 'x')
            attempt('in_nogil', fa_probe.write_file_nogil, root + '/b', 'x')
            attempt('out_gil', fa_probe.write_file, out + '/a', 'x')
            attempt('out_nogil', fa_probe.write_file_nogil, out + '/b', 'x')
            attempt('thread_out', fa_probe.thread_write, out + '/t')
            attempt('thread_in', fa_probe.thread_write, root + '/t')
            attempt('system', fa_probe.run_system, 'true')
        attempt('after_gil', fa_probe.write_file, out + '/c', 'x')
        attempt('after_nogil', fa_probe.write_file_nogil, out + '/d', 'x')
        d = audit_state()['native_denials']
        res['denial'] = [x['path'] for x in d if x['policy'] == 'context'][:1]
        res['count'] = audit_state()['native_denial_count']
    ''')
    assert r['native'] is True
    assert r['in_gil'] == r['in_nogil'] == r['thread_in'] == 'ok'
    assert r['out_gil'] == r['out_nogil'] == 'errno 13'
    assert r['thread_out'] == 'False'
    assert r['system'] != 'ok'
    assert r['after_gil'] == r['after_nogil'] == 'ok'
    assert r['denial'] and r['denial'][0].startswith(str(outside)) and r['count'] >= 3
    assert sorted(os.listdir(outside)) == ['c', 'd']
    assert sorted(os.listdir(root)) == ['a', 'b', 't']


def test_host_approval_not_denied_again(native_mods, root, outside):
    r = run(native_mods, root, outside, '''
        def before_deny(event, args, frame, msg, data, calls):
            return event == 'open' and str(args[0]).endswith('approved')
        ap = mk_audit([root], before_deny=before_deny, monitor_calls=False)
        with ap():
            attempt('approved', lambda: open(out + '/approved', 'w').close())
            attempt('plain', lambda: open(out + '/plain', 'w').close())
    ''')
    assert r == {'approved': 'ok', 'plain': 'PermissionError'}
    assert os.listdir(outside) == ['approved']


def test_tracked_tool_spawns_plain_code_cannot(native_mods, root, outside):
    r = run(native_mods, root, outside, '''
        def before_deny(event, args, frame, msg, data, calls):
            return event == 'subprocess.Popen' and any(c.name.endswith('tool') for c in calls)
        @track_call
        async def tool():
            return subprocess.run(['echo', 'hi'], capture_output=True).stdout
        async def main():
            res['tool'] = (await tool()).decode().strip()
            attempt('plain', subprocess.run, ['echo', 'hi'])
            attempt('native', fa_probe.run_system, 'echo hi >/dev/null')
        ap = mk_audit([root], before_deny=before_deny, monitor_calls=False)
        with ap():
            asyncio.run(main())
    ''')
    assert r['tool'] == 'hi'
    assert r['plain'] == 'PermissionError'
    assert r['native'] != 'ok'


def test_interleaved_tasks_native(native_mods, root, outside):
    r = run(native_mods, root, outside, '''
        ap = mk_audit([root], monitor_calls=False)
        async def audited(i):
            with ap():
                for k in range(3):
                    attempt(f'aud{i}{k}', fa_probe.write_file, out + f'/aud{i}{k}', 'x')
                    await asyncio.sleep(0)
                    attempt(f'audng{i}{k}', fa_probe.write_file_nogil, out + f'/audng{i}{k}', 'x')
                    await asyncio.sleep(0)
        async def free(i):
            for k in range(3):
                attempt(f'free{i}{k}', fa_probe.write_file, out + f'/free{i}{k}', 'x')
                await asyncio.sleep(0)
                attempt(f'freeng{i}{k}', fa_probe.write_file_nogil, out + f'/freeng{i}{k}', 'x')
                await asyncio.sleep(0)
        async def main():
            await asyncio.gather(audited(0), free(0), audited(1), free(1))
        asyncio.run(main())
    ''')
    # Each task's Context was seen with the GIL held in its first step, so
    # later steps get the right answer even with the GIL released.
    for k, v in r.items():
        assert v == ('errno 13' if k.startswith('aud') else 'ok'), (k, r)
    assert sorted(os.listdir(outside)) == sorted(k for k in r if k.startswith('free'))


def test_unobserved_context_gil_released_first_call(native_mods, root, outside):
    """A Context whose very first libc call is made with the GIL released,
    with no audit event, no GIL-held libc call and no monitored call before
    it: the bridge reads the Context's variable itself, without the GIL."""
    r = run(native_mods, root, outside, '''
        ap = mk_audit([root], monitor_calls=False)
        async def first_nogil():
            attempt('unobserved', fa_probe.write_file_nogil, out + '/u', 'x')
        async def main():
            with ap():
                t = asyncio.ensure_future(first_nogil())
            await t
        asyncio.run(main())
    ''')
    assert r['unobserved'] == 'errno 13'
    assert os.listdir(outside) == []


def test_context_run_of_native_code(native_mods, root, outside):
    """Context.run of native code that releases the GIL before its first
    libc call, in a Context never current on the thread before: exact both
    ways, on every version, with no event watched for the switch."""
    r = run(native_mods, root, outside, '''
        import contextvars
        ap = mk_audit([root], monitor_calls=False)
        free = contextvars.copy_context()
        with ap():
            audited = contextvars.copy_context()
            attempt('free_in_context', free.run, fa_probe.write_file_nogil, out + '/f', 'x')
        attempt('audited_outside', audited.run, fa_probe.write_file_nogil, out + '/a', 'x')
    ''')
    assert r == {'free_in_context': 'ok', 'audited_outside': 'errno 13'}
    assert os.listdir(outside) == ['f']


def test_context_of_many_variables_read_without_the_gil(native_mods, root, outside):
    """The entry found among hundreds of other variables of the Context (a
    HAMT whose root is an array node over bitmap nodes), by native code
    that released the GIL in a Context never current on the thread."""
    r = run(native_mods, root, outside, '''
        import contextvars
        others = [contextvars.ContextVar('v%d' % i) for i in range(300)]
        ap = mk_audit([root], monitor_calls=False)
        def fill():
            for i, v in enumerate(others):
                v.set(i)
        with ap():
            fill()
            audited = contextvars.copy_context()
        free = contextvars.copy_context()
        free.run(fill)
        attempt('audited', audited.run, fa_probe.write_file_nogil, out + '/a', 'x')
        attempt('free', free.run, fa_probe.write_file_nogil, out + '/f', 'x')
        attempt('audited_in_root', audited.run, fa_probe.write_file_nogil, root + '/r', 'x')
    ''')
    assert r == {'audited': 'errno 13', 'free': 'ok', 'audited_in_root': 'ok'}
    assert os.listdir(outside) == ['f']


def test_many_interleaved_tasks_gil_released_only(native_mods, root, outside):
    """More tasks than the shim's per-thread memory of Contexts, each making
    only GIL-released native writes, right after every task switch."""
    r = run(native_mods, root, outside, '''
        ap = mk_audit([root], monitor_calls=False)
        async def audited(i):
            with ap():
                for k in range(3):
                    await asyncio.sleep(0)
                    attempt(f'aud{i}-{k}', fa_probe.write_file_nogil, out + f'/aud{i}-{k}', 'x')
        async def free(i):
            for k in range(3):
                await asyncio.sleep(0)
                attempt(f'free{i}-{k}', fa_probe.write_file_nogil, root + f'/free{i}-{k}', 'x')
                attempt(f'freeout{i}-{k}', fa_probe.write_file_nogil, out + f'/free{i}-{k}', 'x')
        async def main():
            await asyncio.gather(*[f(i) for i in range(24) for f in (audited, free)])
        asyncio.run(main())
    ''')
    wrong = {k: v for k, v in r.items() if v != ('errno 13' if k.startswith('aud') else 'ok')}
    assert wrong == {}
    assert sorted(os.listdir(outside)) == sorted(f'free{i}-{k}' for i in range(24) for k in range(3))


def test_without_shim_native_off(native_mods, root, outside):
    r = run(native_mods, root, outside, '''
        res['native'] = audit_state()['native']
        res['reason'] = audit_state()['native_reason']
        try:
            mk_audit([root], monitor_calls=False, native='require')
            res['require'] = 'no error'
        except RuntimeError as e:
            res['require'] = str(e)
        ap = mk_audit([root], monitor_calls=False)
        with ap():
            attempt('out_gil', fa_probe.write_file, out + '/a', 'x')
    ''', preload=False)
    assert r['native'] is False and 'not loaded' in r['reason']
    assert "native='require'" in r['require'] and 'not loaded' in r['require']
    assert r['out_gil'] == 'ok'   # no shim: the hook alone cannot see native writes


@pytest.mark.skipif(sys.version_info < (3, 12), reason='notes come from sys.monitoring RAISE (3.12+)')
def test_native_denial_note_on_exception(native_mods, root, outside):
    r = run(native_mods, root, outside, '''
        ap = mk_audit([root], on_call=lambda *a: False)
        with ap():
            try:
                fa_probe.write_file(out + '/n', 'x')
            except OSError as e:
                res['errno'] = e.errno
                res['notes'] = getattr(e, '__notes__', [])
            try:
                from lxml import etree
                etree.ElementTree(etree.fromstring('<a/>')).write(out + '/x.xml')
            except ImportError:
                res['lxml'] = ['no lxml']
            except Exception as e:
                res['lxml'] = getattr(e, '__notes__', [])
    ''')
    assert r['errno'] == 13
    assert len(r['notes']) == 1 and r['notes'][0].startswith('fastaudit: denied fopen')
    assert str(outside / 'n') in r['notes'][0] and 'outside-roots' in r['notes'][0]
    if r['lxml'] != ['no lxml']:
        assert r['lxml'] and 'x.xml' in r['lxml'][0]
    assert os.listdir(outside) == []


@pytest.mark.skipif(sys.version_info < (3, 12), reason='notes come from sys.monitoring RAISE (3.12+)')
@pytest.mark.parametrize('write', ['write_file', 'write_file_nogil'])
def test_native_denial_notes_with_two_threads_refused_at_once(native_mods, root, outside, write):
    # Each thread's exception gets its own thread's denial, however many
    # the other thread has made meanwhile, also when the refused calls
    # were made with the GIL released (both threads refused at once).
    r = run(native_mods, root, outside, f'''
        import threading
        ap = mk_audit([root], on_call=lambda *a: False)
        missing, wrong, n = [], [], 150
        go = threading.Barrier(2)
        def worker(k):
            go.wait()
            for i in range(n):
                name = out + '/t%d-%d' % (k, i)
                with ap():
                    try:
                        fa_probe.{write}(name, 'x')
                    except OSError as e:
                        notes = getattr(e, '__notes__', [])
                        if not notes:
                            missing.append(name)
                        elif name not in notes[0]:
                            wrong.append((name, notes[0]))
        ts = [threading.Thread(target=worker, args=(k,)) for k in (0, 1)]
        for t in ts: t.start()
        for t in ts: t.join()
        res['missing'] = len(missing)
        res['wrong'] = wrong[:3]
    ''')
    assert r == {'missing': 0, 'wrong': []}
    assert os.listdir(outside) == []


@pytest.mark.skipif(sys.version_info < (3, 12), reason='sys.monitoring is 3.12+')
def test_monitor_tool_id_carries_exactly_call_with_shim(native_mods, root, outside):
    r = run(native_mods, root, outside, '''
        ev = sys.monitoring.events
        ap = mk_audit([root], on_call=lambda *a: False)
        tid = audit_state()['tool_id']
        with ap():
            res['inside'] = sys.monitoring.get_events(tid) == ev.CALL
            with ap():
                res['nested'] = sys.monitoring.get_events(tid) == ev.CALL
            # a native denial: RAISE joins CALL until its note is given
            try:
                fa_probe.write_file(out + '/n', 'x')
            except OSError as e:
                res['noted'] = len(getattr(e, '__notes__', ()))
            res['after_note'] = sys.monitoring.get_events(tid) == ev.CALL
        res['after'] = sys.monitoring.get_events(tid)
        res['ids'] = [i for i in range(6) if sys.monitoring.get_tool(i) is not None]
    ''')
    assert r == {'inside': True, 'nested': True, 'noted': 1, 'after_note': True, 'after': 0,
                 'ids': [3]}


@pytest.mark.skipif(sys.version_info < (3, 12), reason='sys.monitoring is 3.12+')
@pytest.mark.parametrize('monitor', [True, False])
def test_exactly_the_tool_id_the_host_gives(native_mods, root, outside, monitor):
    """With the shim loaded, fastaudit takes the id mk_audit() was given and
    no other: a tool that takes id 3 afterwards finds it free, and the
    notes still come."""
    # with the monitor, native calls are let through to the shim's judgement
    how = 'on_call=lambda *a: False' if monitor else 'monitor_calls=False'
    r = run(native_mods, root, outside, f'''
        ap = mk_audit([root], tool_id=4, {how})
        res['ids'] = [i for i in range(6) if sys.monitoring.get_tool(i) is not None]
        sys.monitoring.use_tool_id(3, 'another tool')
        with ap():
            try:
                fa_probe.write_file(out + '/n', 'x')
            except OSError as e:
                res['notes'] = getattr(e, '__notes__', [])
        res['tools'] = [sys.monitoring.get_tool(i) for i in (3, 4)]
        res['events3'] = sys.monitoring.get_events(3)
    ''')
    assert r['ids'] == [4]
    assert r['tools'] == ['another tool', 'fastaudit'] and r['events3'] == 0
    assert len(r['notes']) == 1 and str(outside / 'n') in r['notes'][0]
    assert os.listdir(outside) == []


@pytest.mark.skipif(sys.version_info < (3, 12), reason='notes come from sys.monitoring RAISE (3.12+)')
def test_native_denial_note_without_call_monitoring(native_mods, root, outside):
    r = run(native_mods, root, outside, '''
        ap = mk_audit([root], monitor_calls=False)
        with ap():
            try:
                fa_probe.write_file(out + '/n', 'x')
            except OSError as e:
                res['errno'] = e.errno
                res['notes'] = getattr(e, '__notes__', [])
    ''')
    assert r['errno'] == 13
    assert len(r['notes']) == 1 and str(outside / 'n') in r['notes'][0]


@pytest.mark.skipif(sys.version_info < (3, 12), reason='notes come from sys.monitoring RAISE (3.12+)')
def test_every_denial_noted_though_the_last_noted_exception_is_gone(native_mods, root, outside):
    """Refusals one after another, each exception dropped before the next
    is raised: the next exception is usually made where the freed one was,
    and must get its own note all the same."""
    r = run(native_mods, root, outside, '''
        os.chdir(out)     # short names: the error's filename takes no freed block
        def refusals(n):
            noted, at, names = [], [], ['n%d' % i for i in range(n)]
            with mk_audit([root], monitor_calls=False)():
                for name in names:
                    try:
                        fa_probe.write_file(name, 'x')
                    except OSError as e:
                        noted.append(len(getattr(e, '__notes__', ())))
                        at.append(id(e))
            return noted, sum(a == b for a, b in zip(at, at[1:]))
        res['noted'], res['reused'] = refusals(6)
        res['noted2'], _ = refusals(3)
        try:
            with mk_audit([root], monitor_calls=False)():
                try:
                    fa_probe.write_file(out + '/again', 'x')
                except OSError as e:
                    raise e          # the same exception raised again: one note
        except OSError as e:
            res['again'] = len(getattr(e, '__notes__', []))
    ''')
    # reuse is the allocator's choice, not a promise; it is what happens
    assert r['reused'] > 0, r
    assert r == {'noted': [1] * 6, 'reused': r['reused'], 'noted2': [1] * 3, 'again': 1}
    assert os.listdir(outside) == []


def test_shim_honours_import_allowance(native_mods, root, outside, tmp_path):
    mods = tmp_path / 'mods'
    mods.mkdir()
    (mods / 'fa_import_writer.py').write_text(
        'import sys\nwith open(sys.argv[2] + "/cache", "w") as f:\n    f.write("x")\n')
    r = run(native_mods, root, outside, f'''
        sys.path.insert(0, {str(mods)!r})
        ap = mk_audit([root], monitor_calls=False, allow_imports=('fa_import_writer',))
        with ap():
            attempt('import', __import__, 'fa_import_writer')
            attempt('later', lambda: open(out + '/cache', 'w').close())
    ''')
    assert r['import'].startswith("<module 'fa_import_writer'"), r
    assert r['later'] == 'PermissionError'
    assert os.listdir(outside) == ['cache']


def test_os_open_dir_fd_decided_by_the_shim(native_mods, root, outside):
    r = run(native_mods, root, outside, '''
        os.chdir(out)
        fd = os.open(root, os.O_RDONLY)
        ap = mk_audit([root], monitor_calls=False)
        with ap():
            attempt('dir_fd', lambda: os.close(os.open('f', os.O_CREAT | os.O_WRONLY, dir_fd=fd)))
            attempt('cwd', lambda: os.close(os.open('g', os.O_CREAT | os.O_WRONLY)))
    ''')
    assert r == {'dir_fd': 'ok', 'cwd': 'errno 13'}
    assert os.listdir(root) == ['f'] and os.listdir(outside) == []


@pytest.mark.skipif(sys.version_info < (3, 12), reason='call monitoring is 3.12+')
def test_native_calls_libc_lets_native_code_reach_the_shim(native_mods, root, outside):
    body = '''
        ap = mk_audit([root], native_calls='libc')
        with ap():
            attempt('in', fa_probe.write_file, root + '/a', 'x')
            attempt('out', fa_probe.write_file, out + '/b', 'x')
            try:
                from lxml import etree
                tree = etree.ElementTree(etree.fromstring('<a/>'))
                try:
                    tree.write(root + '/t.xml')
                    res['lxml_in'] = 'ok'
                except PermissionError:
                    res['lxml_in'] = 'PermissionError'
                try:
                    tree.write(out + '/t.xml')
                    res['lxml_out'] = 'ok'
                except Exception as e:
                    res['lxml_out'] = type(e).__name__
            except ImportError:
                pass
    '''
    r = run(native_mods, root, outside, body)
    assert r['in'] == 'ok' and r['out'] == 'errno 13'
    if 'lxml_in' in r:
        assert r['lxml_in'] == 'ok' and r['lxml_out'] != 'ok'
    assert os.listdir(outside) == []
    # without the shim the calls are audited as the seed says
    r = run(native_mods, root, outside, body, preload=False)
    assert r['in'] == r['out'] == 'PermissionError'
    assert r.get('lxml_in', 'PermissionError') == 'PermissionError'
    assert os.listdir(outside) == []


@pytest.mark.skipif(sys.version_info < (3, 12), reason='notes come from sys.monitoring RAISE (3.12+)')
def test_h5py_denial_carries_a_note(native_mods, root, outside):
    pytest.importorskip('h5py')
    r = run(native_mods, root, outside, '''
        import h5py
        ap = mk_audit([root], native_calls='libc')
        with ap():
            h5py.File(root + '/in.h5', 'w').close()
            try:
                h5py.File(out + '/out.h5', 'w')
            except OSError as e:
                res['errno'] = e.errno
                res['notes'] = getattr(e, '__notes__', [])
    ''')
    assert r['errno'] == 13
    assert r['notes'] and str(outside / 'out.h5') in r['notes'][0]
    assert os.listdir(outside) == [] and os.listdir(root) == ['in.h5']


@pytest.mark.skipif(sys.version_info < (3, 12), reason='sys.monitoring is 3.12+')
def test_note_without_call_monitoring_on_the_monitors_id(native_mods, root, outside):
    """A context without call monitoring, in a process whose call monitor
    holds the id: the id carries nothing inside it (as hosts expect), and a
    refusal made with the GIL held still gets its note, the shim telling
    the extension before the library raises; RAISE goes once it is given."""
    r = run(native_mods, root, outside, '''
        mk_audit([root], on_call=lambda *a: False)        # the call monitor takes 3
        tid = audit_state()['tool_id']
        with mk_audit([root], monitor_calls=False)():
            res['inside'] = sys.monitoring.get_events(tid)
            for name in ('a', 'b'):
                try:
                    fa_probe.write_file(out + '/' + name, 'x')
                except OSError as e:
                    res[name] = [e.errno, len(getattr(e, '__notes__', ()))]
                res['after_' + name] = sys.monitoring.get_events(tid)
        res['after'] = sys.monitoring.get_events(tid)
    ''')
    assert r == {'inside': 0, 'a': [13, 1], 'after_a': 0, 'b': [13, 1], 'after_b': 0, 'after': 0}
    assert os.listdir(outside) == []


@pytest.mark.skipif(sys.version_info < (3, 12), reason='sys.monitoring is 3.12+')
def test_notes_follow_the_monitor_to_its_tool_id(native_mods, root, outside):
    """The notes of a context without call monitoring take the id its
    mk_audit() was given; a later call monitor on another id takes that one
    instead, and the first is given back."""
    r = run(native_mods, root, outside, '''
        mk_audit([root], monitor_calls=False, tool_id=2)
        res['first'] = [i for i in range(6) if sys.monitoring.get_tool(i) is not None]
        ap = mk_audit([root], tool_id=4, on_call=lambda *a: False)
        res['then'] = [i for i in range(6) if sys.monitoring.get_tool(i) is not None]
        with ap():
            try:
                fa_probe.write_file_nogil(out + '/x', 'x')
            except OSError as e:
                res['errno'] = e.errno
                res['notes'] = len(getattr(e, '__notes__', ()))
    ''')
    assert r == {'first': [2], 'then': [4], 'errno': 13, 'notes': 1}
    assert os.listdir(outside) == []


def test_host_approved_rename_out_of_the_root(native_mods, root, outside):
    (root / 'a').write_text('x')
    (outside / 'b').write_text('y')
    r = run(native_mods, root, outside, '''
        ap = mk_audit([root], monitor_calls=False, before_deny=lambda ev, *a: ev == 'os.rename')
        with ap():
            attempt('out', os.rename, root + '/a', out + '/a2')
            attempt('in', os.rename, out + '/b', root + '/b2')
    ''')
    assert r == {'out': 'ok', 'in': 'ok'}
    assert sorted(os.listdir(outside)) == ['a2'] and sorted(os.listdir(root)) == ['b2']



KERNEL_FIRST = '''
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    fn = {n: getattr(libc, n) for n in ('mkdir', 'open', 'rename', 'link', 'unlink')}
    ap = mk_audit([root], monitor_calls=False)
    def call(key, name, *a):
        with ap():
            r = fn[name](*[os.fsencode(x) if isinstance(x, str) else x for x in a])
        res[key] = 'ok' if r >= 0 else os.strerror(ctypes.get_errno())
    call('mkdir_there', 'mkdir', out + '/d', 0o755)
    call('mkdir_root', 'mkdir', root, 0o755)
    call('open_missing', 'open', out + '/none', os.O_RDWR)
    call('open_through_file', 'open', root + '/f/../new', os.O_WRONLY | os.O_CREAT, 0o644)
    call('link_onto', 'link', root + '/f', out + '/f')
    call('rename_missing', 'rename', root + '/none', out + '/new')
    call('rename_slash', 'rename', root + '/f', out + '/d/')
    call('unlink_slash', 'unlink', out + '/d/')
    call('mkdir_new', 'mkdir', out + '/new', 0o755)
    call('link_new', 'link', root + '/f', out + '/new')
    res['denied'] = [d['call'] for d in audit_state()['native_denials']]
'''


@pytest.mark.parametrize('under_fa_run', [False, True])
def test_context_gives_the_kernels_answer(native_mods, root, outside, under_fa_run):
    """A call the kernel fails before any permission check gets that errno,
    with no denial; calls the kernel would perform are still refused."""
    (root / 'f').write_text('mine')
    (outside / 'f').write_text('theirs')
    (outside / 'd').mkdir()
    code = PRELUDE + textwrap.dedent(KERNEL_FIRST) + '\nprint(json.dumps(res))\n'
    env = dict(os.environ, LD_PRELOAD=SHIM)
    env['PYTHONPATH'] = os.pathsep.join([os.path.dirname(native_mods[0].__file__)] + sys.path)
    cmd = [sys.executable, '-c', code, str(root), str(outside)]
    if under_fa_run:
        fa_run = os.path.join(os.environ.get('FA_BUILDDIR', ''), 'fa-run')
        if not os.path.exists(fa_run):
            pytest.skip('fa-run not built')
        # fa-run's policy allows both trees: the context alone refuses.
        cmd = [fa_run, '-w', os.path.dirname(str(root)), '-w', str(outside), '--'] + cmd
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout.splitlines()[-1])
    assert r == {
        'mkdir_there': 'File exists', 'mkdir_root': 'File exists',
        'open_missing': 'No such file or directory',
        'open_through_file': 'Not a directory', 'link_onto': 'File exists',
        'rename_missing': 'No such file or directory', 'rename_slash': 'Not a directory',
        'unlink_slash': 'Is a directory',
        'mkdir_new': 'Permission denied', 'link_new': 'Permission denied',
        'denied': ['mkdir', 'link'],
    }
    lines = [l for l in p.stderr.splitlines() if 'denied' in l]
    assert len(lines) == 2 and lines[0].startswith('fastaudit: denied mkdir(')
    assert sorted(os.listdir(outside)) == ['d', 'f'] and sorted(os.listdir(root)) == ['f']


@pytest.mark.skipif(sys.version_info < (3, 14), reason='ctypes.call_function is audited from 3.14')
def test_ctypes_calls_left_to_the_shim_where_it_is_loaded(native_mods, root, outside):
    body = '''
        import ctypes
        libc = ctypes.CDLL(None)
        getpid, creat = libc.getpid, libc.creat    # looked up before: dlsym is refused inside
        with mk_audit([root], monitor_calls=False)():
            attempt('call', lambda: getpid() > 0)
            attempt('creat_out', creat, (out + '/c').encode(), 0o644)
            res['created'] = os.path.exists(out + '/c')
    '''
    got = run(native_mods, root, outside, body)
    # the shim's refusal: -1 at libc
    assert got == {'call': 'ok', 'creat_out': '-1', 'created': False}
    got = run(native_mods, root, outside, body, preload=False)
    assert got == {'call': 'PermissionError', 'creat_out': 'PermissionError', 'created': False}


def test_paths_the_hook_proved_are_proved_again_after_a_move(native_mods, root, outside):
    # With the shim loaded the hook keeps, per thread, the paths it proved
    # free of links, while the shim counts no rename, removal of a
    # directory or new link. Each move below is one of those, made in the
    # process between two writes of one path: the second write must meet
    # the hook's own refusal, in the seed's words, not the shim's EACCES.
    r = run(native_mods, root, outside, '''
        import shutil
        ap = mk_audit([root], monitor_calls=False)
        def write(key, p):
            try:
                with open(p, 'w') as f:
                    f.write('x')
                res[key] = 'ok'
            except PermissionError as e:
                res[key] = 'hook' if str(e).startswith("open '") else str(e)
        for d in ('a/b', 'y', 'c', 'h', 's/b'):
            os.makedirs(root + '/' + d)
        os.symlink(out, root + '/y/b')
        os.symlink(out + '/g', root + '/lnk')
        with ap():
            write('a1', root + '/a/b/f')
            write('c1', root + '/c/f')
            write('h1', root + '/h/f')
        # a directory on the way renamed away, one whose b leads out put there
        os.rename(root + '/a', root + '/a.old')
        os.rename(root + '/y', root + '/a')
        # the file itself swapped for a symlink: an unlink moves nothing
        os.remove(root + '/c/f')
        os.symlink(out + '/g', root + '/c/f')
        # and for a hard link of a symlink
        os.remove(root + '/h/f')
        os.link(root + '/lnk', root + '/h/f', follow_symlinks=False)
        with ap():
            write('a2', root + '/a/b/f')
            write('c2', root + '/c/f')
            write('h2', root + '/h/f')
            write('s1', root + '/s/b/f')
        # another process swaps a directory: this process counts nothing
        subprocess.run(['sh', '-c', 'mv "$1/s/b" "$1/s/b.old" && ln -s "$2" "$1/s/b"',
                        'sh', root, out], check=True)
        with ap():
            write('s2', root + '/s/b/f')
    ''')
    assert r == {'a1': 'ok', 'c1': 'ok', 'h1': 'ok', 's1': 'ok',
                 'a2': 'hook', 'c2': 'hook', 'h2': 'hook',
                 # not seen by the hook: refused by the shim, as the README says
                 's2': "[Errno 13] Permission denied: '%s/s/b/f'" % root}
    assert os.listdir(outside) == []

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
    """The inexact case on 3.10-3.13: a Context whose very first libc call is
    made with the GIL released, with no audit event, no GIL-held libc call
    and no monitored call before it, gets the shim's last answer for the
    thread. With monitor_calls=True (3.12+) the CALL callback observes the
    Context first, and the answer is exact."""
    r = run(native_mods, root, outside, '''
        ap = mk_audit([root], monitor_calls=False)
        async def first_nogil():
            attempt('unobserved', fa_probe.write_file_nogil, out + '/u', 'x')
        async def main():
            with ap():
                t = asyncio.ensure_future(first_nogil())
            await t
        asyncio.run(main())
        if sys.version_info >= (3, 12):
            import contextvars
            apm = mk_audit([root], on_call=lambda *a: False)
            held = []
            async def keeper(gate):
                with apm():             # keeps monitoring on
                    held.append(contextvars.copy_context())
                    await gate.wait()
            async def first_nogil2():
                attempt('monitored', fa_probe.write_file_nogil, out + '/m', 'x')
            async def main2():
                gate = asyncio.Event()
                k = asyncio.ensure_future(keeper(gate))
                await asyncio.sleep(0)
                # unaudited and GIL held: the shim's last answer becomes "none"
                attempt('free_first', fa_probe.write_file, out + '/f', 'x')
                t = asyncio.get_running_loop().create_task(first_nogil2(), context=held[0])
                await t
                gate.set()
                await k
            asyncio.run(main2())
    ''')
    # the last answer published on the thread was "no context" (main left its block)
    assert r['unobserved'] == 'ok'
    if sys.version_info >= (3, 12):
        assert r['free_first'] == 'ok' and r['monitored'] == 'errno 13'
        assert sorted(os.listdir(outside)) == ['f', 'u']


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

# SPDX-License-Identifier: Apache-2.0
"""A native denial seen from Python is the same denial the shim logs.

The dicts of audit_state()['native_denials'] and
fastaudit._fastaudit.native_denials() have the keys and values of the
--log JSON line, and the note on the exception is the shim's stderr line.
"""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from test_native import PRELUDE, SHIM

pytestmark = pytest.mark.skipif(not os.path.exists(SHIM), reason='libfashim.so not built')


def run_logged(native_mods, root, outside, log, body):
    probe_dir = os.path.dirname(native_mods[0].__file__)
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join([probe_dir] + sys.path)
    env['LD_PRELOAD'] = SHIM
    env['FA_LOG'] = str(log)
    env.pop('FA_QUIET', None)
    code = PRELUDE + textwrap.dedent(body) + '\nprint(json.dumps(res))\n'
    p = subprocess.run([sys.executable, '-c', code, str(root), str(outside)], env=env,
                       capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.decode().splitlines()[-1]), p.stderr


def test_record_is_the_log_line(native_mods, root, outside, tmp_path):
    log = tmp_path / 'log.jsonl'
    r, err = run_logged(native_mods, root, outside, log, '''
        import fastaudit._fastaudit as fx
        ap = mk_audit([root], monitor_calls=False)
        with ap():
            attempt('w', fa_probe.write_file, out + '/a\\nb\\x1b[2J', 'x')
        res['state'] = audit_state()['native_denials'][-1]
        res['module'] = fx.native_denials()[-1]
    ''')
    line = json.loads(log.read_text().splitlines()[-1])
    assert r['w'] == 'errno 13'
    assert r['state'] == line and r['module'] == line
    assert list(r['state']) == list(line)
    assert line['path'] == str(outside) + '/a\nb\x1b[2J'
    assert line['policy'] == 'context' and line['rule'] == 'outside-roots'
    # the call came from the probe module, not from python or libc
    assert line['caller'] == os.path.realpath(native_mods[0].__file__) or \
        os.path.samefile(line['caller'], native_mods[0].__file__)
    assert os.listdir(outside) == []


def test_record_keeps_the_exact_bytes(native_mods, root, outside, tmp_path):
    log = tmp_path / 'log.jsonl'
    r, err = run_logged(native_mods, root, outside, log, '''
        import ctypes
        creat = ctypes.CDLL(None).creat      # looked up before: dlsym is refused inside
        ap = mk_audit([root], monitor_calls=False)
        name = os.fsencode(out) + b'/caf\\xe9\\xff'
        with ap():
            res['w'] = creat(name, 0o644)
        res['back'] = os.fsencode(audit_state()['native_denials'][-1]['path']) == name
    ''')
    assert r['w'] == -1 and r['back'] is True
    line = json.loads(log.read_bytes().splitlines()[-1])
    assert line['path'] == str(outside) + '/caf\u00e9\u00ff'


@pytest.mark.skipif(sys.version_info < (3, 12), reason='notes come from sys.monitoring RAISE (3.12+)')
def test_note_is_the_stderr_line(native_mods, root, outside, tmp_path):
    log = tmp_path / 'log.jsonl'
    r, err = run_logged(native_mods, root, outside, log, '''
        ap = mk_audit([root], on_call=lambda *a: False)
        with ap():
            try:
                fa_probe.write_file(out + '/n\\x1b]0;title\\x07', 'x')
            except OSError as e:
                res['notes'] = getattr(e, '__notes__', [])
    ''')
    lines = err.decode().splitlines()
    denials = [l for l in lines if l.startswith('fastaudit: denied ')]
    assert len(denials) == 1, lines
    assert r['notes'] == denials
    assert '\x1b' not in denials[0] and '\\x1b]0;title\\x07' in denials[0]
    assert '[outside-roots, audit context]' in denials[0]

# SPDX-License-Identifier: Apache-2.0
"""Program starts inside audit contexts, seen at the libc boundary.

A PATH search tries every candidate: only the one the kernel would really
start may be judged. Missing candidates fail with ENOENT as without the
guard, no denial is printed for them, and an approved start reaches its
program; an approved start of a missing program is FileNotFoundError.
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

BODY = '''
import json, os, subprocess, sys
from fastaudit import mk_audit
root = sys.argv[1]
res = {}
env = dict(os.environ, PATH='/nonexistent-fa-a:/nonexistent-fa-b/x:' + os.environ.get('PATH', '/usr/bin:/bin'))
def attempt(key, argv):
    try:
        res[key] = subprocess.run(argv, env=env).returncode
    except OSError as e:
        res[key] = type(e).__name__
def before_deny(event, args, frame, msg, data, calls):
    return event == 'subprocess.Popen'
attempt('outside_missing', ['no-such-program-fa'])
with mk_audit([root], before_deny=before_deny, monitor_calls=False)():
    attempt('sh', ['sh', '-c', 'exit 7'])
    attempt('missing', ['no-such-program-fa'])
with mk_audit([root], monitor_calls=False)():
    attempt('refused', ['sh', '-c', 'exit 7'])
print(json.dumps(res))
'''


def run(native_mods, root):
    probe_dir = os.path.dirname(native_mods[0].__file__)
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join([probe_dir] + sys.path)
    env['LD_PRELOAD'] = SHIM
    p = subprocess.run([sys.executable, '-c', textwrap.dedent(BODY), str(root)], env=env,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.splitlines()[-1]), p.stderr


def test_approved_path_search(native_mods, root):
    r, err = run(native_mods, root)
    assert r['outside_missing'] == 'FileNotFoundError'
    # The approved shell runs, past every PATH entry where sh does not exist.
    assert r['sh'] == 7, (r, err)
    # An approved start of a program that exists nowhere: as without the guard.
    assert r['missing'] == 'FileNotFoundError', (r, err)
    # No denial line for any of them: the kernel would not have started a thing.
    assert 'denied' not in err, err
    # Without host approval the audit hook still refuses.
    assert r['refused'] == 'AuditDenied'     # fastaudit's PermissionError

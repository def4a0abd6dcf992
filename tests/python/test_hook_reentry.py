# SPDX-License-Identifier: Apache-2.0
"""Audit hooks are Python code: one that runs while a context is being
entered may replace the very configuration being entered (set_data,
add_imports). The context then enters the configuration that was
audited, alive and whole. Run under PYTHONMALLOC=debug, where memory
freed too early is overwritten, so using it would not go unnoticed."""
import json
import os
import subprocess
import sys
import textwrap

CODE = textwrap.dedent('''
    import json, sys
    from fastaudit import mk_audit
    root, out, how = sys.argv[1], sys.argv[2], sys.argv[3]
    seen = []
    ap = mk_audit([root], data='first', monitor_calls=False,
                  before_deny=lambda *a, **k: seen.append(a[-2] if len(a) > 1 else None))

    def hook(event, args):
        if event == 'audit_perms.set_config' and not seen:
            seen.append('hook')
            if how == 'set_data':
                ap.set_data('second')
            else:
                ap.add_imports('fa_nothing_by_that_name')

    sys.addaudithook(hook)
    res = {}
    with ap():
        open(root + '/in', 'w').close()
        try:
            open(out + '/out', 'w').close()
            res['outside'] = 'written'
        except PermissionError:
            res['outside'] = 'refused'
    res['hook_ran'] = seen[:1] == ['hook']
    print(json.dumps(res))
''')


def run(root, outside, how):
    env = dict(os.environ, PYTHONMALLOC='debug')
    p = subprocess.run([sys.executable, '-c', CODE, str(root), str(outside), how], env=env,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.splitlines()[-1])


def test_a_hook_replacing_the_data_while_entering(root, outside):
    assert run(root, outside, 'set_data') == {'outside': 'refused', 'hook_ran': True}
    assert (root / 'in').exists() and not (outside / 'out').exists()


def test_a_hook_adding_imports_while_entering(root, outside):
    assert run(root, outside, 'add_imports') == {'outside': 'refused', 'hook_ran': True}

# SPDX-License-Identifier: Apache-2.0
"""The README's examples, run exactly as written.

Each fenced block of README.md that shows something to run is taken from
the file as it is and run in a fresh directory: the Python host (```python)
as host.py, compared line for line with the output the README shows
(```text); the fa-run session (```console: "$ " lines run with sh, the
other lines their output); the kernelspec command (```sh); and the notebook
cells (```ipython), each one a cell of IPython's InteractiveShell. The
README shows its runs in /home/me/proj: each test runs in TMP/home/me/proj,
with HOME=TMP/home/me, and takes TMP out of what it compares.
"""
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.environ.get('FA_SRCDIR') or os.path.dirname(os.path.dirname(HERE))
README = os.path.join(SRCDIR, 'README.md')
TIMEOUT = 300
SHOWN_AT = '/home/me/proj'   # where the README's runs are shown to happen


def blocks(lang):
    """The README's fenced blocks of one language, in order, verbatim."""
    with open(README, encoding='utf-8') as f:
        text = f.read()
    return [m.group(1) for m in re.finditer(r'^```' + re.escape(lang) + r'\n(.*?)^```$',
                                            text, re.S | re.M)]


def only(lang, needle):
    found = [b for b in blocks(lang) if needle in b]
    assert len(found) == 1, f'README.md: expected one ```{lang} block with {needle!r}, ' \
                            f'found {len(found)}'
    return found[0]


def after(block, lang):
    """The ```lang block that comes right after block in the README."""
    with open(README, encoding='utf-8') as f:
        text = f.read()
    rest = text[text.index(block) + len(block):]
    assert rest.startswith('```\n')
    rest = rest[4:]
    start = rest.find('```' + lang + '\n')
    assert start >= 0 and '```' not in rest[:start], \
        f'README.md: no ```{lang} block right after the one starting {block[:40]!r}'
    body = rest[start + len(lang) + 4:]
    return body[:body.index('\n```') + 1]


@pytest.fixture
def proj(tmp_path):
    """(top, project dir, env): TMP/home/me/proj with HOME=TMP/home/me."""
    top = os.path.realpath(str(tmp_path))
    home = os.path.join(top, 'home', 'me')
    p = os.path.join(home, 'proj')
    os.makedirs(p)
    env = dict(os.environ, HOME=home)
    env.pop('LD_PRELOAD', None)
    # `python` in the README is the Python under test.
    env['PATH'] = os.path.dirname(sys.executable) + os.pathsep + env.get('PATH', '')
    return top, p, env


def shown(out, top):
    return out.replace(top, '')


def with_shim(env):
    shim = os.environ.get('FA_SHIM')
    if not shim or not os.path.exists(shim) or os.environ.get('FA_SANITIZERS'):
        return None
    return dict(env, LD_PRELOAD=shim)


def test_readme_is_one_screen():
    assert os.path.getsize(README) <= 12288


def test_python_host_prints_what_the_readme_shows(proj):
    top, p, env = proj
    host = only('python', 'mk_audit(')
    assert "preset='data'" in host and 'AuditDenied' in host
    expected = after(host, 'text')
    with open(README, encoding='utf-8') as f:
        assert f'Run in `{SHOWN_AT}`' in f.read()
    with open(os.path.join(p, 'host.py'), 'w') as f:
        f.write(host)
    runs = [('without the shim', env)]
    if with_shim(env):
        runs.append(('with the shim loaded', with_shim(env)))
    for what, e in runs:
        for leftover in ('notes.txt',):
            assert not os.path.exists(os.path.join(p, leftover))
        r = subprocess.run([sys.executable, 'host.py'], cwd=p, env=e, capture_output=True,
                           text=True, timeout=TIMEOUT)
        assert r.returncode == 0, (what, r.stderr)
        assert shown(r.stdout, top) == expected, (what, r.stdout, r.stderr)
        # The refused write created nothing; the allowed one is there.
        assert not os.path.exists(os.path.join(p, 'notes.txt'))
        with open(os.path.join(p, 'work', 'table.csv')) as f:
            assert f.read() == 'a,b\n1,2\n'
        os.remove(os.path.join(p, 'work', 'table.csv'))


def test_fa_run_session_prints_what_the_readme_shows(proj):
    top, p, env = proj
    fa_run = os.environ.get('FA_RUN')
    if not fa_run or not os.path.exists(fa_run):
        pytest.skip('no fa-run built (FA_RUN)')
    session = only('console', 'fa-run ')
    env = dict(env, PATH=os.path.dirname(os.path.abspath(fa_run)) + os.pathsep + env['PATH'])
    steps = []   # (command, expected output lines)
    for line in session.splitlines():
        if line.startswith('$ '):
            steps.append((line[2:], []))
        else:
            assert steps, 'README.md: the fa-run session must start with a "$ " line'
            steps[-1][1].append(line)
    assert any(cmd.startswith('fa-run ') for cmd, _ in steps)
    for cmd, out in steps:
        r = subprocess.run(['sh', '-c', cmd], cwd=p, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=TIMEOUT)
        assert r.returncode == 0, (cmd, r.stdout)
        assert shown(r.stdout, top).splitlines() == out, (cmd, r.stdout)


def test_kernel_install_line(proj):
    pytest.importorskip('ipykernel')
    pytest.importorskip('jupyter_client')
    top, p, env = proj
    block = only('sh', 'fastaudit kernel install')
    data = os.path.join(top, 'jupyter')
    env = dict(env, JUPYTER_DATA_DIR=data)
    for line in block.splitlines():
        if line.strip():
            r = subprocess.run(['sh', '-c', line], cwd=p, env=env, capture_output=True,
                               text=True, timeout=TIMEOUT)
            assert r.returncode == 0, (line, r.stdout, r.stderr)
    with open(os.path.join(data, 'kernels', 'fastaudit', 'kernel.json')) as f:
        spec = json.load(f)
    assert spec['display_name'] == 'Python 3 (fastaudit)'
    # The kernel starts with the shim loaded, as the README says.
    assert 'libfashim.so' in json.dumps(spec)


# Runs each cell in a fresh InteractiveShell and prints, per cell, whether it
# succeeded, the error's class name and its notes.
_DRIVER = textwrap.dedent('''
    import json, sys
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance(colors='NoColor')
    for cell in json.load(sys.stdin):
        r = shell.run_cell(cell)
        e = r.error_in_exec or r.error_before_exec
        print('CELL ' + json.dumps({'ok': r.success, 'error': type(e).__name__ if e else None,
                                    'notes': getattr(e, '__notes__', [])}), flush=True)
''')


def test_notebook_cells_do_what_the_readme_says(proj):
    pytest.importorskip('IPython')
    top, p, env = proj
    cells = blocks('ipython')
    assert len(cells) == 3, 'README.md: the notebook shows three cells'
    on, work, off = cells
    assert '%load_ext fastaudit' in on and '%fastaudit on work' in on
    assert '%fastaudit off' in off
    os.makedirs(os.path.join(p, 'work'))
    # After the README's cells, one of the test's own: the write refused
    # before works once auditing is off.
    check = "open('out.csv', 'w').close()\n"
    r = subprocess.run([sys.executable, '-c', _DRIVER], cwd=p, env=env, capture_output=True,
                       text=True, input=json.dumps([on, work, off, check]), timeout=TIMEOUT)
    assert r.returncode == 0, r.stderr
    res = [json.loads(line[5:]) for line in r.stdout.splitlines() if line.startswith('CELL ')]
    assert len(res) == 4, r.stdout + r.stderr
    assert res[0]['ok'], (res[0], r.stdout)
    # The cell writes inside (allowed), then outside: AuditDenied with its fix.
    assert not res[1]['ok'] and res[1]['error'] == 'AuditDenied', (res[1], r.stdout)
    assert any('to allow: add' in n for n in res[1]['notes']), res[1]
    with open(os.path.join(p, 'work', 'out.csv')) as f:
        assert f.read() == 'a,b\n'
    assert res[2]['ok'], (res[2], r.stdout)
    assert res[3]['ok'], (res[3], r.stdout)
    assert os.path.exists(os.path.join(p, 'out.csv'))

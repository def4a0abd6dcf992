# SPDX-License-Identifier: Apache-2.0
"""What an install of fastaudit gives: the shim, fa-run and fa-check found
through the package, ``python -m fastaudit run``, the version.

Run by ``make check`` against the build tree and by ``make check-installed``
(FA_INSTALLED=yes) against the fastaudit that $PYTHON has installed, where
FA_RUN and FA_CHECK are the commands the install put next to the interpreter.
No test passes FA_SHIM on: each program must find its own shim.
"""
import json
import os
import subprocess
import sys
import sysconfig
import textwrap

import pytest

import fastaudit

INSTALLED = os.environ.get('FA_INSTALLED') == 'yes'
FA_RUN = os.environ['FA_RUN']
FA_CHECK = os.environ['FA_CHECK']


def env(**extra):
    e = {k: v for k, v in os.environ.items() if k not in ('FA_SHIM', 'LD_PRELOAD', 'FA_POLICY')}
    e.update(extra)
    return e


def run(argv, **kw):
    return subprocess.run(argv, env=env(), capture_output=True, text=True, timeout=60, **kw)


@pytest.fixture
def dirs(tmp_path):
    root, outside = tmp_path / 'root', tmp_path / 'outside'
    root.mkdir()
    outside.mkdir()
    return root, outside


def test_version_is_configures():
    assert fastaudit.__version__ == os.environ['FA_VERSION']


def test_package_comes_from_where_it_should():
    pkg = os.path.realpath(os.path.dirname(fastaudit.__file__))
    tree = os.path.realpath(os.path.join(os.environ['FA_BUILDDIR'], 'pyhook', 'fastaudit'))
    if INSTALLED:
        site = os.path.realpath(sysconfig.get_path('platlib'))
        assert pkg == os.path.join(site, 'fastaudit')
    else:
        assert pkg == tree


def test_shim_path_names_the_shim():
    shim = fastaudit.shim_path()
    assert os.path.isabs(shim) and os.path.basename(shim) == 'libfashim.so'
    with open(shim, 'rb') as f:
        assert f.read(4) == b'\x7fELF'
    if INSTALLED:
        assert os.path.realpath(shim).startswith(
            os.path.realpath(os.path.dirname(fastaudit.__file__)) + os.sep)


def test_commands_are_next_to_the_interpreter():
    if not INSTALLED:
        pytest.skip('the build tree has no venv')
    bindir = os.path.dirname(sys.executable)
    assert FA_RUN == os.path.join(bindir, 'fa-run') and os.access(FA_RUN, os.X_OK)
    assert FA_CHECK == os.path.join(bindir, 'fa-check') and os.access(FA_CHECK, os.X_OK)


def test_the_commands_live_inside_the_package():
    from fastaudit import _cmd
    pkg = os.path.dirname(os.path.abspath(fastaudit.__file__))
    assert _cmd.program_path('fa-run') == os.path.join(pkg, 'bin', 'fa-run')
    assert _cmd.program_path('fa-check') == os.path.join(pkg, 'bin', 'fa-check')
    if not INSTALLED:
        return
    from importlib import metadata
    # the commands are the wheel's scripts: an entry point would import the package first
    scripts = [e.name for e in metadata.entry_points(group='console_scripts')
               if e.name in ('fa-run', 'fa-check')]
    assert scripts == []
    # nothing of the distribution's outside the package, its metadata and the commands
    files = metadata.files('fastaudit-native') or []
    site = [str(f) for f in files if not str(f).startswith(('fastaudit/', '..'))
            and '.dist-info/' not in str(f)]
    assert site == []


def imported_by(argv):
    """The modules Python imports running argv (its own import-time trace)."""
    p = subprocess.run(argv, env=env(PYTHONPROFILEIMPORTTIME='1'), capture_output=True,
                       text=True, timeout=60)
    return p, [line.rsplit('|', 1)[1].strip() for line in p.stderr.splitlines()
               if line.startswith('import time:')]


@pytest.mark.parametrize('prog', ['fa-run', 'fa-check'])
def test_commands_start_without_importing_the_package(prog):
    if not INSTALLED:
        pytest.skip('in the build tree the commands are the programs themselves')
    cmd = FA_RUN if prog == 'fa-run' else FA_CHECK
    # the trace sees the package where it is imported ...
    _, mods = imported_by([sys.executable, '-c', 'import fastaudit'])
    assert 'fastaudit' in mods and 'fastaudit.core' in mods
    # ... and none of it before the command becomes its program
    p, mods = imported_by([cmd, '--help'])
    assert p.stdout.startswith(('Usage: fa-run', 'usage: fa-check')), p.stderr[-600:]
    assert mods, 'no import trace: ' + p.stderr[-600:]
    assert [m for m in mods if m.split('.')[0] in ('fastaudit', 'inspect')] == []
    assert 'importlib.metadata' not in mods


@pytest.mark.parametrize('how', ['fa-run', 'python -m fastaudit run'])
def test_run_refuses_a_write_outside(dirs, how):
    root, outside = dirs
    cmd = [FA_RUN] if how == 'fa-run' else [sys.executable, '-m', 'fastaudit', 'run']
    p = run(cmd + ['-w', str(root), '--', 'sh', '-c',
                   f'echo hi > {root}/a; echo no > {outside}/b || exit 9; echo "$LD_PRELOAD"'])
    assert p.returncode == 9
    assert (root / 'a').read_text() == 'hi\n'
    assert not (outside / 'b').exists()
    assert f'fa-run: denied' in p.stderr and f'{outside}/b' in p.stderr
    assert 'not under any allowed root' in p.stderr
    # the preload is this install's shim, found by fa-run itself
    p = run(cmd + ['-w', str(root), '--', 'sh', '-c', 'echo "$LD_PRELOAD"'])
    preloaded = p.stdout.split()[0].split(':')
    assert os.path.realpath(fastaudit.shim_path()) in map(os.path.realpath, preloaded)


@pytest.mark.parametrize('how', ['fa-run', 'python -m fastaudit run'])
def test_run_arguments_and_exit_statuses(dirs, how):
    root, _ = dirs
    m = [FA_RUN] if how == 'fa-run' else [sys.executable, '-m', 'fastaudit', 'run']
    assert run(m + ['-w', str(root), '--', 'sh', '-c', 'exit 3']).returncode == 3
    p = run(m + ['-w', str(root), '--', 'sh', '-c', 'printf "%s|" "$0" "$@"', 'a b', '', '*'])
    assert (p.returncode, p.stdout) == (0, 'a b||*|')
    bad = run(m + ['--no-such-option', '--', 'true'])
    assert bad.returncode == 125 and 'fa-run: invalid option' in bad.stderr
    assert run(m + ['-w', str(root) + '/missing', '--', 'true']).returncode == 125
    assert run(m + ['--', str(root) + '/no-such-program']).returncode == 127
    assert run(m + ['--help']).stdout.startswith('Usage: fa-run')
    assert run([sys.executable, '-m', 'fastaudit']).returncode == 2
    assert run([sys.executable, '-m', 'fastaudit', 'frobnicate']).returncode == 2


def test_check_through_the_package(dirs):
    root, _ = dirs
    for cmd in ([FA_CHECK], [sys.executable, '-m', 'fastaudit', 'check']):
        p = run(cmd + ['--allow', str(root), '--', 'a/b', '../x'])
        assert p.returncode == 1
        lines = [json.loads(x) for x in p.stdout.splitlines()]
        assert [x['decision'] for x in lines] == ['allow', 'reject']
        assert run(cmd + ['--allow', str(root), '--', 'a']).returncode == 0
        assert run(cmd + ['--no-such-option', 'a']).returncode == 2


AGENT = '''
import ctypes, json, os, sys
from fastaudit import audit_state, mk_audit
root, outside = sys.argv[1], sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
libc.open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
ap = mk_audit([root], before_deny=lambda ev, *a: ev.startswith('ctypes.'), native='require',
              monitor_calls=False)
res = {'native': audit_state()['native']}
with ap():
    for key, d in (('in', root), ('out', outside)):
        fd = libc.open(os.path.join(d, 'n').encode(), os.O_WRONLY | os.O_CREAT, 0o644)
        res[key] = 'ok' if fd >= 0 else os.strerror(ctypes.get_errno())
        if fd >= 0:
            os.close(fd)
print(json.dumps(res))
'''


def test_python_m_fastaudit_run_gives_native_checks(dirs, tmp_path):
    root, outside = dirs
    agent = tmp_path / 'agent.py'
    agent.write_text(AGENT)
    # the process policy lets both directories be written; the context only root
    p = run([sys.executable, '-m', 'fastaudit', 'run', '-w', str(root), '-w', str(outside),
             '--', sys.executable, str(agent), str(root), str(outside)])
    assert p.returncode == 0, p.stderr
    res = json.loads(p.stdout.splitlines()[-1])
    assert res == {'native': True, 'in': 'ok', 'out': os.strerror(13)}
    assert not (outside / 'n').exists()


def test_require_says_the_exact_command(dirs, tmp_path):
    root, outside = dirs
    agent = tmp_path / 'agent.py'
    agent.write_text(AGENT)
    p = run([sys.executable, str(agent), str(root), str(outside)])
    assert p.returncode != 0
    msg = p.stderr.strip().splitlines()[-1]
    assert "mk_audit(native='require'): native checks are off" in msg
    assert 'os.execve(sys.executable, sys.orig_argv' in msg
    # the command the message gives, run as given, has native checks
    cmd = msg.split('start it as  ', 1)[1].split('  ', 1)[0]
    assert f'LD_PRELOAD={fastaudit.shim_path()}' in cmd
    p = run(['sh', '-c', cmd])
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout.splitlines()[-1]) == {'native': True, 'in': 'ok',
                                                     'out': os.strerror(13)}


def test_require_reexec_one_liner(dirs, tmp_path):
    root, outside = dirs
    host = tmp_path / 'host.py'
    host.write_text(textwrap.dedent('''
        import os, sys, fastaudit
        if 'libfashim' not in os.environ.get('LD_PRELOAD', ''):
            os.execve(sys.executable, sys.orig_argv,
                      dict(os.environ, LD_PRELOAD=fastaudit.shim_path()))
    ''') + AGENT)
    p = run([sys.executable, str(host), str(root), str(outside)])
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout.splitlines()[-1])['native'] is True

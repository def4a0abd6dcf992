# SPDX-License-Identifier: Apache-2.0
"""Programs an audit context lets start carry its roots.

A host that approves a process start (before_deny, a tracked tool) starts
the program under the context's policy: the preload with the context's
roots in its environment, and the kernel floor under it where Landlock is
available. Only fastaudit.UNCONFINED starts it as the host process is.
Every spawn API behaves the same. Each case runs a fresh host process,
with the shim preloaded unless the case says otherwise.
"""
import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

BUILD = os.environ.get('FA_BUILDDIR', '')
SHIM = os.environ.get('FA_SHIM') or os.path.join(BUILD, 'src', '.libs', 'libfashim.so')
FA_RUN = os.environ.get('FA_RUN') or os.path.join(BUILD, 'fa-run')
FLOOR = os.path.join(BUILD, 'tests', 'e2e', 'floor')

pytestmark = pytest.mark.skipif(not os.path.exists(SHIM), reason='libfashim.so not built')

HOST = '''
import json, os, shlex, shutil, subprocess, sys
import fastaudit
from fastaudit import mk_audit

cfg = json.loads(sys.argv[1])
STARTS = ('subprocess.Popen', 'os.system', 'os.posix_spawn', 'os.exec', 'pty.spawn')

def before_deny(event, args, *rest):
    if event in STARTS:
        return fastaudit.UNCONFINED if cfg.get('unconfined') else True
    return False

def start(api, argv):
    if api == 'subprocess':
        return subprocess.run(argv, stdin=subprocess.DEVNULL).returncode
    if api == 'system':
        return os.waitstatus_to_exitcode(os.system(shlex.join(argv)))
    path = shutil.which(argv[0])
    if api.endswith('_name'):
        # a bare name, taken as a path in the cwd (cfg['cwd'])
        api, path = api[:-len('_name')], argv[0]
    if api == 'posix_spawn':
        pid = os.posix_spawn(path, argv, os.environ)
    elif api == 'posix_spawnp':
        # by its bare name: libc searches PATH, the audit event carries the name
        pid = os.posix_spawnp(argv[0], argv, os.environ)
    elif api == 'exec':
        pid = os.fork()
        if pid == 0:
            try:
                os.execv(path, argv)
            finally:
                os._exit(127)
    elif api == 'pty':
        import pty
        return os.waitstatus_to_exitcode(pty.spawn(argv))
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])

res = []
if cfg.get('cwd'):
    os.chdir(cfg['cwd'])
kw = dict(monitor_calls=False, policy=cfg.get('policy'))
if cfg.get('learn'):
    kw['learn'] = True
else:
    kw['before_deny'] = before_deny
with mk_audit(cfg['roots'], **kw)():
    for argv in cfg['runs']:
        try:
            res.append(start(cfg['api'], argv))
        except OSError as e:
            res.append(type(e).__name__)
print(json.dumps(res))
'''

APIS = ['subprocess', 'posix_spawn', 'posix_spawnp', 'system', 'exec', 'pty']


def host(roots, runs, api='subprocess', unconfined=False, preload=True, under=None, **more):
    env = dict(os.environ)
    env.pop('LD_PRELOAD', None)
    for k in list(env):
        if k.startswith('FA_') and k != 'FA_BUILDDIR':
            del env[k]
    if preload:
        env['LD_PRELOAD'] = SHIM
    env['PYTHONPATH'] = os.pathsep.join(sys.path)
    cfg = dict(roots=[str(r) for r in roots], runs=runs, api=api, unconfined=unconfined, **more)
    cmd = [sys.executable, '-c', textwrap.dedent(HOST), json.dumps(cfg)]
    if under:
        if not os.path.exists(FA_RUN):
            pytest.skip('fa-run not built')
        cmd = [FA_RUN] + under + ['--'] + cmd
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr
    # under pty.spawn the child's stderr is the terminal, copied to the host's stdout
    return json.loads(p.stdout.splitlines()[-1]), p.stderr + p.stdout


def writers(target, src):
    """Three programs writing target: a shell, cp and a Python child."""
    return [
        ['sh', '-c', f'echo x > {target}'],
        ['cp', str(src), str(target) + '.cp'],
        [sys.executable, '-c', f'open({str(target) + ".py"!r}, "w").write("x")'],
    ]


@pytest.fixture
def src(tmp_path):
    f = tmp_path / 'src'
    f.write_text('data')
    return f


@pytest.mark.parametrize('api', APIS)
def test_approved_child_stays_inside(api, root, outside, src):
    r, err = host([root], writers(outside / 'f', src) + writers(root / 'f', src), api=api)
    # the three outside are refused by the child's own preload, with nothing created
    assert all(x != 0 for x in r[:3]), (r, err)
    assert os.listdir(outside) == [], err
    # and inside they work (pty.spawn closes the terminal when a program closes its
    # standard streams, and the hang-up may reach it before it exits: the disk says)
    ok = [0, -1] if api == 'pty' else [0]
    assert all(x in ok for x in r[3:]), (r, err)
    assert sorted(os.listdir(root)) == ['f', 'f.cp', 'f.py']
    # the denial names the context, and the fix is the context's
    assert "to mk_audit([...])'s roots" in err and '[outside-roots, audit context]' in err, err


@pytest.mark.parametrize('api', APIS)
def test_unconfined_is_explicit(api, root, outside, src):
    r, err = host([root], writers(outside / 'f', src), api=api, unconfined=True)
    ok = [0, -1] if api == 'pty' else [0]
    assert all(x in ok for x in r), (r, err)
    assert sorted(os.listdir(outside)) == ['f', 'f.cp', 'f.py']
    assert repr(__import__('fastaudit').UNCONFINED) == 'fastaudit.UNCONFINED'


@pytest.mark.parametrize('api', ['posix_spawn', 'exec'])
def test_a_bare_name_in_the_cwd(api, root, outside, src, tmp_path):
    # os.posix_spawn and os.execv run a bare name from the cwd, as execve
    # does: the approval is the name's, and the child stays confined
    bindir = tmp_path / 'bin'
    bindir.mkdir()
    for prog in ('sh', 'cp'):
        os.symlink(shutil.which(prog), bindir / prog)
    runs = [['sh', '-c', f'echo x > {root}/f'], ['cp', str(src), f'{root}/f.cp'],
            ['sh', '-c', f'echo x > {outside}/f']]
    r, err = host([root], runs, api=api + '_name', cwd=str(bindir))
    assert r[:2] == [0, 0] and r[2] != 0, (r, err)
    assert sorted(os.listdir(root)) == ['f', 'f.cp']
    assert os.listdir(outside) == [], err


def test_grandchild_is_confined(root, outside):
    inner = f'sh -c "echo x > {outside}/g"; echo y > {root}/g; exit 0'
    r, err = host([root], [['sh', '-c', f'sh -c {json.dumps(inner)}']])
    assert r == [0], (r, err)
    assert os.listdir(outside) == [] and os.listdir(root) == ['g'], err
    assert 'denied' in err


def test_child_of_child_python_host(root, outside):
    """A child started by a child (env -i clearing everything on the way) still carries the roots."""
    r, err = host([root], [['env', '-i', '/bin/sh', '-c', f'echo x > {outside}/e'],
                           ['env', '-i', '/bin/sh', '-c', f'echo x > {root}/e']])
    assert r[0] != 0 and r[1] == 0, (r, err)
    assert os.listdir(outside) == [] and os.listdir(root) == ['e']


def test_process_policy_meets_context(tmp_path, root, outside):
    """Under fa-run, the child's policy is the meet: fa-run's deny subtrees hold in it,
    fa-run's other roots do not open to it, and the context cannot widen fa-run."""
    secret = root / 'secret'
    secret.mkdir()
    wide = tmp_path / 'wide'
    wide.mkdir()
    runs = [['sh', '-c', f'echo x > {secret}/s'], ['sh', '-c', f'echo x > {root}/ok'],
            ['sh', '-c', f'echo x > {wide}/w'], ['sh', '-c', f'echo x > {outside}/o']]
    # the context names outside too: fa-run does not allow it, so neither may the child
    r, err = host([root, outside], runs, under=['-w', str(root), '-w', str(wide),
                                                '--deny', str(secret)])
    assert r[1] == 0 and r[0] != 0 and r[2] != 0 and r[3] != 0, (r, err)
    assert os.listdir(secret) == [] and os.listdir(wide) == [] and os.listdir(outside) == []
    assert sorted(os.listdir(root)) == ['ok', 'secret']
    assert 'deny-subtree' in err, err


def test_context_deny_subtree_and_symlinks_hold_in_child(tmp_path, root, outside):
    """A context from a policy file: its deny subtrees and symlink mode go to the child."""
    (root / 'keep').mkdir()
    (root / 'sub').mkdir()
    os.symlink('sub', root / 'in_link')
    pol = tmp_path / 'fa.policy'
    pol.write_text(f'root {root}\ndeny {root}/keep\nsymlinks nofollow\n')
    r, err = host([], [['sh', '-c', f'echo x > {root}/keep/c'], ['sh', '-c', f'echo x > {root}/ok'],
                       ['sh', '-c', f'echo x > {root}/in_link/l']], policy=str(pol))
    # a link inside the root, to a directory inside it: only the nofollow mode refuses it
    assert r[0] != 0 and r[1] == 0 and r[2] != 0, (r, err)
    assert os.listdir(root / 'keep') == [] and os.listdir(root / 'sub') == []
    assert 'deny-subtree' in err and '[symlink, audit context]' in err, err


def test_learning_context_refuses_nothing(root, outside):
    """mk_audit(learn=True) refuses nothing: the programs it lets start are not confined."""
    r, err = host([root], [['sh', '-c', f'echo x > {outside}/l']], learn=True)
    assert r == [0], (r, err)
    assert os.listdir(outside) == ['l']


def _landlock_abi():
    """The kernel's Landlock ABI (landlock_create_ruleset's version query), or 0."""
    import ctypes
    import platform
    nr = {'x86_64': 444, 'aarch64': 444}.get(platform.machine())
    if nr is None:
        return 0
    v = ctypes.CDLL(None, use_errno=True).syscall(nr, None, ctypes.c_size_t(0), ctypes.c_uint(1))
    return max(v, 0)


def test_floor_under_approved_child(root, outside):
    """A write the preload cannot see (the syscall instruction, no libc) in an approved
    child is refused by the floor the child's shim applied; inside the roots it works."""
    if not os.path.exists(FLOOR):
        pytest.skip('tests/e2e/floor not built')
    if not _landlock_abi():
        pytest.skip('no Landlock on this kernel')
    r, err = host([root], [[FLOOR, 'raw', str(outside / 'raw')], [FLOOR, 'raw', str(root / 'raw')]])
    assert r == [13, 0], (r, err)
    assert os.listdir(outside) == [] and os.listdir(root) == ['raw']


def test_without_landlock_preload_only(root, outside):
    """Where the child cannot have the floor, the preload alone confines it: what passes
    libc is refused, a raw system call is not (README: where the floor applies)."""
    if not os.path.exists(FLOOR):
        pytest.skip('tests/e2e/floor not built')
    env = dict(os.environ, LD_PRELOAD=SHIM, PYTHONPATH=os.pathsep.join(sys.path))
    cfg = dict(roots=[str(root)], api='subprocess',
               runs=[[FLOOR, 'raw', str(outside / 'raw')], ['sh', '-c', f'echo x > {outside}/sh']])
    p = subprocess.run([FLOOR, 'no-landlock', '38', sys.executable, '-c', textwrap.dedent(HOST),
                        json.dumps(cfg)], env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout.splitlines()[-1])
    assert r[0] == 0 and r[1] != 0, (r, p.stderr)
    assert os.listdir(outside) == ['raw']


def test_static_child_refused(root, outside):
    """A static program could carry neither the preload nor the floor: refused, named."""
    static = FLOOR + 'static'
    if not os.path.exists(static):
        pytest.skip('tests/e2e/floorstatic not built')
    r, err = host([root], [[static, 'raw', str(outside / 's')]])
    assert r == ['PermissionError'], (r, err)
    assert '[static-binary, audit context]' in err and os.listdir(outside) == []
    assert 'fastaudit.UNCONFINED starts it unconfined' in err and '--allow-static' not in err


def test_without_the_shim(root, outside):
    """Without the shim in the host nothing sees the start at the libc boundary: the
    approved child runs as the host process would (README: mk_audit(native='require'))."""
    r, err = host([root], [['sh', '-c', f'echo x > {outside}/n']], preload=False)
    assert r == [0], (r, err)
    assert os.listdir(outside) == ['n']

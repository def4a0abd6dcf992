# SPDX-License-Identifier: Apache-2.0
"""Every denial says the smallest change that would allow it.

The PermissionError of the audit hook and the OSError of a call the shim
refused both carry exc.fastaudit, a dict with the same keys (layer, rule,
fix), so that a program, or a model reading the exception, can tell the
guard refused it and what would allow it. The native records and the
--log line carry the same fix.
"""
import json
import os
import sys

import pytest

import fastaudit
from test_denials import run_logged
from test_native import SHIM


def refusal(fn, *a):
    with pytest.raises(PermissionError) as ei:
        fn(*a)
    return ei.value


def test_hook_outside_names_the_root(mk, root, outside):
    ap = mk([str(root)])
    with ap():
        e = refusal(open, str(outside / 'f'), 'w')
    fix = "add %s to mk_audit([...])'s roots" % outside
    assert e.fastaudit == {'layer': 'hook', 'rule': 'outside-roots', 'fix': fix}
    assert e.fix == fix
    assert len(e.__notes__) == 1 and e.__notes__[0].endswith('; to allow: ' + fix)
    assert os.listdir(outside) == []


def test_hook_missing_parents_name_the_nearest_existing_directory(mk, root, outside):
    ap = mk([str(root)])
    with ap():
        e = refusal(open, str(outside / 'a' / 'b' / 'f'), 'w')
    assert e.fastaudit['fix'] == "add %s to mk_audit([...])'s roots" % outside


def test_hook_sensitive_place_is_called_out(mk, root, tmp_path, monkeypatch):
    home = tmp_path / 'home'
    (home / '.ssh').mkdir(parents=True)
    monkeypatch.setenv('HOME', str(home))
    ap = mk([str(root)])
    with ap():
        e = refusal(open, str(home / '.ssh' / 'authorized_keys'), 'w')
    assert e.fastaudit['fix'].startswith(
        'think twice: %s is a sensitive place (it holds keys)' % (home / '.ssh'))
    assert not (home / '.ssh' / 'authorized_keys').exists()


def test_hook_hard_link_names_the_source_root(mk, root, outside):
    """No symlink option allows a hard link out: the root that holds its source does."""
    (outside / 'sub').mkdir()
    (outside / 'sub' / 'f').write_text('x')
    ap = mk([str(root)], allow_outside_symlinks=True)
    with ap():
        e = refusal(os.link, str(outside / 'sub' / 'f'), str(root / 'l'))
    assert e.fastaudit == {'layer': 'hook', 'rule': 'link-target',
                           'fix': "add %s to mk_audit([...])'s roots" % (outside / 'sub')}
    assert os.listdir(root) == []


def test_hook_outside_symlink_names_the_option(mk, root, outside):
    ap = mk([str(root)])
    with ap():
        e = refusal(os.symlink, str(outside), str(root / 'l'))
    assert e.fastaudit == {'layer': 'hook', 'rule': 'link-target',
                           'fix': 'pass allow_outside_symlinks=True to mk_audit()'}
    assert not os.path.lexists(root / 'l')


def test_hook_symlink_mode_names_the_keyword(mk, root):
    """A link refused by the context's symlink mode: the fix names mk_audit's keyword."""
    (root / 'real').write_text('x')
    os.symlink('real', str(root / 'l'))
    ap = mk([str(root)], symlinks='nofollow')
    with ap():
        e = refusal(open, str(root / 'l'), 'w')
    assert e.fastaudit['rule'] == 'symlink'
    assert e.fastaudit['fix'] == "pass symlinks='trust' to mk_audit(), or write to where the link leads"
    assert (root / 'real').read_text() == 'x'


@pytest.mark.skipif(not os.path.exists(SHIM), reason='libfashim.so not built')
def test_native_record_and_log_carry_the_fix(native_mods, root, outside, tmp_path):
    log = tmp_path / 'log.jsonl'
    r, err = run_logged(native_mods, root, outside, log, '''
        # native calls go on to libc; the call monitor (and its notes) needs 3.12+
        ap = mk_audit([root], native_calls='libc', monitor_calls=sys.version_info >= (3, 12))
        with ap():
            try:
                fa_probe.write_file(out + '/n', 'x')
            except OSError as e:
                res['guard'] = getattr(e, 'fastaudit', None)
        res['record'] = audit_state()['native_denials'][-1]['fix']
    ''')
    fix = "add %s to mk_audit([...])'s roots" % outside
    line = json.loads(log.read_text().splitlines()[-1])
    assert line['fix'] == fix and r['record'] == fix
    assert ('; to allow: ' + fix).encode() in err
    if sys.version_info >= (3, 12):  # the note and attribute come from sys.monitoring RAISE
        assert r['guard'] == {'layer': 'libc', 'rule': 'outside-roots', 'fix': fix}


@pytest.mark.skipif(not os.path.exists(SHIM), reason='libfashim.so not built')
def test_host_approval_is_logged_when_asked(native_mods, root, outside, tmp_path, monkeypatch):
    body = '''
        ap = mk_audit([root], before_deny=lambda *a: True, monitor_calls=False)
        with ap():
            with open(out + '/approved', 'w') as f:
                f.write('x')
        res['made'] = os.path.exists(out + '/approved')
    '''
    log = tmp_path / 'quiet.jsonl'
    r, err = run_logged(native_mods, root, outside, log, body)
    assert r['made'] and log.read_text() == ''      # not asked: no trail
    os.remove(outside / 'approved')
    monkeypatch.setenv('FA_LOG_APPROVALS', '1')
    log = tmp_path / 'trail.jsonl'
    r, err = run_logged(native_mods, root, outside, log, body)
    lines = [json.loads(l) for l in log.read_text().splitlines()]
    assert r['made'] and len(lines) == 1, lines
    d = lines[0]
    assert d['approved_by'] == 'host' and d['policy'] == 'context' and d['op'] == 'write'
    assert d['path'] == str(outside / 'approved') and d['rule'] is None and d['fix'] is None


def test_hook_blocked_event_says_who_can_allow_it(mk, root):
    import subprocess
    from fastaudit import recent_denials
    ap = mk([str(root)])
    with ap():
        e = refusal(subprocess.run, ['true'])
    assert e.fastaudit['layer'] == 'hook' and e.fastaudit['rule'] == 'blocked-event'
    assert 'subprocess.Popen' in e.fix and 'before_deny' in e.fix and 'track_call' in e.fix
    assert recent_denials()[-1]['fix'] == e.fix


def test_hook_recent_denials_carry_the_fix(mk, root, outside):
    from fastaudit import recent_denials
    ap = mk([str(root)])
    with ap():
        e = refusal(open, str(outside / 'g'), 'w')
    last = [d for d in recent_denials() if d['layer'] == 'hook'][-1]
    assert last['fix'] == e.fix == "add %s to mk_audit([...])'s roots" % outside


def test_hook_refusal_attributes_in_full(mk, root, outside):
    """A refused write-open carries every attribute, in the order vars() has
    always shown them, and one note that ends with the fix. The fix names the
    directories that exist at each refusal, and no two refusals share a
    mutable attribute."""
    from fastaudit import recent_denials
    target = outside / 'a' / 'f'
    real = os.path.realpath(target)
    ap = mk([str(root)])
    with ap():
        before = refusal(open, str(target), 'w')
    (outside / 'a').mkdir()
    with ap():
        after = [refusal(open, str(target), 'w') for _ in range(2)]
        last = [d for d in recent_denials() if d['layer'] == 'hook'][-1]
    for e, holder, err in ((before, outside, ': No such file or directory'),
                           (after[0], outside / 'a', ''), (after[1], outside / 'a', '')):
        fix = "add %s to mk_audit([...])'s roots" % holder
        assert list(vars(e)) == ['event', 'fix', 'fastaudit', 'path', 'resolved', 'rule',
                                 'op', 'roots', '__notes__']
        assert type(e) is fastaudit.AuditDenied and e.args == (str(e),)
        assert str(e) == 'open %r not in %r' % (str(target), (str(root),))
        assert (e.event, e.fix, e.path, e.resolved, e.rule, e.op, e.roots) == (
            'open', fix, str(target), real, 'outside-roots', 'write', (str(root),))
        assert e.fastaudit == {'layer': 'hook', 'rule': 'outside-roots', 'fix': fix}
        assert e.__notes__ == ['fastaudit: write judged at %s: not under any allowed root '
                               '(outside-roots)%s; to allow: %s' % (real, err, fix)]
    assert (last['message'], last['fix'], last['path']) == (str(after[1]), after[1].fix,
                                                            str(target))
    one, two = after
    one.fastaudit['rule'] = 'changed'
    one.__notes__.append('more')
    assert two.fastaudit['rule'] == 'outside-roots' and len(two.__notes__) == 1
    if sys.version_info >= (3, 11):
        two.add_note('added')
        assert two.__notes__[-1] == 'added' and len(two.__notes__) == 2
    assert os.listdir(outside / 'a') == []


def test_hook_refusal_without_a_fix_has_a_bare_note(tmp_path):
    """No change of policy allows a path that is not one: no fix, and the note
    says so without a "to allow" part."""
    from fastaudit import mk_audit
    with mk_audit([str(tmp_path)], monitor_calls=False)():
        e = refusal(sys.audit, 'open', f'{tmp_path}/in\x00side', 'w', os.O_WRONLY)
    assert e.fix is None and e.fastaudit == {'layer': 'hook', 'rule': 'not-a-path', 'fix': None}
    assert e.__notes__ == ['fastaudit: the argument is not a path (not-a-path)']
    assert list(vars(e)) == ['event', 'fix', 'fastaudit', 'path', 'resolved', 'rule', 'op',
                             'roots', '__notes__']
    assert (e.resolved, e.op, e.roots) == (None, None, (str(tmp_path),))


def test_hook_fix_of_an_undecodable_directory(mk, root, outside):
    """A directory name that is not UTF-8 reaches the fix and the note as the
    file-system encoding decodes it, alike in both."""
    odd = os.fsencode(outside) + b'/\xffodd'
    os.mkdir(odd)
    ap = mk([str(root)])
    with ap():
        e = refusal(open, odd + b'/f', 'w')
    fix = "add %s to mk_audit([...])'s roots" % os.fsdecode(odd)
    assert e.fix == fix and e.fastaudit['fix'] == fix
    assert e.__notes__[0].endswith('; to allow: ' + fix)
    assert os.listdir(odd) == []


def test_hook_blocked_event_attributes_in_full(mk, root):
    """An event refused outright carries the event, the fix, exc.fastaudit,
    the rule and one note that ends with the fix, as a path's refusal does
    (no path, no roots)."""
    ap = mk([str(root)], monitor_calls=False)
    with ap():
        e = refusal(sys.audit, 'fa_test.blocked', 1)
    assert list(vars(e)) == ['event', 'fix', 'fastaudit', 'rule', '__notes__']
    assert e.event == 'fa_test.blocked' and 'fa_test.blocked' in e.fix
    assert e.fastaudit == {'layer': 'hook', 'rule': 'blocked-event', 'fix': e.fix}
    assert e.rule == 'blocked-event' and e.path is None and e.roots is None
    assert e.__notes__ == ['fastaudit: fa_test.blocked refused: the audit context refuses '
                           'events it does not list (blocked-event); to allow: ' + e.fix]
    assert str(e).startswith("Audit: fa_test.blocked blocked in sandbox with args: (1,)")


@pytest.mark.parametrize('name, op, judged, holder, err', [
    ('d', 'dir', 'd', '', ''),                       # a directory is judged as one
    ('lnd', 'dir', 'd', '', ''),                     # and so is a link to one
    ('file', 'write', 'file', '', ''),               # something there
    ('new', 'write', 'new', '', ''),                 # nothing there
    ('ln', 'write', '../other/missing', '../other', ''),   # nothing where a link leads
    ('ln2', 'write', 'nodir/x', '', ': No such file or directory'),
])
def test_hook_refusal_says_what_is_there(mk, root, outside, name, op, judged, holder, err):
    """What a refused write-open names depends on what lies at the path: a
    directory is judged as a directory, and the fix names the nearest
    directory that exists, wherever a link leads."""
    (outside / 'd').mkdir()
    (outside / 'file').write_text('x')
    (outside.parent / 'other').mkdir()
    os.symlink(outside / 'd', outside / 'lnd')
    os.symlink(outside.parent / 'other' / 'missing', outside / 'ln')
    os.symlink(outside / 'nodir' / 'x', outside / 'ln2')
    real = os.path.realpath(outside)
    ap = mk([str(root)])
    with ap():
        e = refusal(open, str(outside / name), 'w')
    judged = os.path.normpath(os.path.join(real, judged))
    fix = "add %s to mk_audit([...])'s roots" % os.path.normpath(os.path.join(real, holder))
    assert (e.op, e.rule, e.resolved, e.fix) == (op, 'outside-roots', judged, fix)
    assert e.__notes__ == ['fastaudit: %s judged at %s: not under any allowed root '
                           '(outside-roots)%s; to allow: %s' % (op, judged, err, fix)]
    assert (outside / 'file').read_text() == 'x'
    assert sorted(os.listdir(outside)) == ['d', 'file', 'ln', 'ln2', 'lnd']
    assert os.listdir(outside.parent / 'other') == []

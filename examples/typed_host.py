# SPDX-License-Identifier: Apache-2.0
"""A typed agent runner: model-written steps run in an audit context.

Each step is code a model wrote; it runs inside
``mk_audit([workdir], preset='data')``, so it may write beneath the workdir
and nowhere else (natively too, with libfashim.so loaded). The host's one trusted
tool, ``save_report``, writes reports to a directory of the host's own:
``track_call`` marks its calls, and the host's ``before_deny`` approves the
writes made while one of them runs. The host reads results back with
``safe_open`` and a ``Workspace``, which never leave the workdir.

The tests check this file with ``mypy --strict`` and run it.
"""
from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from types import FrameType
from typing import TYPE_CHECKING, Any

from fastaudit import (AuditDenied, TrackedCall, Workspace, WorkspaceEscapeError, audit_state,
                       mk_audit, recent_denials, safe_open, track_call)

if TYPE_CHECKING:
    from fastaudit._fastaudit import Denial, audit_perms

TRUSTED_TOOLS = frozenset({'__main__.save_report', 'typed_host.save_report'})


def host_policy(event: str, args: tuple[Any, ...], frame: FrameType | None, msg: str,
                data: Any, calls: tuple[TrackedCall, ...]) -> bool:
    """Approve a refused event only while a trusted tool's call runs."""
    return event == 'open' and any(c.name in data for c in calls)


@track_call
async def save_report(reports: str, name: str, text: str) -> int:
    """The host's tool: writes a report outside the workdir."""
    with open(os.path.join(reports, name), 'w') as f:
        return f.write(text)


STEPS: dict[str, str] = {
    'inside': "open(WORKDIR + '/result.txt', 'w').write('42\\n')",
    'outside': "open(OUTSIDE + '/stolen.txt', 'w').write('x')",
}


def describe(d: Denial) -> str:
    """One line for a denial of either layer."""
    if d['layer'] == 'hook':
        return f"hook {d['rule']}: {d['message']}"
    return f"libc {d['rule']}: {d['call']}({d['path']}): {d['reason']}"


async def run_step(perms: audit_perms, name: str, code: str,
                   env: dict[str, object]) -> str:
    """Run one step in the context; what the model is told."""
    compiled = compile(code, f'<step {name}>', 'exec')
    with perms():
        try:
            exec(compiled, dict(env))
        except AuditDenied as e:
            # str(e) is what the guard said; e.rule and e.fix what a model can act on
            return f'refused ({e.rule}): {e}' + (f'\n  to allow: {e.fix}' if e.fix else '')
        await save_report(str(env['REPORTS']), f'{name}.txt', f'step {name} ran\n')
    return 'ok'


async def main() -> int:
    workdir = tempfile.mkdtemp(prefix='typed-host-work-')
    reports = tempfile.mkdtemp(prefix='typed-host-reports-')
    outside = tempfile.mkdtemp(prefix='typed-host-outside-')
    perms = mk_audit([workdir], before_deny=host_policy, data=TRUSTED_TOOLS, preset='data')
    env: dict[str, object] = {'WORKDIR': workdir, 'OUTSIDE': outside, 'REPORTS': reports}
    for name, code in STEPS.items():
        print(f'{name}: {await run_step(perms, name, code, env)}')

    state = audit_state()
    print(f"active={state['active']} native={state['native']} ({state['native_reason']})")
    with perms():
        mode = audit_state()
        print(f"in a context: threads={mode.get('threads')} "
              f"native calls={mode.get('native_calls')}: {mode.get('native_calls_why')}")
    for d in recent_denials():
        print(describe(d))

    with safe_open(workdir, 'result.txt') as f:
        result = f.read().strip()
    with Workspace(reports) as ws:
        saved = sorted(ws.listdir())
        try:
            ws.read_text('../escape.txt')
        except WorkspaceEscapeError as e:
            print(f'workspace refused {e.path!r}: {e.reason}')
    print(f'result={result} reports={saved}')
    return 0 if result == '42' and saved == ['inside.txt'] else 1


if __name__ == '__main__':
    sys.exit(asyncio.run(main()))

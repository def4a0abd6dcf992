# SPDX-License-Identifier: Apache-2.0
"""python -m fastaudit kernel install: a Jupyter kernel with the shim loaded.

The kernel is this interpreter's ordinary ipykernel; its kernelspec's
``env`` sets ``LD_PRELOAD`` to this install's libfashim.so, which the
dynamic loader needs before the interpreter starts, so that audit contexts
in the kernel (``%fastaudit on``) judge native writes too.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
from typing import List, Optional

_USAGE = '''usage: python -m fastaudit kernel install [--name NAME] [--display-name TEXT]
                                          [--user | --prefix PREFIX]'''
_NAME_OK = re.compile(r'^[a-zA-Z0-9._-]+$')


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f'{self.format_usage()}python -m fastaudit kernel: {message}\n')


def _parser() -> _Parser:
    p = _Parser(prog='python -m fastaudit kernel', usage=_USAGE.split(': ', 1)[1],
                description='Install a Jupyter kernelspec whose kernel (ipykernel on this '
                            'interpreter) starts with libfashim.so loaded, so that '
                            '%fastaudit on judges native writes too.')
    sub = p.add_subparsers(dest='command', metavar='install')
    sub.required = True
    i = sub.add_parser('install', help='install the kernelspec', usage=_USAGE.split(': ', 1)[1])
    i.error = p.error  # type: ignore[method-assign]
    i.add_argument('--name', default='fastaudit',
                   help='the kernel name (letters, digits, ".", "_", "-"); default fastaudit')
    i.add_argument('--display-name', default=None,
                   help='the name notebooks show; default "Python 3 (fastaudit)"')
    where = i.add_mutually_exclusive_group()
    where.add_argument('--user', action='store_true',
                       help="into the user's Jupyter data directory (the default)")
    where.add_argument('--prefix', metavar='PREFIX',
                       help='into PREFIX/share/jupyter/kernels, e.g. sys.prefix of a venv')
    return p


def kernel_json(display_name: str) -> dict[str, object]:
    """The kernelspec: this interpreter's ipykernel, the shim preloaded."""
    from ._shim import shim_path
    return {
        'argv': [sys.executable, '-m', 'ipykernel_launcher', '-f', '{connection_file}'],
        'display_name': display_name,
        'language': 'python',
        'env': {'LD_PRELOAD': shim_path()},
        'metadata': {'debugger': True},
    }


def install(name: str, display_name: Optional[str], user: bool,
            prefix: Optional[str]) -> str:
    """Install the kernelspec; returns the directory it went to."""
    from jupyter_client.kernelspec import KernelSpecManager
    spec = kernel_json(display_name or f'Python {sys.version_info[0]} (fastaudit)')
    with tempfile.TemporaryDirectory(prefix='fastaudit-kernel-') as tmp:
        with open(os.path.join(tmp, 'kernel.json'), 'w') as f:
            json.dump(spec, f, indent=1)
            f.write('\n')
        # ipykernel's logos, when it has them
        try:
            import ipykernel
            res = os.path.join(os.path.dirname(ipykernel.__file__), 'resources')
            for logo in ('logo-32x32.png', 'logo-64x64.png', 'logo-svg.svg'):
                if os.path.exists(os.path.join(res, logo)):
                    shutil.copy(os.path.join(res, logo), tmp)
        except ImportError:
            pass
        return str(KernelSpecManager().install_kernel_spec(
            tmp, kernel_name=name, user=not prefix, prefix=prefix))


def main(argv: List[str]) -> int:
    args = _parser().parse_args(argv)
    if not _NAME_OK.match(args.name):
        print(f'python -m fastaudit kernel: --name {args.name!r}: a kernel name is letters, '
              f'digits, ".", "_" and "-"', file=sys.stderr)
        return 2
    missing = [m for m in ('ipykernel', 'jupyter_client') if _missing(m)]
    if missing:
        print(f"python -m fastaudit kernel: {' and '.join(missing)} not installed for "
              f"{sys.executable}; install with: {sys.executable} -m pip install "
              f"{' '.join(missing)}", file=sys.stderr)
        return 1
    try:
        where = install(args.name, args.display_name, args.user, args.prefix)
    except FileNotFoundError as e:     # the shim is missing from this install
        print(f'python -m fastaudit kernel: {e}', file=sys.stderr)
        return 1
    except OSError as e:
        print(f'python -m fastaudit kernel: cannot install into '
              f'{args.prefix or "the user data directory"}: {e}', file=sys.stderr)
        return 1
    print(f'Installed kernelspec {args.name} in {where}\n'
          f'Its kernel starts with libfashim.so loaded; in a notebook on it: '
          f'%load_ext fastaudit, then %fastaudit on DIR')
    return 0


def _missing(module: str) -> bool:
    import importlib.util
    return importlib.util.find_spec(module) is None

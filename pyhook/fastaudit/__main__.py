# SPDX-License-Identifier: Apache-2.0
"""python -m fastaudit run|check|kernel ARGS.

run and check: this process becomes fa-run (fa-check), so options,
messages and exit statuses are theirs. kernel install: a Jupyter kernelspec
whose kernel starts with this install's libfashim.so loaded.
"""
import sys

from ._cmd import exec_program

_PROGRAMS = {'run': 'fa-run', 'check': 'fa-check'}
_USAGE = '''usage: python -m fastaudit run [FA-RUN OPTION]... [--] COMMAND [ARG]...
       python -m fastaudit check [FA-CHECK OPTION]... [--] PATH...
       python -m fastaudit kernel install [--name NAME] [--display-name TEXT]
                                          [--user | --prefix PREFIX]
run is fa-run and check is fa-check (see --help of each); the exit status
is theirs. kernel install installs a Jupyter kernelspec (default name
fastaudit, into the user's data directory) whose kernel runs with the shim
loaded, for %load_ext fastaudit. Without one of them: this text, and exit
status 2.'''


def main(argv):
    if argv[:1] in (['-h'], ['--help']):
        print(_USAGE)
        return 0
    if argv[:1] == ['kernel']:
        from ._kernelspec import main as kernel_main
        return kernel_main(argv[1:])
    if not argv or argv[0] not in _PROGRAMS:
        print(_USAGE, file=sys.stderr)
        return 2
    return exec_program(_PROGRAMS[argv[0]], argv[1:])


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))

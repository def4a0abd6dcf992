"""python -m fastaudit run|check ARGS: fa-run and fa-check of this install.

This process becomes the program, so options, messages and exit statuses
are fa-run's (fa-check's for check).
"""
import sys

from _fastaudit_cmd import exec_program

_PROGRAMS = {'run': 'fa-run', 'check': 'fa-check'}
_USAGE = '''usage: python -m fastaudit run [FA-RUN OPTION]... [--] COMMAND [ARG]...
       python -m fastaudit check [FA-CHECK OPTION]... [--] PATH...
run is fa-run and check is fa-check (see --help of each); the exit status
is theirs. Without one of them: this text, and exit status 2.'''


def main(argv):
    if argv[:1] in (['-h'], ['--help']):
        print(_USAGE)
        return 0
    if not argv or argv[0] not in _PROGRAMS:
        print(_USAGE, file=sys.stderr)
        return 2
    return exec_program(_PROGRAMS[argv[0]], argv[1:])


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))

# SPDX-License-Identifier: Apache-2.0
"""The PEP 517 build backend: wheels and sdists from the autotools build.

There is one build. A wheel is ``configure`` + ``make`` + ``make
install-strip`` into a staging directory; the wheel holds the installed
site directory (the ``fastaudit`` package) as it is, except that the package's
``lib/`` and ``bin/`` links (to the shim and the two programs, see pyhook/local.mk) are
replaced by the files they name. Which files are compiled, with which flags,
and where they install is decided by configure.ac and the Makefiles alone.

The commands: for each program of the package's ``bin/`` (``fa-run``,
``fa-check``) the wheel's scripts hold a launcher of that name, which pip puts
next to the interpreter. It finds the package with
``importlib.util.find_spec``, which does not run the package's ``__init__``
(the hook's configuration, importlib.metadata, inspect: tens of
milliseconds a command has no use for), and becomes the program through the
package's ``_cmd.py``, loaded by its path, as ``python -m fastaudit`` does.

The sdist is ``make dist``, whose tarball is named and laid out as PEP 625
wants (AC_INIT's tarname) and carries PKG-INFO (written by this module, see
the dist-hook in Makefile.am).

The static metadata is pyproject.toml's [project] table; the version is
AC_INIT's in configure.ac, the one place it is written.

Config settings (pip install --config-settings KEY=VALUE):
  configure-args   more arguments for configure, split like a shell would
  keep-build       1: keep the temporary build directory and say where it is
"""
import base64
import hashlib
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
import sysconfig
import tempfile
import time
import zipfile

try:
    import tomllib
except ImportError:  # Python 3.10: pyproject.toml's build requirements add tomli
    import tomli as tomllib

# Keys of [project] this backend turns into metadata; any other key is an
# error rather than something silently left out.
_PROJECT_KEYS = {'name', 'description', 'readme', 'requires-python', 'keywords', 'classifiers',
                 'urls', 'scripts', 'entry-points', 'dynamic', 'license',
                 'optional-dependencies'}


class BuildError(Exception):
    pass


def _src():
    # PEP 517 runs every hook in the source tree.
    return os.path.abspath(os.curdir)


def _project(src):
    with open(os.path.join(src, 'pyproject.toml'), 'rb') as f:
        project = tomllib.load(f)['project']
    unknown = set(project) - _PROJECT_KEYS
    if unknown:
        raise BuildError('pyproject.toml: [project] keys this backend does not handle: '
                         + ', '.join(sorted(unknown)))
    if project.get('dynamic') != ['version'] or 'version' in project:
        raise BuildError("pyproject.toml: the version comes from configure.ac's AC_INIT: "
                         "write dynamic = [\"version\"] and no version")
    return project


def _version(src):
    with open(os.path.join(src, 'configure.ac')) as f:
        m = re.search(r'^AC_INIT\(\[[^]]*\],\s*\[([^]]+)\]', f.read(), re.M)
    if not m:
        raise BuildError('configure.ac: no AC_INIT([name], [version], ...) line')
    return m.group(1)


def _dist_name(project):
    return re.sub(r'[-_.]+', '_', project['name']).lower()


def _metadata(src):
    """The core metadata (PKG-INFO in the sdist, METADATA in the wheel)."""
    project = _project(src)
    lines = ['Metadata-Version: 2.1', f'Name: {project["name"]}',
             f'Version: {_version(src)}']
    if 'description' in project:
        lines.append(f'Summary: {project["description"]}')
    if 'license' in project:
        # An SPDX expression (PEP 639); Metadata 2.1 carries it as License.
        if not isinstance(project['license'], str):
            raise BuildError('pyproject.toml: license must be an SPDX expression string')
        lines.append(f'License: {project["license"]}')
    if 'keywords' in project:
        lines.append('Keywords: ' + ','.join(project['keywords']))
    for c in project.get('classifiers', ()):
        lines.append(f'Classifier: {c}')
    for label, url in project.get('urls', {}).items():
        lines.append(f'Project-URL: {label}, {url}')
    if 'requires-python' in project:
        lines.append(f'Requires-Python: {project["requires-python"]}')
    for extra, reqs in project.get('optional-dependencies', {}).items():
        lines.append(f'Provides-Extra: {extra}')
        for req in reqs:
            # PEP 508: the extra joins the requirement's own marker, if any.
            spec, _, marker = req.partition(';')
            when = f'({marker.strip()}) and extra == "{extra}"' if marker.strip() \
                else f'extra == "{extra}"'
            lines.append(f'Requires-Dist: {spec.strip()}; {when}')
    body = ''
    if 'readme' in project:
        readme = project['readme']
        if not isinstance(readme, str) or not readme.endswith('.md'):
            raise BuildError('pyproject.toml: readme must name a .md file')
        lines.append('Description-Content-Type: text/markdown')
        with open(os.path.join(src, readme), encoding='utf-8') as f:
            body = f.read()
    return '\n'.join(lines) + '\n\n' + body


def _entry_points(src):
    project = _project(src)
    groups = dict(project.get('entry-points', {}))
    if 'scripts' in project:
        groups['console_scripts'] = project['scripts']
    return ''.join(f'[{g}]\n' + ''.join(f'{k} = {v}\n' for k, v in eps.items()) + '\n'
                   for g, eps in groups.items())


def _run(cmd, cwd, what):
    """Run a build step; its output is shown only when it fails."""
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, errors='replace')
    except FileNotFoundError:
        raise BuildError(f'{what}: {cmd[0]} is not installed; building fastaudit-native needs '
                         f'a C compiler, make and the Python headers') from None
    if p.returncode:
        sys.stderr.write(p.stdout)
        raise BuildError(f'{what} failed (exit {p.returncode}): {shlex.join(cmd)} in {cwd}')
    return p.stdout


def _bootstrap(src):
    """A git checkout has no configure: make it, as a developer would."""
    if os.path.exists(os.path.join(src, 'configure')) and \
            not os.path.exists(os.path.join(src, '.git')):
        return
    if not shutil.which('autoreconf'):
        raise BuildError('building from a git checkout needs autoconf, automake and libtool '
                         '(Debian: apt-get install autoconf automake libtool pkg-config), or '
                         'install from the sdist or a wheel, which need none of them')
    _run(['autoreconf', '-fi'], src, 'autoreconf')


def _configure(src, build, config_settings, *args):
    extra = shlex.split((config_settings or {}).get('configure-args', ''))
    # Maintainer mode off: unpacked mtimes must not make make re-run automake.
    _run([os.path.join(src, 'configure'), '--disable-maintainer-mode', *args, *extra],
         build, 'configure')


def _make(build, *targets):
    jobs = [] if '-j' in os.environ.get('MAKEFLAGS', '') else [f'-j{os.cpu_count() or 1}']
    _run(['make', *jobs, *targets], build, 'make ' + ' '.join(targets))


def _tag():
    if sys.implementation.name != 'cpython':
        raise BuildError('fastaudit is a CPython extension: build it with CPython')
    if not sys.platform.startswith('linux'):
        raise BuildError('fastaudit-native needs Linux (an LD_PRELOAD shim over glibc)')
    v = '%d%d' % sys.version_info[:2]
    abi = 'cp' + v + ('t' if sysconfig.get_config_var('Py_GIL_DISABLED') else '')
    plat = re.sub(r'[-.]', '_', sysconfig.get_platform())
    return f'cp{v}-{abi}-{plat}'


def _staged_package(stage):
    for dirpath, dirnames, filenames in os.walk(stage):
        if os.path.basename(dirpath) == 'fastaudit' and '__init__.py' in filenames:
            return dirpath
    raise BuildError(f'make install put no fastaudit package under {stage}')


def _site_files(stage, site):
    """(name in the wheel, path of the content) for the staged site directory.

    Links are replaced by what they name in the staging tree: make install
    links the package's lib/ and bin/ to $libdir and $bindir, which exist
    here under the staging directory.
    """
    out = []
    for dirpath, dirnames, filenames in os.walk(site):
        dirnames[:] = sorted(d for d in dirnames if d != '__pycache__')
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            content = path
            if os.path.islink(path):
                target = os.readlink(path)
                content = (stage + target if os.path.isabs(target)
                           else os.path.join(dirpath, target))
                if not os.path.isfile(content):
                    raise BuildError(f'{path} links to {target}, which make install did '
                                     f'not put under {stage}')
            rel = os.path.relpath(path, site)
            out.append((rel.replace(os.sep, '/'), os.path.realpath(content)))
    return out


# A command of the wheel: pip writes this interpreter's path over #!python.
_LAUNCHER = """#!python
# {name} of fastaudit-native: becomes the program of that name in the
# fastaudit package's bin/ (written by pybuild/fa_build.py).
import sys
from importlib.util import find_spec, module_from_spec, spec_from_file_location

# The package's place without running its __init__, then _cmd.py by its path.
pkg = find_spec('fastaudit')
if pkg is None or not pkg.submodule_search_locations:
    sys.exit('{name}: the fastaudit package is not installed for ' + sys.executable
             + '; reinstall fastaudit-native')
cmd = spec_from_file_location('fastaudit._cmd',
                              pkg.submodule_search_locations[0] + '/_cmd.py')
mod = module_from_spec(cmd)
cmd.loader.exec_module(mod)
sys.exit(mod.exec_program('{name}', sys.argv[1:]))
"""


def _launchers(site_files):
    """(name in the wheel's scripts, text) for each program of fastaudit/bin/."""
    progs = sorted(rel[len('fastaudit/bin/'):] for rel, _ in site_files
                   if rel.startswith('fastaudit/bin/') and rel.count('/') == 2)
    if not progs:
        raise BuildError('make install put no program in the fastaudit package\'s bin/')
    return [(p, _LAUNCHER.format(name=p)) for p in progs]


def _zip_time():
    t = int(os.environ.get('SOURCE_DATE_EPOCH', 315532800))
    return time.gmtime(max(t, 315532800))[:6]


class _Wheel:
    def __init__(self, path):
        self.zip = zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED)
        self.record = []

    def add(self, name, data, mode=0o644):
        info = zipfile.ZipInfo(name, _zip_time())
        info.external_attr = (stat.S_IFREG | mode) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=')
        self.record.append(f'{name},sha256={digest.decode()},{len(data)}')

    def close(self, record_name):
        self.record.append(f'{record_name},,')
        info = zipfile.ZipInfo(record_name, _zip_time())
        info.external_attr = (stat.S_IFREG | 0o644) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, '\n'.join(self.record) + '\n')
        self.zip.close()


def _dist_info(src, tag=None):
    files = {'METADATA': _metadata(src)}
    eps = _entry_points(src)
    if eps:
        files['entry_points.txt'] = eps
    if tag:
        files['WHEEL'] = ('Wheel-Version: 1.0\nGenerator: fastaudit pybuild\n'
                          f'Root-Is-Purelib: false\nTag: {tag}\n')
    return files


# PEP 517 hooks

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    src = _src()
    name = f'{_dist_name(_project(src))}-{_version(src)}.dist-info'
    os.makedirs(os.path.join(metadata_directory, name), exist_ok=True)
    for fname, text in _dist_info(src).items():
        with open(os.path.join(metadata_directory, name, fname), 'w', encoding='utf-8') as f:
            f.write(text)
    return name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    src = _src()
    project = _project(src)
    version, tag = _version(src), _tag()
    _bootstrap(src)
    tmp = tempfile.mkdtemp(prefix='fastaudit-wheel-')
    try:
        build, stage = os.path.join(tmp, 'build'), os.path.join(tmp, 'stage')
        os.mkdir(build)
        _configure(src, build, config_settings, f'PYTHON={sys.executable}')
        _make(build)
        _make(build, 'install-strip', f'DESTDIR={stage}')
        pkg = _staged_package(stage)
        with open(os.path.join(pkg, '_version.py')) as f:
            if repr(version) not in f.read():
                raise BuildError(f'{pkg}/_version.py does not say {version}')
        name = f'{_dist_name(project)}-{version}-{tag}.whl'
        wheel = _Wheel(os.path.join(wheel_directory, name))
        # the site directory: the package, its programs in its bin/
        site = _site_files(stage, os.path.dirname(pkg))
        for rel, content in site:
            with open(content, 'rb') as f:
                data = f.read()
            wheel.add(rel, data, 0o755 if os.access(content, os.X_OK) else 0o644)
        data_dir = f'{_dist_name(project)}-{version}.data'
        for prog, text in _launchers(site):
            wheel.add(f'{data_dir}/scripts/{prog}', text.encode(), 0o755)
        info = f'{_dist_name(project)}-{version}.dist-info'
        for fname, text in _dist_info(src, tag).items():
            wheel.add(f'{info}/{fname}', text.encode())
        wheel.close(f'{info}/RECORD')
        return name
    finally:
        if (config_settings or {}).get('keep-build') == '1':
            print(f'fa_build: build directory kept: {tmp}', file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def build_sdist(sdist_directory, config_settings=None):
    src = _src()
    _bootstrap(src)
    tmp = tempfile.mkdtemp(prefix='fastaudit-sdist-')
    try:
        # No Python headers are needed to collect the sources.
        _configure(src, tmp, config_settings, '--without-python')
        _make(tmp, 'dist', f'PYTHON_FOR_DIST={sys.executable}')
        name = f'{_dist_name(_project(src))}-{_version(src)}.tar.gz'
        if not os.path.exists(os.path.join(tmp, name)):
            raise BuildError(f'make dist made no {name}: is AC_INIT\'s tarname the '
                             f'normalised project name?')
        shutil.move(os.path.join(tmp, name), os.path.join(sdist_directory, name))
        return name
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _main(argv):
    if len(argv) == 2 and argv[0] == 'pkg-info':
        sys.stdout.write(_metadata(os.path.abspath(argv[1])))
        return 0
    print('usage: fa_build.py pkg-info SRCDIR   (the sdist\'s PKG-INFO, on stdout)',
          file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(_main(sys.argv[1:]))

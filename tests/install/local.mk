# SPDX-License-Identifier: Apache-2.0
# tests/install: what an install gives a user (the shim, fa-run and fa-check
# reached through the package, python -m fastaudit run, the version), run
# against the build tree by make check and against an installed wheel by
# make check-installed.
if WITH_PYTHON
if HAVE_PYTEST
PY_TESTS += %D%/test_install.py
endif
endif
EXTRA_DIST += %D%/test_install.py

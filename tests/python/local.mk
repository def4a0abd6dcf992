# SPDX-License-Identifier: Apache-2.0
# tests/python: pytest suites for the fastaudit package, each named once below.
python_suites = \
	%D%/test_api.py \
	%D%/test_paths.py \
	%D%/test_events.py \
	%D%/test_context.py \
	%D%/test_monitor.py \
	%D%/test_imports.py \
	%D%/test_native.py \
	%D%/test_pools.py \
	%D%/test_bridge_life.py \
	%D%/test_exec_search.py \
	%D%/test_denials.py \
	%D%/test_explain.py \
	%D%/test_audit_denied.py \
	%D%/test_symlinks.py \
	%D%/test_deny.py \
	%D%/test_bridge_abi.py \
	%D%/test_hook_reentry.py \
	%D%/test_hook_denials.py \
	%D%/test_hook_paths.py \
	%D%/test_hook_proofs.py \
	%D%/test_learn.py \
	%D%/test_children.py \
	%D%/test_native_outcomes.py \
	%D%/test_preset.py \
	%D%/test_notebook.py \
	%D%/test_typing.py \
	%D%/test_readme.py \
	%D%/test_reference_suite.py \
	%D%/test_audited.py \
	%D%/test_dask.py \
	%D%/test_ray.py
if WITH_PYTHON
if HAVE_PYTEST
PY_TESTS += $(python_suites)
else
# One line instead of a failure per suite (configure found what is missing).
check-local: python-suites-skipped
python-suites-skipped:
	@echo "SKIP: the Python suites: $(PYTHON) has no $(FA_PY_MISSING); get them with:" \
		"$(PYTHON) -m pip install -r $(srcdir)/%D%/requirements.txt" "(then re-run configure)"
endif
# The reference suite's downloads and environments, cached in the build tree.
clean-local: reference-suite-clean
reference-suite-clean:
	-rm -rf tests/reference-suite
endif
.PHONY: reference-suite-clean
EXTRA_DIST += %D%/conftest.py %D%/requirements.txt $(python_suites)
# The tenants' task that test_dask.py and test_ray.py run on their clusters.
EXTRA_DIST += %D%/tenant_tasks.py %D%/disk.py
# test_typing.py's typed host, and the misuses mypy must reject.
EXTRA_DIST += examples/typed_host.py %D%/typed_host_bad.py

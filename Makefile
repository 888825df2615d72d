# xlsearch — two commands on a fresh machine: `make run` (main job) and `make test` (test suite).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# CPU build by default; a torch already in the venv (e.g. a CUDA build) is kept as it is.
TORCH_SPEC ?= torch==2.13.0
STAMP := $(VENV)/.installed

.PHONY: help venv run test test-fast typecheck check bench student gpu-prepare gpu-check clean

help:  ## list targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*##/\t/'

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -c "import torch" 2>/dev/null || $(PY) -m pip install -q "$(TORCH_SPEC)"
	$(PY) -m pip install -q -e ".[dev]"
	@touch $(STAMP)

venv: $(STAMP)  ## create the virtual environment and install xlsearch

run: $(STAMP)  ## first run builds the demo student + index, then opens the TUI
	$(VENV)/bin/xlsearch demo $(ARGS)

# the suite on TEST_WORKERS processes (pytest-xdist), one test file per worker at a time
TEST_WORKERS ?= 2

test: typecheck  ## type-check, then run the test suite (offline; TEST_WORKERS=2 processes)
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder $(PYTEST_ARGS)

typecheck: $(STAMP)  ## mypy (pyproject.toml: strict on the service and the fronts; cache in .mypy_cache)
	$(VENV)/bin/mypy

test-fast: $(STAMP)  ## the fast subset for the inner loop: no slow tests, stop at the first failure
	$(PY) -m pytest -m "not slow" -x -q $(PYTEST_ARGS)

check: $(STAMP)  ## lint
	$(VENV)/bin/ruff check xlsearch tests bench
	$(VENV)/bin/ruff format --check xlsearch tests bench

bench: $(STAMP)  ## run the benchmarks (needs ../shared/data or XLSEARCH_BENCH_DATA)
	$(PY) bench/encode.py

student: $(STAMP)  ## rebuild the shipped multilingual student from ../shared/data into build/student/ (~1.5 h on 2 busy cores)
	$(PY) bench/student.py all $(ARGS)
	@echo "to ship it: replace assets/models/multilingual with build/student/shipped/multilingual (one commit)"

# The GPU check runs where the venv may not exist (a borrowed GPU machine with torch,
# transformers, sentencepiece and safetensors): the venv's python when there is one, else python3.
GPU_PY ?= $(if $(wildcard $(PY)),$(PY),$(PYTHON))
GPU_JSON ?= $(if $(OUT),$(OUT),bench/out)/gpu-check.json

gpu-prepare: $(STAMP)  ## write .gpu/ (teacher in fp16, data share) for gpu-check on a GPU machine
	$(PY) bench/gpu_prepare.py $(ARGS)

gpu-check:  ## on a CUDA machine: distil + evaluate the transformer and two-stage students (~8 min)
	$(GPU_PY) bench/gpu_check.py --json $(GPU_JSON) $(ARGS)

clean:  ## remove the virtual environment
	rm -rf $(VENV)

# Two commands on a fresh machine with Python 3.11 and make:
#   make demo   set up .venv and speak a paragraph through the engine server (embedded voice)
#   make test   set up .venv and run the whole test suite
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
# The CPU build of torch: a local wheel on these machines; an unpinned torch pulls a CUDA build.
TORCH := torch==2.13.0

.PHONY: demo test setup clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q $(TORCH)
	$(PY) -m pip install -q -e '.[all,test]'
	touch $@

setup: $(VENV)/.installed

demo: setup
	$(PY) -m voice_tts.demo

test: setup
	$(PY) -m pytest

clean:
	rm -rf $(VENV) .pytest_cache

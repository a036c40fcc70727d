# VRAM Lab: `make run` sets everything up and starts the app; `make test` sets everything up and runs the checks.
# The virtual environment (.venv) is (re)installed only when pyproject.toml or constraints.txt change.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test lint fuzz bench screenshots visual constraints clean bundle bundle-check dist dist-check deb-check

$(STAMP): pyproject.toml setup.py constraints.txt tools/venv.sh
	@PYTHON=$(PYTHON) sh tools/venv.sh $(VENV)

run: $(STAMP)
	$(BIN)/vramlab

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

# Every check runs even when an earlier one fails; the exit status is non-zero if any failed.
test: $(STAMP)
	@status=0; \
	echo "== ruff"; $(BIN)/ruff check --output-format concise . || status=1; \
	echo "== mypy"; $(BIN)/mypy || status=1; \
	echo "== pytest"; QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -n auto || status=1; \
	exit $$status

# The GUI fuzz test, long: FUZZ_ACTIONS random actions for each of FUZZ_SEEDS (the suite runs 300 of one seed).
FUZZ_ACTIONS ?= 5000
FUZZ_SEEDS   ?= 1,2,3
fuzz: $(STAMP)
	VRAMLAB_FUZZ_ACTIONS=$(FUZZ_ACTIONS) VRAMLAB_FUZZ_SEEDS=$(FUZZ_SEEDS) QT_QPA_PLATFORM=offscreen \
	  $(BIN)/python -m pytest -q -p no:cacheprovider tests/gui/test_fuzz.py

# every benchmark; exits non-zero when one misses its target (bench/run_all.py)
bench: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python bench/run_all.py

# the visual audit's whole matrix (140 screens), each screen saved as build/visual/<screen>.png to look at
visual: $(STAMP)
	VRAMLAB_VISUAL=full VRAMLAB_VISUAL_SHOTS=build/visual QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q \
		tests/gui/visual_audit

screenshots: $(STAMP)
	$(BIN)/vramlab --screenshot docs/screenshots
	$(BIN)/python tools/lessons_screenshots.py --out docs/screenshots

# Standalone builds (PyInstaller, build.spec; see the README's "Installers"). Linux only here: the Windows and
# macOS builds are in .github/workflows/installers.yml.
VERSION    := $(shell sed -n 's/^version = "\(.*\)"$$/\1/p' pyproject.toml | head -n 1)
DIST_STAMP := $(VENV)/.installed-dist
ONEDIR     := dist/vramlab
TARBALL    := dist/vramlab-$(VERSION)-linux-x86_64.tar.gz
DEB        := dist/vramlab_$(VERSION)_amd64.deb
# xz -6: 53 MB in about a minute; DEB_COMPRESS=zstd DEB_LEVEL=9 makes a 64 MB .deb in 3 s (both under budget)
DEB_COMPRESS ?= xz
DEB_LEVEL    ?= 6
# Everything the bundle is built from: a change to any of them rebuilds it.
BUNDLE_INPUTS := build.spec pyproject.toml packaging/bundle_files.py packaging/render_icons.py \
                 $(shell find gui engine assets -type f -not -path '*/__pycache__/*' 2>/dev/null)

$(DIST_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e ".[dist]"
	touch $@

$(ONEDIR)/vramlab: $(DIST_STAMP) $(BUNDLE_INPUTS)
	$(BIN)/python packaging/render_icons.py build/icons >/dev/null
	$(BIN)/pyinstaller --noconfirm --clean --log-level WARN --distpath dist --workpath build/pyinstaller build.spec
	touch $@

$(TARBALL): $(ONEDIR)/vramlab
	tar -C dist -czf $@ vramlab

$(DEB): $(ONEDIR)/vramlab packaging/build_deb.sh packaging/vramlab.sh packaging/vramlab.desktop packaging/deb/*
	DEB_COMPRESS=$(DEB_COMPRESS) DEB_LEVEL=$(DEB_LEVEL) sh packaging/build_deb.sh $(ONEDIR) build/icons $@

# the onedir bundle only (what CI builds), and its checks: version, smoke test, screenshots, files
bundle: $(ONEDIR)/vramlab

bundle-check: bundle
	$(BIN)/python packaging/check_bundle.py $(ONEDIR)

# dist/vramlab/, the .tar.gz and the .deb
dist: $(ONEDIR)/vramlab $(TARBALL) $(DEB)

# the bundle's checks, the .desktop file, and the budgets (sizes, frozen start-up)
dist-check: dist
	$(BIN)/python packaging/check_bundle.py $(ONEDIR)
	@if command -v desktop-file-validate >/dev/null; then desktop-file-validate packaging/vramlab.desktop; \
	 else echo "desktop-file-validate not installed (apt-get install desktop-file-utils): .desktop not validated"; fi
	$(BIN)/python bench/dist.py --check

# install, run and remove the .deb in a bare Debian 12 chroot (root, network on first use, a few minutes)
deb-check: $(DEB)
	sh packaging/check_deb.sh $(DEB)

# Regenerate constraints.txt from a clean venv (needs the network).
constraints:
	rm -rf build/constraints-venv
	$(PYTHON) -m venv build/constraints-venv
	build/constraints-venv/bin/pip install --quiet --upgrade pip
	build/constraints-venv/bin/pip install --quiet ".[test,dist]"
	{ head -n 2 constraints.txt; build/constraints-venv/bin/pip freeze --exclude vramlab; } > constraints.new
	mv constraints.new constraints.txt

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache

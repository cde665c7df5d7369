# rtile: the two commands are `make demo` and `make test` (see README.md).
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

LLVM_BIN := /usr/lib/llvm-22/bin
MLIR_OPT := /usr/bin/mlir-opt-22
LIT      := $(LLVM_BIN)/lit
BIN      := target/debug
DEMO_IN  := examples/upstream-generic.mlir
DEMO_OUT := target/demo
# Pass flags the demo runs; by default every pass below that rtile-opt registers.
DEMO_PASS_CANDIDATES ?= --symbol-dce
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps build test demo fmt-check clippy unit lit

all: build

# Idempotent: installs LLVM/MLIR 22's FileCheck, lit, not and mlir-opt-22 only when
# missing (SETUP-NOTES.md §2). Nothing else is needed yet.
deps:
	@if [ -x $(LLVM_BIN)/FileCheck ] && [ -x $(LIT) ] && [ -x $(MLIR_OPT) ]; then \
	  echo "deps: LLVM 22 FileCheck/lit and mlir-opt-22 present"; \
	else \
	  echo "deps: installing llvm-22-tools mlir-22-tools"; \
	  $(SUDO) apt-get update; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
	    llvm-22-tools mlir-22-tools; \
	fi

build:
	cargo build --workspace --bins

fmt-check:
	cargo fmt --all --check

clippy:
	cargo clippy --workspace --all-targets -- -D warnings

unit:
	cargo test --workspace

lit: build
	$(LIT) -v tests/lit

test: deps fmt-check clippy unit build lit

# The bundled example end to end: rtile-opt (passes, generic output) -> mlir-opt-22
# verifies and re-prints it -> rtile-opt again, whose output must be identical.
demo: deps build
	@mkdir -p $(DEMO_OUT)
	@passes=""; for p in $(DEMO_PASS_CANDIDATES); do \
	  if $(BIN)/rtile-opt --help | grep -q -- "$$p\b"; then passes="$$passes $$p"; fi; \
	done; \
	echo "== 1. input: $(DEMO_IN)"; cat $(DEMO_IN); \
	echo "== 2. rtile-opt --allow-unregistered-dialect$$passes --mlir-print-op-generic"; \
	$(BIN)/rtile-opt --allow-unregistered-dialect $$passes --mlir-print-op-generic \
	  $(DEMO_IN) -o $(DEMO_OUT)/1-rtile.mlir; \
	cat $(DEMO_OUT)/1-rtile.mlir; \
	echo "== 3. mlir-opt-22 --verify-each --mlir-print-op-generic (upstream parses and verifies it)"; \
	$(MLIR_OPT) --verify-each --mlir-print-op-generic $(DEMO_OUT)/1-rtile.mlir -o $(DEMO_OUT)/2-mlir-opt.mlir; \
	cat $(DEMO_OUT)/2-mlir-opt.mlir; \
	echo "== 4. back through rtile-opt --allow-unregistered-dialect --mlir-print-op-generic"; \
	$(BIN)/rtile-opt --allow-unregistered-dialect --mlir-print-op-generic \
	  $(DEMO_OUT)/2-mlir-opt.mlir -o $(DEMO_OUT)/3-rtile.mlir; \
	echo "== 5. diff of step 2 and step 4 (rtile's output, before and after mlir-opt-22)"; \
	diff -u $(DEMO_OUT)/1-rtile.mlir $(DEMO_OUT)/3-rtile.mlir; \
	echo "demo: OK (identical)"

# Fuzz the parser/printer round trip (not part of `make test`; needs cargo-fuzz).
# FUZZ_SECONDS bounds the run; the corpus is seeded from the lit tests and bench/ops.
FUZZ_SECONDS ?= 2400
.PHONY: fuzz fuzz-seed
fuzz-seed:
	@mkdir -p fuzz/corpus/parse_roundtrip
	@for f in tests/lit/*/*.mlir bench/ops/*.mlir examples/*.mlir; do \
	  cp "$$f" "fuzz/corpus/parse_roundtrip/seed-$$(echo "$$f" | tr '/' '_')"; \
	done
fuzz: fuzz-seed
	fuzz/run-fuzz.sh $(FUZZ_SECONDS)

# rtile: the two commands are `make demo` and `make test` (see README.md).
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

LLVM_BIN := /usr/lib/llvm-22/bin
MLIR_OPT := /usr/bin/mlir-opt-22
LIT      := $(LLVM_BIN)/lit
BIN      := target/debug
DEMO_IN  := examples/upstream-generic.mlir
DEMO_TE  := bench/ops/roller-table1-small.mlir
DEMO_OUT := target/demo
# Pass flags the demo runs; by default every pass below that rtile-opt registers.
DEMO_PASS_CANDIDATES ?= --symbol-dce
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps build test demo fmt-check clippy deps-check unit lit cuda-kernels bench-gpu onnx-venv onnx-backend onnx-backend-full onnx-backend-sim

all: build

# Idempotent: installs only what is missing (SETUP-NOTES.md §2):
# - LLVM/MLIR 22 FileCheck, lit, not, mlir-opt-22 (lit suite);
# - LLVM 22 static libraries + Polly + zstd (rtile-translate links LLVM through inkwell);
# - MLIR 22 static libraries + libclang for mlir-sys's bindgen (mlir-bridge, rtile-mlir-opt);
# - clang-22 + lld-22 (AMDGPU code objects, HIP compile tests), Debian's HIP 5.2 headers
#   and ROCm device libraries (HIP compile tests);
# - NVIDIA's ptxas from PyPI in .venv-cuda (PTX assembles with no spills: lit `ptxas`), and
#   cuobjdump (SASS of the tensor-core kernels: lit `cuobjdump`).
APT_PKGS := llvm-22-dev llvm-22-tools mlir-22-tools libpolly-22-dev libzstd-dev \
            libmlir-22-dev libclang1-22 libclang-common-22-dev \
            clang-22 lld-22 libamdhip64-dev rocm-device-libs
PTXAS_VENV := .venv-cuda
PTXAS := $(PTXAS_VENV)/lib/python3.11/site-packages/nvidia/cuda_nvcc/bin/ptxas
CUOBJDUMP := $(PTXAS_VENV)/lib/python3.11/site-packages/nvidia/cu13/bin/cuobjdump
NVDISASM := $(PTXAS_VENV)/lib/python3.11/site-packages/nvidia/cu13/bin/nvdisasm
deps:
	@missing=""; for p in $(APT_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then \
	  echo "deps: apt packages present"; \
	else \
	  echo "deps: installing$$missing"; \
	  $(SUDO) apt-get update; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	fi
	@if [ -x "$(PTXAS)" ] || [ -n "$${RTILE_PTXAS:-}" ] || command -v ptxas >/dev/null; then \
	  echo "deps: ptxas present"; \
	else \
	  echo "deps: installing ptxas (nvidia-cuda-nvcc-cu12 12.9.86) into $(PTXAS_VENV)"; \
	  { python3 -m venv $(PTXAS_VENV) && $(PTXAS_VENV)/bin/pip install -q nvidia-cuda-nvcc-cu12==12.9.86; } \
	    || echo "deps: ptxas unavailable (lit tests that need it are reported UNSUPPORTED)"; \
	fi
	@if { [ -x "$(CUOBJDUMP)" ] && [ -x "$(NVDISASM)" ]; } || [ -n "$${RTILE_CUOBJDUMP:-}" ] || { command -v cuobjdump && command -v nvdisasm; } >/dev/null; then \
	  echo "deps: cuobjdump present"; \
	else \
	  echo "deps: installing cuobjdump and the nvdisasm it runs (13.5.37) into $(PTXAS_VENV)"; \
	  { [ -x $(PTXAS_VENV)/bin/pip ] || python3 -m venv $(PTXAS_VENV); } \
	    && $(PTXAS_VENV)/bin/pip install -q nvidia-cuda-cuobjdump==13.5.37 nvidia-cuda-nvdisasm==13.5.37 \
	    || echo "deps: cuobjdump unavailable (lit tests that need it are reported UNSUPPORTED)"; \
	fi

# The ONNX backend test suite's runner and data ship in the onnx wheel (issue 13).
ONNX_VENV := .venv-onnx
ONNX_PY := $(ONNX_VENV)/bin/python
onnx-venv:
	@if $(ONNX_PY) -c "import onnx, numpy" 2>/dev/null; then echo "deps: onnx present"; else \
	  echo "deps: installing onnx 1.23.2 + numpy into $(ONNX_VENV)"; \
	  python3 -m venv $(ONNX_VENV) && $(ONNX_VENV)/bin/pip install -q onnx==1.23.2 numpy; fi

# Regenerates the micro-benchmark PTX that rtile-run embeds (it links no LLVM); the
# integration test `checked_in_microbenchmark_ptx_is_current` fails when it is stale.
cuda-kernels: build
	@for k in copy smem fma; do \
	  $(BIN)/rtile-translate --to-ptx=sm_70 runtime-cuda/kernels/$$k.mlir \
	    -o runtime-cuda/kernels/$$k.ptx --manifest=runtime-cuda/kernels/$$k.json; \
	done

# `make test` builds the binaries together with the test targets: one cargo configuration
# (the dev-dependencies' features unified in), so lit runs what `cargo test` already
# compiled instead of the workspace being compiled a second time without them.
BUILD_TARGETS ?= --bins
build:
	cargo build --workspace $(BUILD_TARGETS)

fmt-check:
	cargo fmt --all --check

clippy:
	cargo clippy --workspace --all-targets -- -D warnings

# The MLIR bridge takes its registries from rtile-passes: it must link neither the tools
# nor CUDA (issue 11), so its dependency tree (dev and build included) shows neither.
deps-check:
	@if cargo tree -p rtile-mlir-bridge -e all --prefix none --offline | grep -E '^(rtile-tools|cudarc) '; then \
	  echo "deps-check: rtile-mlir-bridge must depend on neither rtile-tools nor cudarc"; exit 1; \
	else echo "deps-check: rtile-mlir-bridge depends on neither rtile-tools nor cudarc"; fi

unit:
	cargo test --workspace

lit: build
	$(LIT) -v tests/lit

# The onnx package's own backend tests (node cases, simple, pytorch-converted,
# pytorch-operator and the light models) on the te interpreter; exits non-zero on any
# failure (tests/onnx-backend/run.py). `make test` leaves out the four largest light
# models (minutes on the interpreter); `onnx-backend-full` runs them too (PERF.md).
ONNX_SLOW := test_(vgg19|zfnet512|bvlc_alexnet|inception_v2)_cpu
onnx-backend: onnx-venv build
	RTILE_BIN=$(BIN) $(ONNX_PY) -W ignore tests/onnx-backend/run.py -j 2 --exclude '$(ONNX_SLOW)'
onnx-backend-full: onnx-venv build
	RTILE_BIN=$(BIN) $(ONNX_PY) -W ignore tests/onnx-backend/run.py -j 2 --json target/onnx-backend.json
# The same suites through a scheduler and the GPU lowering, run in the GPU simulator
# (every kernel checked against the f64 oracle, the outputs against ONNX's): SIM_OPT names
# the rtile-opt flags (docs/onnx.md, "Through the GPU path").
SIM_OPT ?= --connect=device=h100 --lower-to-gpu
onnx-backend-sim: onnx-venv build
	RTILE_BIN=$(BIN) RTILE_OPT="$(SIM_OPT)" $(ONNX_PY) -W ignore tests/onnx-backend/run.py -j 2 \
	  --kinds node,simple,pytorch-operator,pytorch-converted --json target/onnx-backend-sim.json

test: deps fmt-check clippy deps-check unit build lit onnx-backend
test: BUILD_TARGETS = --bins --tests

# The bundled example end to end: rtile-opt (passes, generic output) -> mlir-opt-22
# verifies and re-prints it -> rtile-opt again, whose output must be identical. Then the
# longest path: the te operator suite -> rtile-opt --axis-fusion -> generic form ->
# mlir-opt-22 verifies -> rtile-run --interpret; checksums before and after identical.
demo: deps onnx-venv build
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
	echo "demo: upstream round trip OK (identical)"
	@echo "== 6. te suite $(DEMO_TE) (Roller Table 1, small twins): rtile-opt --axis-fusion"
	$(BIN)/rtile-opt --axis-fusion --mlir-pass-statistics $(DEMO_TE) -o $(DEMO_OUT)/4-fused.mlir
	@echo "-- Roller's [17, 11, 3] -> [561] example (@e2_small) after fusion:"
	@sed -n '/func.func @e2_small/,/^  }/p' $(DEMO_OUT)/4-fused.mlir
	@echo "== 7. generic form of the fused module"
	$(BIN)/rtile-opt --mlir-print-op-generic $(DEMO_OUT)/4-fused.mlir -o $(DEMO_OUT)/5-fused-generic.mlir
	@echo "== 8. mlir-opt-22 --verify-each parses and verifies it (func, arith, math, tensor; te unregistered there)"
	$(MLIR_OPT) --allow-unregistered-dialect --verify-each --mlir-print-op-generic \
	  $(DEMO_OUT)/5-fused-generic.mlir -o $(DEMO_OUT)/6-mlir-opt.mlir
	@echo "== 9. rtile-run --interpret --seed 7: before fusion, and after fusion + mlir-opt-22"
	$(BIN)/rtile-run --interpret --seed 7 $(DEMO_TE) > $(DEMO_OUT)/checksums-before.txt
	$(BIN)/rtile-run --interpret --seed 7 $(DEMO_OUT)/6-mlir-opt.mlir > $(DEMO_OUT)/checksums-after.txt
	@cat $(DEMO_OUT)/checksums-after.txt
	diff -u $(DEMO_OUT)/checksums-before.txt $(DEMO_OUT)/checksums-after.txt
	@echo "demo: fused te suite verified by mlir-opt-22; checksums before and after fusion identical"
	@echo "== 10. Roller: rtile-opt --construct-rtile=device=h100 --lower-to-gpu (te -> rPrograms -> the best one's gpu.func; the gpu.module targets sm_90)"
	$(BIN)/rtile-opt --construct-rtile="device=h100" --lower-to-gpu $(DEMO_TE) -o $(DEMO_OUT)/7-kernels.mlir
	@grep -m1 'gpu.module' $(DEMO_OUT)/7-kernels.mlir
	@echo "-- $$(grep -c 'gpu.func @' $(DEMO_OUT)/7-kernels.mlir) kernels; the matmul's:"
	@# (sed, not head: head would close the pipe early, and pipefail makes that an error)
	@sed -n '/gpu.func @m0_small_0/,/gpu.return/p' $(DEMO_OUT)/7-kernels.mlir | sed -n '1,40p'
	@echo "== 11. rtile-run --sim --check: every kernel in the CPU GPU-simulator against the te interpreter's f64 oracle"
	$(BIN)/rtile-run --sim --check --seed 7 $(DEMO_OUT)/7-kernels.mlir | tail -6
	@echo "== 12. rtile-translate --to-ptx (the module's target, sm_90; LLVM NVPTX, O3), assembled by NVIDIA's ptxas"
	$(BIN)/rtile-translate --to-ptx $(DEMO_OUT)/7-kernels.mlir -o $(DEMO_OUT)/8-kernels.ptx --manifest=$(DEMO_OUT)/8-kernels.json
	@if [ -x "$(PTXAS)" ]; then $(PTXAS) -arch=sm_90 $(DEMO_OUT)/8-kernels.ptx -o $(DEMO_OUT)/8-kernels.cubin && echo "ptxas sm_90: OK"; \
	  else echo "ptxas not installed: skipped"; fi
	@echo "== 13. the suite lowered for MI250X (target gfx90a): rtile-translate --to-hip, and --to-amdgpu with its code object (llvm-mc + ld.lld)"
	$(BIN)/rtile-opt --construct-rtile="device=mi250x" --lower-to-gpu $(DEMO_TE) -o $(DEMO_OUT)/9-kernels-mi250x.mlir
	$(BIN)/rtile-translate --to-hip $(DEMO_OUT)/9-kernels-mi250x.mlir -o $(DEMO_OUT)/9-kernels.hip
	@sed -n '1,25p' $(DEMO_OUT)/9-kernels.hip
	$(BIN)/rtile-translate --to-amdgpu $(DEMO_OUT)/9-kernels-mi250x.mlir -o $(DEMO_OUT)/9-kernels.s --code-object=$(DEMO_OUT)/9-kernels.hsaco
	@file $(DEMO_OUT)/9-kernels.hsaco 2>/dev/null || ls -l $(DEMO_OUT)/9-kernels.hsaco
	@echo "== 14. Hopper: examples/wgmma-matmul.mlir --lower-to-gpu=tensor-core=wgmma (TMA + mbarriers + wgmma, sm_90a), simulated and checked, assembled for sm_90a"
	$(BIN)/rtile-opt --lower-to-gpu="tensor-core=wgmma" examples/wgmma-matmul.mlir -o $(DEMO_OUT)/10-wgmma.mlir
	@for op in 'nvgpu.tma.async.load [^:]*' 'nvgpu.warpgroup.mma %[^:]*' 'nvgpu.tma.create.descriptor [^:]*'; do \
	  grep -m1 -o "$$op" $(DEMO_OUT)/10-wgmma.mlir; done
	$(BIN)/rtile-run --sim --check --tolerance 1.1e-3 $(DEMO_OUT)/10-wgmma.mlir | tail -2
	$(BIN)/rtile-translate --to-ptx $(DEMO_OUT)/10-wgmma.mlir -o $(DEMO_OUT)/10-wgmma.ptx
	@if [ -x "$(PTXAS)" ]; then $(PTXAS) -arch=sm_90a $(DEMO_OUT)/10-wgmma.ptx -o $(DEMO_OUT)/10-wgmma.cubin && echo "ptxas sm_90a: OK"; \
	  else echo "ptxas not installed: skipped"; fi
	@echo "== 15. Welder: bench/models/welder/bert-layer-sim.mlir --connect=device=h100 (tile-graph fusion: edges connected in registers and shared memory), the fused kernels simulated and checked, assembled for sm_90"
	$(BIN)/rtile-opt --connect="device=h100" --mlir-pass-statistics bench/models/welder/bert-layer-sim.mlir -o $(DEMO_OUT)/11-bert-tilegraph.mlir
	@grep -o 'tilegraph.kernel -> ([^)]*)' $(DEMO_OUT)/11-bert-tilegraph.mlir
	$(BIN)/rtile-opt --lower-to-gpu $(DEMO_OUT)/11-bert-tilegraph.mlir -o $(DEMO_OUT)/11-bert-fused.mlir
	$(BIN)/rtile-run --sim --check $(DEMO_OUT)/11-bert-fused.mlir | tail -2
	$(BIN)/rtile-translate --to-ptx $(DEMO_OUT)/11-bert-fused.mlir -o $(DEMO_OUT)/11-bert-fused.ptx
	@if [ -x "$(PTXAS)" ]; then $(PTXAS) -arch=sm_90 $(DEMO_OUT)/11-bert-fused.ptx -o $(DEMO_OUT)/11-bert-fused.cubin && echo "ptxas sm_90: OK"; \
	  else echo "ptxas not installed: skipped"; fi
	@echo "== 15b. Welder's ablation (paper Fig. 13) on a MobileNetV2 inverted-residual block: kernels and DRAM sectors at connect-level none / register / shared, counted by the simulator"
	sh bench/sim/welder_ablation.sh $(BIN) bench/models/welder/mobilenet-block-sim.mlir
	@echo "== 16. Rammer: bench/models/small/lstm.mlir --wavefront-pack=device=h100 (rTasks of 18 operators packed onto vEUs: one launch), lowered to one persistent kernel, simulated"
	$(BIN)/rtile-opt --wavefront-pack="device=h100" --mlir-pass-statistics bench/models/small/lstm.mlir -o $(DEMO_OUT)/12-lstm-packed.mlir
	$(BIN)/rtile-opt --lower-to-gpu $(DEMO_OUT)/12-lstm-packed.mlir -o $(DEMO_OUT)/12-lstm-persistent.mlir
	$(BIN)/rtile-run --sim $(DEMO_OUT)/12-lstm-persistent.mlir | tail -3
	@echo "== 17. Halide: bench/pipelines/unsharp_mask_small.mlir --autoschedule-beam=device=h100 (beam search over compute locations and tilings), lowered, simulated and checked"
	$(BIN)/rtile-opt --autoschedule-beam="device=h100" --mlir-pass-statistics --lower-to-gpu bench/pipelines/unsharp_mask_small.mlir -o $(DEMO_OUT)/13-unsharp.mlir
	$(BIN)/rtile-run --sim --check $(DEMO_OUT)/13-unsharp.mlir | tail -2
	@echo "== 18. an ONNX model: the onnx package's light SqueezeNet through rtile-compile (import, fusion, construction, lowering, PTX) for h100, and the whole bundle in the simulator against the te interpreter"
	$(BIN)/rtile-compile $$($(ONNX_PY) -c "import onnx, os; print(os.path.dirname(onnx.__file__))")/backend/test/data/light/light_squeezenet.onnx \
	  --device h100 -o $(DEMO_OUT)/14-squeezenet | sed -n '/kernels for/,/^stages:/p'
	$(BIN)/rtile-run --sim $(DEMO_OUT)/14-squeezenet/lowered.mlir | tail -2
	@echo "== 18b. the same model with Welder deciding the kernels: rtile-compile --scheduler welder (--fold-reshapes, --connect: fused kernels), simulated whole against the te interpreter"
	$(BIN)/rtile-compile $$($(ONNX_PY) -c "import onnx, os; print(os.path.dirname(onnx.__file__))")/backend/test/data/light/light_squeezenet.onnx \
	  --device h100 --scheduler welder -o $(DEMO_OUT)/14-squeezenet-welder | sed -n '/kernels for/,/^stages:/p'
	$(BIN)/rtile-run --sim $(DEMO_OUT)/14-squeezenet-welder/lowered.mlir | tail -2
	@echo "== 19. AMD matrix cores: examples/mfma-matmul.mlir --construct-rtile=device=mi250x --lower-to-gpu (amdgpu.mfma over 64-lane wavefronts), simulated and checked, AMDGPU code object (gfx90a) with its v_mfma instructions"
	$(BIN)/rtile-opt --construct-rtile="device=mi250x" --lower-to-gpu examples/mfma-matmul.mlir -o $(DEMO_OUT)/15-mfma.mlir
	@grep -m1 -o 'amdgpu.mfma [^:]*' $(DEMO_OUT)/15-mfma.mlir
	$(BIN)/rtile-run --sim --check --tolerance 1.1e-3 $(DEMO_OUT)/15-mfma.mlir | tail -1
	$(BIN)/rtile-translate --to-amdgpu $(DEMO_OUT)/15-mfma.mlir -o $(DEMO_OUT)/15-mfma.s --code-object=$(DEMO_OUT)/15-mfma.hsaco
	@echo "v_mfma instructions in the code object: $$($(LLVM_BIN)/llvm-objdump -d $(DEMO_OUT)/15-mfma.hsaco | grep -c v_mfma_f32_32x32x8f16)"
	@echo "demo: OK (te -> construct -> lower -> simulated and checked; PTX assembles; HIP and AMDGPU code object emitted; sm_90a wgmma kernel checked; Welder's fused, Rammer's packed and the Halide autoscheduler's kernels checked; an ONNX model compiled (Roller and Welder) and simulated; an MFMA kernel for gfx90a)"

# On a GPU machine: the Table-1 suite through rtile and PyTorch in one run (PERF.md).
# On a machine with a GPU and this toolchain. Where the GPU machine has no Rust or LLVM,
# run `make gpu-ptx` here and carry target/gpu-ptx + target/release/rtile-run-cuda there
# (bench/gpu/run-on-device.sh).
GPU_SM ?= sm_90
GPU_DEVICE ?= h100
.PHONY: gpu-ptx
gpu-ptx:
	cargo build --release -p rtile-tools -p rtile-targets -p rtile-cuda --bins
	BIN=target/release bench/gpu/prepare-ptx.sh bench/ops/roller-table1.mlir target/gpu-ptx $(GPU_SM) $(GPU_DEVICE)

bench-gpu: gpu-ptx
	bench/gpu/run-on-device.sh target/gpu-ptx target/release target

# The PyTorch twins of the workloads (bench/gpu/torch_models.py) equal rtile's te
# interpreter on the simulator twins; not part of `make test` (torch is some GB). The venv
# takes PyPI's torch wheel (its CUDA libraries included; the CPU path is what runs here).
TORCH_VENV := .venv-torch
.PHONY: torch-twins
torch-twins:
	cargo build -p rtile-tools --bin rtile-run
	@$(TORCH_VENV)/bin/python -c "import torch, numpy" 2>/dev/null || \
	  { python3 -m venv $(TORCH_VENV) && $(TORCH_VENV)/bin/pip install -q torch numpy; }
	$(TORCH_VENV)/bin/python bench/gpu/torch_models.py --check-te bench/models/welder bench/models bench/models/small

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

# Fuzz every rtile-opt pass pipeline on inputs that parse and verify (needs cargo-fuzz;
# fuzz/run-fuzz-passes.sh seeds fuzz/corpus/pass_pipelines from the lit tests and bench/).
.PHONY: fuzz-passes
fuzz-passes:
	fuzz/run-fuzz-passes.sh $(FUZZ_SECONDS)

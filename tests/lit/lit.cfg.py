# lit configuration for rtile (LLVM 22 lit; run with `lit -v tests/lit`).
import os
import shutil
import subprocess

import lit.formats

config.name = "rtile"
# ShTest() runs RUN lines with lit's internal shell; PyPI lit refuses execute_external.
config.test_format = lit.formats.ShTest()
config.suffixes = [".mlir", ".test"]
config.excludes = ["lit.cfg.py", "lit.local.cfg", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.test_source_root, "Output")

repo_root = os.path.abspath(os.path.join(config.test_source_root, "..", ".."))
rtile_bin = os.environ.get("RTILE_BIN_DIR", os.path.join(repo_root, "target", "debug"))
llvm_bin = "/usr/lib/llvm-22/bin"

# FileCheck, not, count, split-file come from LLVM 22; our tools come first.
config.environment["PATH"] = os.pathsep.join(
    [rtile_bin, llvm_bin, config.environment.get("PATH", os.environ.get("PATH", ""))]
)
# Deterministic diagnostics: no colour, fixed width.
config.environment["NO_COLOR"] = "1"


def tool(name):
    return os.path.join(rtile_bin, name)



def word(name):
    # lit substitutions are regexes; match the tool name only as a whole word, never
    # inside a path or file name (`tests/lit/tools/rtile-opt-cli.mlir`) or a flag.
    return r"(?<![\w/.-])" + name.replace("-", r"\-") + r"(?![\w.-])"


config.substitutions.append((word("mlir-opt"), "/usr/bin/mlir-opt-22"))
for name in ["rtile-bench", "rtile-compile", "rtile-import-onnx", "rtile-mlir-opt", "rtile-opt", "rtile-run",
             "rtile-run-cuda", "rtile-translate"]:
    config.substitutions.append((word(name), tool(name)))

# `mlir-opt-22`: upstream MLIR 22 is installed (interop checks use `REQUIRES: mlir-opt-22`).
if os.path.exists("/usr/bin/mlir-opt-22"):
    config.available_features.add("mlir-opt-22")

# `ptxas`: NVIDIA's PTX assembler, to check that every PTX we emit assembles
# (RTILE_PTXAS, else ptxas on PATH, else the .venv-cuda that `make deps` creates).
def find_ptxas():
    cands = [os.environ.get("RTILE_PTXAS", ""), shutil.which("ptxas") or ""]
    cands.append(os.path.join(repo_root, ".venv-cuda", "lib", "python3.11", "site-packages",
                              "nvidia", "cuda_nvcc", "bin", "ptxas"))
    for c in cands:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


ptxas = find_ptxas()
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))

# `cuobjdump`: NVIDIA's disassembler, to check the SASS of tensor-core kernels (HMMA, LDSM,
# LDGSTS) without a GPU (RTILE_CUOBJDUMP, else cuobjdump on PATH, else .venv-cuda).
def find_cuobjdump():
    site = os.path.join(repo_root, ".venv-cuda", "lib", "python3.11", "site-packages", "nvidia")
    cands = [os.environ.get("RTILE_CUOBJDUMP", ""), shutil.which("cuobjdump") or "",
             os.path.join(site, "cu13", "bin", "cuobjdump"),
             os.path.join(site, "cuda_cuobjdump", "bin", "cuobjdump")]
    for c in cands:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def find_nvdisasm(cuobjdump):
    """cuobjdump -sass runs nvdisasm: beside it (the PyPI wheels), NVDISASM_PATH, or PATH."""
    beside = os.path.join(os.path.dirname(cuobjdump), "nvdisasm")
    for c in [beside, os.path.join(os.environ.get("NVDISASM_PATH", ""), "nvdisasm"),
              shutil.which("nvdisasm") or ""]:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


cuobjdump = find_cuobjdump()
nvdisasm = find_nvdisasm(cuobjdump) if cuobjdump else None
if cuobjdump and nvdisasm:
    config.available_features.add("cuobjdump")
    config.substitutions.append(("%cuobjdump", cuobjdump))
    config.environment["NVDISASM_PATH"] = os.path.dirname(nvdisasm)
    config.environment["PATH"] = os.pathsep.join(
        [os.path.dirname(nvdisasm), config.environment["PATH"]])

# `hip-clang`: clang-22 compiles HIP for gfx90a against Debian's HIP 5.2 headers and ROCm
# device libraries (SETUP-NOTES.md §6). tests/lit/targets/Inputs/hip-compat.ll papers over
# two header/library mismatches of that combination; it is assembled once here.
clangxx = shutil.which("clang++-22") or (
    os.path.join(llvm_bin, "clang++") if os.path.exists(os.path.join(llvm_bin, "clang++")) else None)
device_libs = "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"
if clangxx and os.path.exists("/usr/include/hip/hip_runtime.h") and os.path.isdir(device_libs) \
        and os.path.exists(os.path.join(llvm_bin, "ld.lld")):
    compat_src = os.path.join(config.test_source_root, "targets", "Inputs", "hip-compat.ll")
    os.makedirs(config.test_exec_root, exist_ok=True)
    compat_bc = os.path.join(config.test_exec_root, "hip-compat.bc")
    try:
        subprocess.run([os.path.join(llvm_bin, "llvm-as"), compat_src, "-o", compat_bc],
                       check=True, capture_output=True, timeout=60)
        config.available_features.add("hip-clang")
        config.substitutions.append(("%hipcc", " ".join([
            clangxx, "-x hip --offload-arch=gfx90a --offload-device-only --no-gpu-bundle-output",
            "--rocm-path=/usr", "--rocm-device-lib-path=" + device_libs,
            "-mcode-object-version=5 -D__AMDGCN_WAVEFRONT_SIZE=64 -O2 -Wno-linker-warnings",
            "-Xclang -mlink-builtin-bitcode -Xclang " + compat_bc])))
    except (OSError, subprocess.SubprocessError):
        pass

# `gpu`: an NVIDIA GPU is visible (GPU tests use `REQUIRES: gpu`).
nvidia_smi = shutil.which("nvidia-smi")
if nvidia_smi:
    try:
        if subprocess.run([nvidia_smi, "-L"], capture_output=True, timeout=20).returncode == 0:
            config.available_features.add("gpu")
    except (OSError, subprocess.SubprocessError):
        pass

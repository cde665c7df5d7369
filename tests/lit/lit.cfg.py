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
for name in ["rtile-bench", "rtile-opt", "rtile-run"]:
    config.substitutions.append((word(name), tool(name)))

# `mlir-opt-22`: upstream MLIR 22 is installed (interop checks use `REQUIRES: mlir-opt-22`).
if os.path.exists("/usr/bin/mlir-opt-22"):
    config.available_features.add("mlir-opt-22")

# `gpu`: an NVIDIA GPU is visible (GPU tests use `REQUIRES: gpu`).
nvidia_smi = shutil.which("nvidia-smi")
if nvidia_smi:
    try:
        if subprocess.run([nvidia_smi, "-L"], capture_output=True, timeout=20).returncode == 0:
            config.available_features.add("gpu")
    except (OSError, subprocess.SubprocessError):
        pass

# -*- Python -*-
# lit configuration for Plumb: dialect, pass, import, tool and end-to-end
# tests. Substitutions: %plumb, %plumb-opt, %python, %models (the shared real
# models beside the checkout), %onnxtxt (ONNX text form -> .onnx).
import os
import shutil

import lit.formats
import lit.util

config.name = "Plumb"
config.test_format = lit.formats.ShTest(not lit.util.which("bash") is None)
config.suffixes = [".mlir", ".onnxtxt", ".test"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "Inputs", "unit"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.plumb_obj_root, "test")

python = shutil.which("python3") or config.python_executable
models = os.path.normpath(os.path.join(config.plumb_src_root, "..", "shared", "models"))
if os.path.isdir(models):
    config.available_features.add("models")

# The ONNX backend node tests ship inside the onnx Python wheel.
import subprocess
probe = subprocess.run([python, "-c", "import onnx, os; print(os.path.dirname(onnx.__file__))"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
if probe.returncode == 0 and os.path.isdir(os.path.join(probe.stdout.strip(), "backend", "test", "data", "node")):
    config.available_features.add("onnx-node-tests")
# ONNX Runtime (pip) computes the references of generated models (with onnx
# and numpy, which build them).
if subprocess.run([python, "-c", "import onnx, onnxruntime, numpy"],
                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
    config.available_features.add("onnxruntime")

config.substitutions.append(("%plumb-opt", os.path.join(config.plumb_tools_dir, "plumb-opt")))
config.substitutions.append(("%plumb", os.path.join(config.plumb_tools_dir, "plumb")))
config.substitutions.append(("%python", python))
config.substitutions.append(("%models", models))
config.substitutions.append(("%onnxtxt", python + " " + os.path.join(config.plumb_src_root, "test", "lib", "onnxtxt.py")))
config.substitutions.append(("%check-reference", python + " " + os.path.join(config.plumb_src_root, "test", "lib", "check-reference.py") + " " + os.path.join(config.plumb_tools_dir, "plumb")))
config.substitutions.append(("%expect-exit", python + " " + os.path.join(config.plumb_src_root, "test", "lib", "expect-exit.py")))

# A sanitized build (PLUMB_SANITIZE, docs/security.md): Debian's libMLIR is
# not instrumented and poisons its own allocations, which trips ASan in
# instrumented callers; turn off only that manual poisoning. Options the
# caller set come after ours, so they win.
if getattr(config, "plumb_sanitize", ""):
    config.available_features.add("sanitized")
    asan = "allow_user_poisoning=0"
    if os.environ.get("ASAN_OPTIONS"):
        asan += ":" + os.environ["ASAN_OPTIONS"]
    config.environment["ASAN_OPTIONS"] = asan
    config.environment["UBSAN_OPTIONS"] = os.environ.get(
        "UBSAN_OPTIONS", "print_stacktrace=1")

llvm_bin = config.llvm_tools_dir
config.environment["PATH"] = os.pathsep.join([config.plumb_tools_dir, llvm_bin, config.environment.get("PATH", "")])

# Bundles: compiled models are cached under the build tree, never in $HOME;
# %srcroot finds the runtime headers; the `nvcc` feature marks machines that
# can compile emitted CUDA sources.
config.environment["PLUMB_CACHE_DIR"] = os.path.join(config.plumb_obj_root, "test", "plumb-cache")
config.substitutions.insert(0, ("%srcroot", config.plumb_src_root))
nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
if nvcc:
    config.available_features.add("nvcc")
    config.substitutions.insert(0, ("%nvcc", nvcc))
if shutil.which("clang++"):
    config.available_features.add("clang++")
# The trace-hashing benchmark (bench/trace-hash) is built where OpenSSL is.
if os.path.exists(os.path.join(config.plumb_tools_dir, "plumb-bench-hash")):
    config.available_features.add("bench-hash")
# The host emulation of the CUDA kernels (runtime/cuda/host_emulation.cpp): CUDA bundles
# built and run without a GPU.
cuda_emulation = os.path.join(config.plumb_obj_root, "lib", "libplumb_cuda_emulation.a")
if os.path.exists(cuda_emulation):
    config.available_features.add("cuda-emulation")
    config.substitutions.insert(0, ("%cuda-emulation", cuda_emulation))
# Plumb's CUDA kernels were built (PLUMB_ENABLE_CUDA): CUDA bundles link.
if os.path.exists(os.path.join(config.plumb_obj_root, "runtime", "cuda", "libplumb_runtime_cuda.a")):
    config.available_features.add("cuda-runtime")

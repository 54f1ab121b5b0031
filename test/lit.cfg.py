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

config.substitutions.append(("%plumb-opt", os.path.join(config.plumb_tools_dir, "plumb-opt")))
config.substitutions.append(("%plumb", os.path.join(config.plumb_tools_dir, "plumb")))
config.substitutions.append(("%python", python))
config.substitutions.append(("%models", models))
config.substitutions.append(("%onnxtxt", python + " " + os.path.join(config.plumb_src_root, "test", "lib", "onnxtxt.py")))
config.substitutions.append(("%check-reference", python + " " + os.path.join(config.plumb_src_root, "test", "lib", "check-reference.py") + " " + os.path.join(config.plumb_tools_dir, "plumb")))
config.substitutions.append(("%expect-exit", python + " " + os.path.join(config.plumb_src_root, "test", "lib", "expect-exit.py")))

llvm_bin = config.llvm_tools_dir
config.environment["PATH"] = os.pathsep.join([config.plumb_tools_dir, llvm_bin, config.environment.get("PATH", "")])

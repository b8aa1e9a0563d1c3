# -*- Python -*-
# lit configuration for the gpupoor test suite.

import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "GPUPOOR"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".py"]
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py", "Inputs", "Numerics", "GPU", "Differential", "Policy"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.gpupoor_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%shlibext", config.llvm_shlib_ext))
config.substitutions.append(("%gpupoor_libs", config.gpupoor_lib_dir))
config.substitutions.append(("%mlir_lib_dir", config.mlir_lib_dir))
config.substitutions.append(("%python", config.python_executable))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP", "CUDA_HOME",
                                     "ASAN_OPTIONS", "UBSAN_OPTIONS"])
llvm_config.use_default_substitutions()

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.gpupoor_tools_dir, append_path=True)

tools = [
    "gpupoor-opt",
    ToolSubst("mlir-opt", unresolved="ignore"),
    ToolSubst("mlir-runner", unresolved="ignore"),
    ToolSubst("mlir-translate", unresolved="ignore"),
]
llvm_config.add_tool_substitutions(tools, [config.gpupoor_tools_dir, config.llvm_tools_dir])

# Features.
if config.gpupoor_ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.gpupoor_ptxas))
    # The toolkit root, for gpu-module-to-binary's toolkit option.
    config.substitutions.append(
        ("%cuda_home", os.path.dirname(os.path.dirname(config.gpupoor_ptxas))))
if config.gpupoor_plugins:
    config.available_features.add("plugins")


def _has_cuda_gpu():
    """A CUDA GPU is usable when nvidia-smi lists one."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and "GPU" in out.stdout


if _has_cuda_gpu():
    config.available_features.add("cuda-gpu")

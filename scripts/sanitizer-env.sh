# Sourced by the scripts that run sanitized binaries.
# MLIR's registries live until exit by design: leaks are not errors here.
# LLVM's BumpPtrAllocator poisons its free space when built with ASan; our
# instrumented copies of its inline code share allocators with Debian's
# uninstrumented libMLIR.so, which writes there without unpoisoning: manual
# poisoning is ignored, heap and stack checks stay.
export ASAN_OPTIONS=detect_leaks=0:allow_user_poisoning=0
export UBSAN_OPTIONS=print_stacktrace=1

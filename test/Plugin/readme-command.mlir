// REQUIRES: plugins
// The README's plugin command, as written there (with lit's paths): stock
// mlir-opt reaches a plugin's passes through --pass-pipeline.
// RUN: mlir-opt --load-dialect-plugin=%gpupoor_libs/GPUPoorPlugin%shlibext \
// RUN:     --load-pass-plugin=%gpupoor_libs/GPUPoorPlugin%shlibext %S/../../examples/matmul.mlir \
// RUN:     --pass-pipeline='builtin.module(gpupoor-split-k)' | FileCheck %s
// And the whole cubin pipeline the same way (PTX: no ptxas needed).
// RUN: mlir-opt --load-dialect-plugin=%gpupoor_libs/GPUPoorPlugin%shlibext \
// RUN:     --load-pass-plugin=%gpupoor_libs/GPUPoorPlugin%shlibext %S/../../examples/matmul.mlir \
// RUN:     --pass-pipeline='builtin.module(gpupoor-to-cubin{chip=sm_80 cubin-format=isa})' \
// RUN:   | FileCheck %s --check-prefix=CUBIN

// CHECK: gpupoor.matmul
// CHECK-SAME: strategy(#gpupoor.split_k
// CHECK-NOT: linalg.matmul
// CUBIN-DAG: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0
// CUBIN-DAG: gpu.binary @gpupoor_matmul_0_module

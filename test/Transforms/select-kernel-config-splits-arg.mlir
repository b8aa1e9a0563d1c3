// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90" -gpupoor-select-kernel-config=splits-arg=true | FileCheck %s
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90a" -gpupoor-select-kernel-config="splits-arg=true" | FileCheck %s
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90" -gpupoor-select-kernel-config | FileCheck %s --check-prefix=DEFAULT

// splits-arg sets the configuration's splits_arg on every kernel (the
// mma.sync and the wgmma kernel alike); by default the kernel evaluates the
// strategy's rule.
// CHECK-LABEL: func @dynamic
// CHECK: config(#gpupoor.kernel_config<{{.*}}splits_arg = true>)
// DEFAULT-LABEL: func @dynamic
// DEFAULT-NOT: splits_arg
// DEFAULT: return
func.func @dynamic(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %c: tensor<?x?xf16>) -> tensor<?x?xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>)
                     outs(%c : tensor<?x?xf16>) -> tensor<?x?xf16>
  return %r : tensor<?x?xf16>
}

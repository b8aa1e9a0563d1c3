//===- DependentLaunch.h - programmatic dependent launch --------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// Programmatic dependent launch (sm_90 and later): a kernel launched with
// programmatic stream serialization may start while the kernel before it in
// the stream still runs, once every block of that one has signalled
// (griddepcontrol.launch_dependents) or exited. Its blocks then take free
// SMs and wait (griddepcontrol.wait) until the previous kernel has completed
// and its memory is visible, so that the launch and block start of one
// kernel overlap the end of the one before. No kernel here signals: the
// next kernel launches as the last block exits, which measured faster than
// a plain launch and, over the decode products, than the decode tiles'
// signal after their last load (docs/design/decisions.md#dependent-launch).
// Launched plainly, the wait does nothing.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_CONVERSION_GPUKERNEL_DEPENDENTLAUNCH_H
#define GPUPOOR_CONVERSION_GPUKERNEL_DEPENDENTLAUNCH_H

#include "gpupoor/Conversion/GPUKernel/KernelPart.h"

namespace mlir::gpupoor {

/// Waits until the previous kernel of the stream has completed and its
/// writes are visible. Every thread that reads or writes global memory runs
/// it first (a thread whose accesses follow another's wait through shared
/// memory and barriers may rely on that one's). Nothing where the spec does
/// not take dependent launches.
void emitGridDependencyWait(KernelContext &kc);

} // namespace mlir::gpupoor

#endif // GPUPOOR_CONVERSION_GPUKERNEL_DEPENDENTLAUNCH_H

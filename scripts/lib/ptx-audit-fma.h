//===- scripts/lib/ptx-audit-fma.h - FMA provenance audit for check-ptx ---===//
//
// Force-included (nvcc -include) by scripts/check-ptx in its second pass:
// every *explicit* fused multiply-add of the sources (__fmaf_rn, __fma_rn,
// fmaf, fma) becomes a call to an undefined extern device function, so in
// that pass's PTX any remaining fma.rn / mad.f instruction can only be a
// compiler contraction — which the audit rejects.
//
//===----------------------------------------------------------------------===//
#include <cuda_runtime.h>

extern __device__ float plumb_ptx_audit_fmaf(float, float, float);
extern __device__ double plumb_ptx_audit_fma(double, double, double);

#define __fmaf_rn(a, b, c) plumb_ptx_audit_fmaf((a), (b), (c))
#define __fma_rn(a, b, c) plumb_ptx_audit_fma((a), (b), (c))
#define fmaf(a, b, c) plumb_ptx_audit_fmaf((a), (b), (c))
#define fma(a, b, c) plumb_ptx_audit_fma((a), (b), (c))

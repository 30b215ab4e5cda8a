/* ssu launch arguments: the plain C struct every ssu arm takes, bundled or exported.
   Conventions (dtypes, layouts, the pad slot): references/ssu/ssu.hpp. */
#ifndef KGATE_KERNELS_SSU_ABI_H
#define KGATE_KERNELS_SSU_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ssu_args {
  void* state;          /* pool [pool_slots, nheads, 64, 128], state dtype, 16-byte aligned */
  const int32_t* slots; /* [batch], -1 = pad */
  const void* x;        /* [batch, x_stride] io dtype; head h at h*64 */
  const void* B;        /* [batch, bc_stride] io dtype; group g at g*128 */
  const void* C;
  const void* z;  /* like x, or NULL */
  void* out;      /* [batch, nheads, 64] io dtype, contiguous */
  const void* dt; /* [batch, nheads] weight dtype */
  const void* A;  /* [nheads] weight dtype */
  const void* D;
  const void* dt_bias;
  int batch, nheads, ngroups;
  long long x_stride, bc_stride;                         /* elements */
  int state_bf16, io_bf16, weight_bf16, softplus, has_z; /* 0 or 1 */
} ssu_args;

#ifdef __cplusplus
}
#endif

#endif /* KGATE_KERNELS_SSU_ABI_H */

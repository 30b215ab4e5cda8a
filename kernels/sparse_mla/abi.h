/* sparse_mla launch arguments: the plain C struct a sparse MLA decode arm takes (bundled or
   exported). Conventions (row formats, index columns, lse, sink): references/sparse_mla/sparse_mla.hpp.
   The contract every arm takes: the CPU arms, the device arms and the FlashMLA export. */
#ifndef KGATE_KERNELS_SPARSE_MLA_ABI_H
#define KGATE_KERNELS_SPARSE_MLA_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sparse_mla_args {
  const void* q;                     /* BF16 [q_rows, heads, 512]; rows >= tokens are padding, ignored */
  const void* swa_kv;                /* swa_rows rows of row_bytes (BF16: 1024 B; FP8: 584 B, paged) */
  const void* compressed_kv;         /* compressed_rows rows, same format */
  const int32_t* swa_indices;        /* [tokens, swa_index_stride]: 128 columns into swa_kv, -1 invalid */
  const int32_t* compressed_indices; /* [tokens, compressed_index_stride]: topk columns; may point into
                                        swa_indices + 128 (one concatenated table) */
  long long swa_index_stride, compressed_index_stride; /* elements */
  const int32_t* lens;                                 /* [tokens]: columns c < lens[t] + lens_offset are active */
  int lens_offset;
  const float* sink; /* fp32 [heads], or NULL */
  void* out;         /* BF16 [q_rows, heads, 512]; rows >= tokens left untouched */
  float* lse;        /* fp32 [q_rows, heads], natural log; -inf when no row is active;
                        rows >= tokens left untouched */
  int tokens, q_rows, heads, topk;
  long long swa_rows, compressed_rows;
  int kv_fp8;     /* 0: BF16 rows; 1: FP8 rows in FlashMLA's MODEL1 paged layout */
  int page_block; /* FP8: tokens per page block */
  float sm_scale; /* default 512^-0.5 */
  /* Names the values behind lens (with lens, lens_offset and the shape): the caller gives a new
     nonzero value whenever it writes other lengths, so an arm may reuse what it derived from
     them in an earlier launch with the same lens_epoch, as FlashMLA's API lets a caller reuse
     its sched_meta across the layers of one decode step. 0: derive afresh every launch. */
  unsigned long long lens_epoch;
} sparse_mla_args;

#ifdef __cplusplus
}
#endif

#endif /* KGATE_KERNELS_SPARSE_MLA_ABI_H */

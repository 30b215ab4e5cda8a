/* tensor launch arguments, version 1: the generic C ABI of kgate's family described by data.

   A case table of family "tensor" declares an operator (its tensors: name, shape, dtype, strides,
   how inputs are filled, which are outputs or updated in place; its scalars; its work) and the
   arm that is its oracle. kgate allocates and fills every tensor, and calls each arm with one
   tensor_args: the tensors in the table's order, then the scalars. An export library of family
   "tensor" (harness/export/kgate_export.h) receives `const tensor_args*` as `args`:
   - built for "host" (archs {"host"}): host pointers, `stream` is NULL, runs on the cpu backend;
   - built for a GPU architecture: device pointers, `stream` a cudaStream_t (cuda backend).
   An arm writes every element of every output (a NaN-poisoned or sentinel-filled buffer before
   a verified call shows one it skipped) and may read only the inputs; an in-place tensor holds
   its input on entry. kgate never changes a pointer between calls, only the contents.

   Plain C99; copy this header unchanged (an installed kgate has it in include/kgate/). */
#ifndef KGATE_KERNELS_TENSOR_ABI_H
#define KGATE_KERNELS_TENSOR_ABI_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KGATE_TENSOR_ABI_VERSION 1
#define KGATE_TENSOR_MAX_RANK 8

/* Element types, as tables spell them: "f32", "f64", "f16", "bf16", "i8", "u8", "i32", "i64". */
enum kgate_dtype {
  KGATE_F32 = 0,
  KGATE_F64 = 1,
  KGATE_F16 = 2,
  KGATE_BF16 = 3,
  KGATE_I8 = 4,
  KGATE_U8 = 5,
  KGATE_I32 = 6,
  KGATE_I64 = 7
};

/* What the arm does with a tensor. */
enum kgate_access { KGATE_INPUT = 0, KGATE_OUTPUT = 1, KGATE_INOUT = 2 };

typedef struct kgate_tensor {
  const char* name; /* the table's name for it */
  void* data;       /* element (0, ..., 0); never NULL (a tensor with no elements gets 1 byte) */
  int32_t dtype;    /* enum kgate_dtype */
  int32_t access;   /* enum kgate_access */
  int32_t rank;     /* 0 .. KGATE_TENSOR_MAX_RANK */
  int64_t shape[KGATE_TENSOR_MAX_RANK];
  int64_t strides[KGATE_TENSOR_MAX_RANK]; /* in elements; row-major contiguous unless the table says */
} kgate_tensor;

typedef struct kgate_scalar {
  const char* name;
  double value;
} kgate_scalar;

typedef struct tensor_args {
  uint32_t abi_version; /* KGATE_TENSOR_ABI_VERSION: an arm refuses (supports != 0) another */
  const char* op;       /* the table's operator name */
  const kgate_tensor* tensors;
  int32_t tensor_count;
  const kgate_scalar* scalars;
  int32_t scalar_count;
} tensor_args;

/* The tensor or scalar of that name; NULL / `fallback` when the table declares none. */
static inline const kgate_tensor* kgate_tensor_named(const tensor_args* a, const char* name) {
  for (int32_t i = 0; i < a->tensor_count; ++i)
    if (strcmp(a->tensors[i].name, name) == 0) return &a->tensors[i];
  return NULL;
}
static inline double kgate_scalar_named(const tensor_args* a, const char* name, double fallback) {
  for (int32_t i = 0; i < a->scalar_count; ++i)
    if (strcmp(a->scalars[i].name, name) == 0) return a->scalars[i].value;
  return fallback;
}

#ifdef __cplusplus
}
#endif

#endif /* KGATE_KERNELS_TENSOR_ABI_H */

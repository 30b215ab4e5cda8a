/* ag_gemm launch arguments: the plain C struct one rank of an all-gather + GEMM arm takes
   (bundled or exported). Conventions: references/ag_gemm/ag_gemm.hpp. Only CPU arms exist
   today; this is the contract device arms and exports will take. */
#ifndef KGATE_KERNELS_AG_GEMM_ABI_H
#define KGATE_KERNELS_AG_GEMM_ABI_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ag_gemm_args {
  int world_size, rank;
  long long m, n, k;   /* m: local rows per rank; n: this rank's column shard */
  const void* a_local; /* BF16 [m, k], this rank's rows */
  void* a_gathered;    /* BF16 [world_size * m, k] workspace; rows r*m.. come from rank r */
  const void* b;       /* BF16 [k, n], row-major */
  void* c;             /* BF16 [world_size * m, n] */
  void* comm;          /* ncclComm_t of the ranks, NULL when world_size is 1 */
} ag_gemm_args;

#ifdef __cplusplus
}
#endif

#endif /* KGATE_KERNELS_AG_GEMM_ABI_H */

/* ag_gemm launch arguments: the plain C struct one rank of an all-gather + GEMM arm takes
   (bundled or exported). Conventions: references/ag_gemm/ag_gemm.hpp. */
#ifndef KGATE_KERNELS_AG_GEMM_ABI_H
#define KGATE_KERNELS_AG_GEMM_ABI_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ag_gemm_args {
  int world_size, rank;
  long long m, n, k;   /* m: local rows per rank; n: this rank's column shard */
  int fp16;            /* element type of A, B and C: 0 BF16, 1 FP16 (fp32 accumulation) */
  const void* a_local; /* BF16 [m, k], this rank's rows */
  void* a_gathered;    /* BF16 [world_size * m, k] workspace; rows r*m.. come from rank r */
  const void* b;       /* BF16 [k, n], row-major */
  void* c;             /* BF16 [world_size * m, n] */
  void* comm;          /* ncclComm_t of the ranks (a one-rank communicator at world size 1); NULL when simulated */
  /* Host array [world_size] of device pointers to every rank's A_r that this GPU can read
     (peer access between the rank threads of one process, or a simulated run's local buffers),
     entry `rank` equal to a_local; NULL: the peers' shards come through comm. */
  const void* const* peer_shards;
} ag_gemm_args;

#ifdef __cplusplus
}
#endif

#endif /* KGATE_KERNELS_AG_GEMM_ABI_H */

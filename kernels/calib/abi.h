/* calib launch arguments: the plain C struct every calib arm takes. */
#ifndef KGATE_KERNELS_CALIB_ABI_H
#define KGATE_KERNELS_CALIB_ABI_H

#ifdef __cplusplus
extern "C" {
#endif

enum calib_kind { CALIB_SPIN = 0, CALIB_OVERLAP = 1, CALIB_COPY = 2 };

typedef struct calib_args {
  int kind;                 /* enum calib_kind */
  long long cycles;         /* spin length, SM clock cycles */
  long long delay_cycles;   /* overlap: the second stream's lead-in spin */
  unsigned long long* out;  /* device, 3 per spin kernel: cycles spun, globaltimer start, end (ns) */
  void* dst;                /* copy: device destination */
  const void* src;          /* copy: device source */
  unsigned long long bytes; /* copy: bytes */
  void* side_stream;        /* overlap: a cudaStream_t for the second stream */
  void* fork_event;         /* overlap: cudaEvent_t, the main stream's fork point */
  void* join_event;         /* overlap: cudaEvent_t, the side stream's end */
} calib_args;

#ifdef __cplusplus
}
#endif

#endif /* KGATE_KERNELS_CALIB_ABI_H */

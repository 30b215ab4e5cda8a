/* axpy launch arguments: the plain C struct every axpy arm takes. The CPU arms take host
   pointers; an export arm would take the same struct. Conventions: references/axpy/axpy.hpp. */
#ifndef KGATE_KERNELS_AXPY_ABI_H
#define KGATE_KERNELS_AXPY_ABI_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct axpy_args {
  long long n;    /* elements */
  float a;        /* the scale */
  const float* x; /* [n] */
  float* y;       /* [n], updated in place: y = a * x + y */
} axpy_args;

#ifdef __cplusplus
}
#endif

#endif

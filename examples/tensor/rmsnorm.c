/* RMSNorm as a host export of kgate's tensor family: y[r,:] = x[r,:] / sqrt(mean(x[r,:]^2) + eps) * w.
   Two arms: rmsnorm.mine (float sums: the kernel under test) and rmsnorm.ref (double sums: the
   oracle the case table names). Build: cc -O2 -shared -fPIC -I<kgate include dir> rmsnorm.c */
#include <math.h>

#include "kgate_export.h"
#include "tensor/abi.h"

static void rmsnorm(const tensor_args* a, int wide) {
  const kgate_tensor* x = kgate_tensor_named(a, "x");
  const float* w = (const float*)kgate_tensor_named(a, "w")->data;
  const kgate_tensor* y = kgate_tensor_named(a, "y");
  const double eps = kgate_scalar_named(a, "eps", 1e-6);
  for (int64_t r = 0; r < x->shape[0]; ++r) {
    const float* xr = (const float*)x->data + r * x->strides[0];
    float* yr = (float*)y->data + r * y->strides[0];
    float sf = 0;
    double sd = 0;
    for (int64_t c = 0; c < x->shape[1]; ++c) wide ? (void)(sd += (double)xr[c] * xr[c]) : (void)(sf += xr[c] * xr[c]);
    const double inv = 1 / sqrt((wide ? sd : sf) / x->shape[1] + eps);
    for (int64_t c = 0; c < x->shape[1]; ++c) yr[c] = wide ? (float)(xr[c] * inv * w[c]) : xr[c] * (float)inv * w[c];
  }
}
static int mine(const void* a, void* stream, char* err, size_t n) { return rmsnorm(a, 0), 0; }
static int ref(const void* a, void* stream, char* err, size_t n) { return rmsnorm(a, 1), 0; }

static const char* const kHost[] = {"host"};
static const kgate_export_arm_t kArms[] = {
    {"rmsnorm.mine", "float sums", NULL, 0, kHost, 1, NULL, mine},
    {"rmsnorm.ref", "double sums: the oracle", NULL, 0, kHost, 1, NULL, ref},
};
static const kgate_export_table_t kTable = {KGATE_EXPORT_ABI_VERSION, "tensor", kArms, 2};
const kgate_export_table_t* kgate_export_table(void) { return &kTable; }

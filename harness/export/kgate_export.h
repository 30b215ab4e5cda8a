/* kgate export ABI, version 1: a kernel library built outside kgate, measured by kgate.

   A library exposes one C symbol, kgate_export_table, returning a static table: the ABI
   version, the kernel family its arms implement, and the arms. kgate opens the library
   (dlopen RTLD_NOW | RTLD_LOCAL), checks the version and the family, records the file's
   SHA-256, path and size in the receipt, and runs an arm named on its command line as
   export:PATH.so:NAME exactly like a bundled arm of that family.

   Plain C99: no C++ type, exception or allocation crosses this boundary. Copy this header
   into your library unchanged; include the family's argument struct from
   kernels/<family>/abi.h (for example ssu_args from kernels/ssu/abi.h).

   Everything the table points to (strings, arrays) must stay valid and unchanged while the
   library is loaded; kgate never unloads it during a run and never writes through it. */
#ifndef KGATE_EXPORT_H
#define KGATE_EXPORT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KGATE_EXPORT_ABI_VERSION 1
#define KGATE_EXPORT_ENTRY "kgate_export_table" /* the symbol kgate looks up */

/* One arm: a launch of the family's problem. */
typedef struct kgate_export_arm {
  /* Unique within the library, non-empty, no ':' (kgate names it export:PATH:NAME). */
  const char* name;
  /* One line for `kgate list`, or NULL. */
  const char* description;
  /* The kernels one launch issues, as the profiler names them (mangled or not, as CUPTI
     reports them): kgate's kernel-parity and fallback gates compare the launches it observes
     against this list. kernel_count entries (0 allowed: nothing declared). */
  const char* const* kernel_names;
  size_t kernel_count;
  /* The architectures the code was built for ("sm_90a", "sm_90", ...): kgate refuses a row
     (not_supported) on a device none of them matches. arch_count >= 1. */
  const char* const* archs;
  size_t arch_count;
  /* Whether this arm handles the case in *args (the family's C struct, for example
     const ssu_args*, its pointers on the device). 0 = supported; otherwise write a
     NUL-terminated reason of at most why_len bytes (why_len includes the NUL) and return
     non-zero: the row is recorded as not_supported with that reason. Called once per row
     before any launch; it must not launch or synchronize. NULL = every case supported. */
  int (*supports)(const void* args, char* why, size_t why_len);
  /* Enqueue the arm's work for *args on `stream` (a cudaStream_t) and return without
     synchronizing: kgate times it with events/CUPTI on that stream and calls it many times
     per row (results must depend only on *args). 0 = enqueued; otherwise write a
     NUL-terminated message (at most err_len bytes, NUL included) and return non-zero: the
     row fails with that message. Must not allocate per call or touch other streams. */
  int (*launch)(const void* args, void* stream, char* err, size_t err_len);
} kgate_export_arm_t;

/* What kgate_export_table returns. abi_version comes first so that any version can be read. */
typedef struct kgate_export_table {
  uint32_t abi_version;           /* KGATE_EXPORT_ABI_VERSION the library was built against */
  const char* family;             /* a kgate family ("ssu"): *args is that family's struct */
  const kgate_export_arm_t* arms; /* arm_count >= 1 entries */
  size_t arm_count;
} kgate_export_table_t;

/* The entry: define it once in the library with default visibility. It may be called more
   than once and must return the same table each time. */
typedef const kgate_export_table_t* (*kgate_export_table_fn)(void);
#if defined(__GNUC__)
__attribute__((visibility("default")))
#endif
const kgate_export_table_t*
kgate_export_table(void);

#ifdef __cplusplus
}
#endif

#endif /* KGATE_EXPORT_H */

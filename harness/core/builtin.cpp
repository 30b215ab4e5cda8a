// Every family bundled with kgate and its CPU arms.
#include "references/ag_gemm/family.hpp"
#include "references/sparse_mla/family.hpp"
#include "references/ssu/family.hpp"

namespace kgate {

void register_cpu_families(Registry& r) {
  ssu::register_family(r);
  ssu::register_cpu_impls(r);
  sparse_mla::register_family(r);
  sparse_mla::register_cpu_impls(r);
  ag_gemm::register_family(r);
  ag_gemm::register_cpu_impls(r);
}

}  // namespace kgate

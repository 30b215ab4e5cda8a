// built_archs (gpu.hpp): KGATE_CUDA_ARCHS is set on this file alone (CMakeLists.txt), so a change
// of the architecture list recompiles one unit.
#include <sstream>

#include "harness/gpu/gpu.hpp"

namespace kgate::gpu {

std::vector<std::string> built_archs() {
  std::vector<std::string> out;
  std::istringstream in(KGATE_CUDA_ARCHS);
  for (std::string a; in >> a;) out.push_back(a);
  return out;
}

}  // namespace kgate::gpu

// Registers every GPU family, arm and context.
#include "harness/gpu/gpu.hpp"

namespace kgate {
namespace calib {
void install(Registry& r);
}
namespace ssu::gpu {
void install(Registry& r);
}

namespace gpu {
void install(Registry& r) {
  calib::install(r);
  ssu::gpu::install(r);
}
}  // namespace gpu
}  // namespace kgate

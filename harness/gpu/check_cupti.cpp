// The names and texts of CUPTI statuses (libcupti), apart from check.cpp so that an export
// library can have the check macros without linking CUPTI.
#include "harness/gpu/check.hpp"

namespace kgate::gpu {

std::string cupti_result_name(CUptiResult r) {
  const char* s = nullptr;
  if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s) return "CUptiResult " + std::to_string(static_cast<int>(r));
  return s;
}

std::string cupti_result_text(CUptiResult r) {
  const char* s = nullptr;
  if (cuptiGetErrorMessage(r, &s) != CUPTI_SUCCESS || !s) return "no description";
  return s;
}

}  // namespace kgate::gpu

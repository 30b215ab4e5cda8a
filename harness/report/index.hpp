#pragma once
// The printers of `kgate index DIR` (the index itself: harness/core/index.hpp): they only read it.
#include <string>

#include "harness/core/index.hpp"

namespace kgate {

std::string index_markdown(const ReceiptIndex& index);
json index_json(const ReceiptIndex& index);  // schema kgate.index/1

}  // namespace kgate

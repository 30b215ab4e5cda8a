#pragma once
// The printers of `kgate compare OLD NEW` (the comparison itself: harness/core/receipt_compare.hpp):
// markdown for people, JSON for tools. Each receipt's failed gates are worded by gate_text.
#include <string>

#include "harness/core/receipt_compare.hpp"
#include "harness/report/report_view.hpp"

namespace kgate {

// compare_receipts over two report views (their rows' records).
CompareResult compare_receipts(const ReportView& old_v, const ReportView& new_v, const CompareRule& rule);
std::string compare_markdown(const CompareResult& c);
std::string compare_json(const CompareResult& c);  // keys sorted, schema "kgate.compare/1"

}  // namespace kgate

#pragma once
// The printers of `kgate compare OLD NEW` (the comparison itself: harness/core/receipt_compare.hpp):
// markdown and html for people, JSON for tools. Each receipt's failed gates are worded by gate_text.
#include <string>

#include "harness/core/receipt_compare.hpp"
#include "harness/report/report_doc.hpp"
#include "harness/report/report_view.hpp"

namespace kgate {

// compare_receipts over two report views (their rows' records).
CompareResult compare_receipts(const ReportView& old_v, const ReportView& new_v, const CompareRule& rule);
// The comparison as a document (header, geomeans, rows, failures): markdown renders it as is, html
// below its charts.
std::vector<doc::Block> compare_document(const CompareResult& c);
std::string compare_markdown(const CompareResult& c);
// One self-contained page: per baseline, each row's old and new ratio with their intervals, and the
// change with its interval coloured by class; then the document (report_html.cpp, beside the report's charts).
std::string compare_html(const CompareResult& c);
std::string compare_json(const CompareResult& c);  // keys sorted, schema "kgate.compare/1"

}  // namespace kgate

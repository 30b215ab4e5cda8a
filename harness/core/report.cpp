#include "harness/core/report.hpp"

#include "harness/core/verdicts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <vector>

#include "harness/core/errors.hpp"

namespace kgate {
namespace {

std::string num(const json& v, const char* fmt = "%.4g") {
  if (v.is_null()) return "-";
  char b[64];
  std::snprintf(b, sizeof b, fmt, v.get<double>());
  return b;
}

std::string tags_str(const json& tags) {
  std::string s;
  for (auto it = tags.begin(); it != tags.end(); ++it) s += (s.empty() ? "" : " ") + it.key() + "=" + it.value().get<std::string>();
  return s;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

std::string verdict(const json& row) {
  if (row["verdicts"]["policy"].get<bool>()) return "pass";
  std::string f;
  for (const auto& g : row["verdicts"]["failed"]) f += (f.empty() ? "" : ",") + g.get<std::string>();
  return "FAIL(" + f + ")";
}

}  // namespace

std::string report_markdown(const json& r) {
  const json& p = r["body"]["predicate"];
  std::ostringstream o;
  o << "## kgate receipt: " << p["cases"]["table"].get<std::string>() << "\n\n";
  o << "- backend `" << p["backend"].get<std::string>() << "`, timer `" << p["timer"].get<std::string>() << "`";
  if (!p["environment"]["gpus"].empty()) o << ", GPU " << p["environment"]["gpus"][0].value("name", "?");
  else o << ", CPU " << p["environment"].value("cpu", "?");
  o << "\n- arms:";
  for (const auto& a : p["arms"]) o << " `" << a["name"].get<std::string>() << "` (" << a["role"].get<std::string>() << ")";
  o << "\n- protocol: " << p["protocol"]["groups"] << " groups x " << p["protocol"]["blocks"] << " blocks (ABBA/BAAB) x m="
    << p["protocol"]["m"] << ", seed " << p["protocol"]["seed"] << ", cold L2: " << p["protocol"]["cold_l2"] << "\n";
  o << "- policy: ";
  for (const auto& g : p["policy"]["gates"]) o << g.get<std::string>() << " ";
  if (p["policy"].contains("by_baseline"))
    for (auto it = p["policy"]["by_baseline"].begin(); it != p["policy"]["by_baseline"].end(); ++it) {
      o << "| vs `" << it.key() << "`: ";
      for (const auto& g : it.value()["gates"]) {
        o << g.get<std::string>();
        if (g == "limit" && it.value()["limit"].is_number()) o << "(" << num(it.value()["limit"]) << ")";
        o << " ";
      }
    }
  o << "\n- body sha256 `" << r["seal"]["body_sha256"].get<std::string>() << "`\n\n";
  o << "| row | tags | disposition | baseline | baseline median us | candidate median us | ratio | drift | verdict |\n";
  o << "|---|---|---|---|---:|---:|---:|---:|---|\n";
  for (const auto& row : p["rows"])
    for (const auto& pr : row["pairs"]) {
      o << "| " << row["id"].get<std::string>() << " | " << tags_str(row["tags"]) << " | "
        << row["disposition"].get<std::string>() << " | " << pr["baseline"].get<std::string>() << " | "
        << (pr["baseline_stats"].is_null() ? "-" : num(pr["baseline_stats"]["median_us"])) << " | "
        << (pr["candidate_stats"].is_null() ? "-" : num(pr["candidate_stats"]["median_us"])) << " | "
        << num(pr["ratio"], "%.4f") << " | " << num(pr["drift"], "%.4f") << " | " << verdict(row) << " |\n";
    }
  // Side measurements recorded per row (GPU receipts): events timer, the kernel's own clock,
  // throttled samples. Printed as recorded.
  bool side = false;
  for (const auto& row : p["rows"]) side |= row.contains("events_timer_us") && !row["events_timer_us"].is_null();
  if (side) {
    o << "\n| row | arm | events median us | own-clock median us | SM clock min-max MHz | throttled samples |\n"
         "|---|---|---:|---:|---|---:|\n";
    for (const auto& row : p["rows"]) {
      if (!row.contains("events_timer_us") || row["events_timer_us"].is_null()) continue;
      for (auto it = row["events_timer_us"].begin(); it != row["events_timer_us"].end(); ++it) {
        const std::string& arm = it.key();
        auto med = [&](const char* k) {
          return row.contains(k) && row[k].is_object() && row[k].contains(arm) ? num(row[k][arm]["median"]) : std::string("-");
        };
        std::string clk = "-";
        if (row.contains("sm_clock_mhz") && row["sm_clock_mhz"].is_object() && row["sm_clock_mhz"].contains(arm))
          clk = num(row["sm_clock_mhz"][arm]["min"]) + "-" + num(row["sm_clock_mhz"][arm]["max"]);
        std::string thr = row.contains("throttled_samples") && row["throttled_samples"].is_number()
                              ? std::to_string(row["throttled_samples"].get<int64_t>()) : "-";
        o << "| " << row["id"].get<std::string>() << " | " << arm << " | " << med("events_timer_us") << " | "
          << med("self_clock_us") << " | " << clk << " | " << thr << " |\n";
      }
    }
  }
  const json& s = p["summary"];
  o << "\n**Summary**: " << s["rows"] << " rows, " << s["policy_passed"] << " pass, " << s["policy_failed"] << " fail.\n\n";
  for (auto it = s["by_baseline"].begin(); it != s["by_baseline"].end(); ++it) {
    const json& b = it.value();
    o << "vs `" << it.key() << "`: geomean ratio " << num(b["geomean_ratio"], "%.4f") << ", min " << num(b["min_ratio"], "%.4f")
      << " (" << (b["min_ratio_row"].is_null() ? "-" : b["min_ratio_row"].get<std::string>()) << ")\n\n";
    o << "| tag group | rows | geomean ratio |\n|---|---:|---:|\n";
    for (auto t = b["by_tag"].begin(); t != b["by_tag"].end(); ++t)
      o << "| " << t.key() << " | " << t.value()["rows"] << " | " << num(t.value()["geomean_ratio"], "%.4f") << " |\n";
    o << "\n";
  }
  return o.str();
}

std::string report_csv(const json& r) {
  std::ostringstream o;
  o << "row,tags,disposition,baseline,candidate,baseline_median_us,candidate_median_us,baseline_iqr_us,candidate_iqr_us,"
       "ratio,drift,policy_verdict,failed_gates\n";
  for (const auto& row : r["body"]["predicate"]["rows"])
    for (const auto& pr : row["pairs"]) {
      std::string f;
      for (const auto& g : row["verdicts"]["failed"]) f += (f.empty() ? "" : ";") + g.get<std::string>();
      auto stat = [&](const char* which, const char* k) {
        return pr[which].is_null() ? std::string() : num(pr[which][k], "%.17g");
      };
      o << csv_field(row["id"]) << "," << csv_field(tags_str(row["tags"])) << "," << row["disposition"].get<std::string>() << ","
        << csv_field(pr["baseline"]) << "," << csv_field(pr["candidate"]) << "," << stat("baseline_stats", "median_us") << ","
        << stat("candidate_stats", "median_us") << "," << stat("baseline_stats", "iqr_us") << ","
        << stat("candidate_stats", "iqr_us") << "," << (pr["ratio"].is_null() ? "" : num(pr["ratio"], "%.17g")) << ","
        << (pr["drift"].is_null() ? "" : num(pr["drift"], "%.17g")) << ","
        << (row["verdicts"]["policy"].get<bool>() ? "pass" : "fail") << "," << csv_field(f) << "\n";
    }
  return o.str();
}

std::string report_wide(const json& r, const std::string& anchor_arg) {
  std::vector<RowRecord> rows;
  for (const auto& row : r.at("body").at("predicate").at("rows")) rows.push_back(row_record_from_json(row));
  const WideTable t = wide_table(rows, anchor_arg);
  if (t.arms.size() < 2) return "no row has measured pairs\n";
  std::ostringstream o;
  o << "median us per arm (" << t.arms[0] << ": from its pairing with " << t.arms[1] << "), then time / " << t.anchor
    << "\n\n| row |";
  for (const auto& a : t.arms) o << " " << a << " |";
  for (const auto& a : t.arms) o << " " << a << " / anchor |";
  o << "\n|---|";
  for (size_t i = 0; i < 2 * t.arms.size(); ++i) o << "---:|";
  o << "\n";
  for (const auto& w : t.rows) {
    o << "| " << w.id;
    if (w.disposition != Disposition::passed) o << " (" << to_string(w.disposition) << ")";
    o << " |";
    for (const auto& a : t.arms) {
      auto it = w.median_us.find(a);
      o << " " << (it != w.median_us.end() ? num(json(it->second)) : std::string("-")) << " |";
    }
    for (size_t i = 0; i < t.arms.size(); ++i)
      o << " " << (w.over_anchor.empty() ? std::string("-") : num(json(w.over_anchor[i]), "%.3f")) << " |";
    o << "\n";
  }
  if (t.complete_rows) {
    o << "| geomean over " << t.complete_rows << " rows |";
    for (size_t i = 0; i < t.arms.size(); ++i) o << " |";
    for (double g : t.geomean_over_anchor) o << " " << num(json(g), "%.3f") << " |";
    o << "\n";
  }
  return o.str();
}

CompareResult compare_receipts(const json& a, const json& b, double threshold) {
  CompareResult c;
  std::map<std::pair<std::string, std::string>, const json*> old_pairs;
  std::map<std::string, bool> new_ids;
  for (const auto& row : a["body"]["predicate"]["rows"])
    for (const auto& pr : row["pairs"]) old_pairs[{row["id"], pr["baseline"]}] = &pr;
  for (const auto& row : b["body"]["predicate"]["rows"]) {
    for (const auto& pr : row["pairs"]) {
      auto key = std::make_pair(row["id"].get<std::string>(), pr["baseline"].get<std::string>());
      auto it = old_pairs.find(key);
      if (it == old_pairs.end()) {
        ++c.only_new;
        continue;
      }
      const json& op = *it->second;
      json e = {{"id", key.first}, {"baseline", key.second}, {"old_ratio", op["ratio"]}, {"new_ratio", pr["ratio"]},
                {"old_drift", op["drift"]}, {"new_drift", pr["drift"]}, {"change", nullptr}, {"regression", false}};
      if (op["ratio"].is_number() && pr["ratio"].is_number()) {
        double ch = pr["ratio"].get<double>() / op["ratio"].get<double>() - 1;
        e["change"] = ch;
        if (ch < -threshold) {
          e["regression"] = true;
          ++c.regressions;
        }
      } else if (op["ratio"].is_number() != pr["ratio"].is_number()) {
        e["regression"] = !pr["ratio"].is_number();
        c.regressions += !pr["ratio"].is_number();
      }
      c.rows.push_back(e);
      old_pairs.erase(it);
    }
  }
  c.only_old = static_cast<int>(old_pairs.size());
  return c;
}

std::string compare_markdown(const CompareResult& c, double threshold) {
  std::ostringstream o;
  o << "| row | baseline | old ratio | new ratio | change | old drift | new drift | |\n|---|---|---:|---:|---:|---:|---:|---|\n";
  for (const auto& e : c.rows)
    o << "| " << e["id"].get<std::string>() << " | " << e["baseline"].get<std::string>() << " | " << num(e["old_ratio"], "%.4f")
      << " | " << num(e["new_ratio"], "%.4f") << " | "
      << (e["change"].is_null() ? "-" : num(json(e["change"].get<double>() * 100), "%+.2f") + "%") << " | "
      << num(e["old_drift"], "%.4f") << " | " << num(e["new_drift"], "%.4f") << " | "
      << (e["regression"].get<bool>() ? "REGRESSION" : "") << " |\n";
  char buf[200];
  std::snprintf(buf, sizeof buf, "\n%zu rows matched, %d regressions (ratio drop > %.1f%%), %d only in old, %d only in new\n",
                c.rows.size(), c.regressions, threshold * 100, c.only_old, c.only_new);
  return o.str() + buf;
}

}  // namespace kgate

#include "harness/core/cases.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include "harness/core/crypto.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/json_io.hpp"
#include "harness/core/registry.hpp"
#include "harness/core/suggest.hpp"
#include "harness/core/text.hpp"

namespace kgate {

namespace {

// A dimension of a family described by data: an identifier an expression can name, a count.
std::string dimension_error(const std::string& name, const json& v) {
  const bool ident = !name.empty() && name.size() <= 64 && !std::isdigit(static_cast<unsigned char>(name[0])) &&
                     std::all_of(name.begin(), name.end(),
                                 [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
  if (!ident) return "unknown parameter, and not a dimension name (letters, digits and '_', not first a digit)";
  if (!v.is_number_integer() || v.get<int64_t>() < 0) return "a dimension must be an integer >= 0";
  return "";
}

}  // namespace

std::string normalize_params(const Family& f, const json& in, json& out) {
  if (!in.is_object()) return "params: must be an object";
  out = json::object();
  for (auto it = in.begin(); it != in.end(); ++it) {
    bool known = false;
    for (const auto& p : f.params) known |= p.name == it.key();
    if (known) continue;
    if (!f.dimensions) return "params." + printable(it.key(), 120) + ": unknown parameter for family '" + f.name + "'";
    if (const std::string why = dimension_error(it.key(), it.value()); !why.empty())
      return "params." + printable(it.key(), 120) + ": " + why;
    out[it.key()] = it.value();
  }
  for (const auto& p : f.params) {
    std::string field = "params." + p.name;
    if (!in.contains(p.name)) {
      if (p.required) return field + ": missing (required)";
      out[p.name] = p.fallback;
      continue;
    }
    const json& v = in.at(p.name);
    switch (p.kind) {
      case ParamSpec::Kind::Int: {
        if (!v.is_number_integer()) return field + ": must be an integer";
        int64_t x = v.get<int64_t>();
        if (x < p.min || x > p.max)
          return field + ": " + std::to_string(x) + " out of range [" + std::to_string(p.min) + ", " +
                 (p.max == std::numeric_limits<int64_t>::max() ? std::string("inf") : std::to_string(p.max)) + "]";
        out[p.name] = x;
        break;
      }
      case ParamSpec::Kind::Bool:
        if (!v.is_boolean()) return field + ": must be true or false";
        out[p.name] = v;
        break;
      case ParamSpec::Kind::Object:
        if (!v.is_object()) return field + ": must be an object";
        out[p.name] = v;
        break;
      case ParamSpec::Kind::String: {
        if (!v.is_string()) return field + ": must be a string";
        auto s = v.get<std::string>();
        if (!p.choices.empty()) {
          bool ok = false;
          std::string all;
          for (const auto& c : p.choices) {
            ok |= c == s;
            all += (all.empty() ? "" : "|") + c;
          }
          if (!ok) return field + ": " + quoted(s) + " is not one of " + all;
        }
        out[p.name] = s;
        break;
      }
    }
  }
  if (f.check) return f.check(out);
  return "";
}

CaseTable load_case_table(const std::string& path) { return parse_case_table(path, read_file(path)); }

namespace {

InputError table_error(const std::string& path, const std::string& where, const std::string& msg) {
  return InputError(printable(path) + ": " + (where.empty() ? "" : where + ": ") + msg);
}

const Family& table_family(const std::string& path, const std::string& name) {
  if (const Family* fam = Registry::instance().find_family(name)) return *fam;
  std::vector<std::string> names;
  for (const auto& f : Registry::instance().families()) names.push_back(f.name);
  throw table_error(path, "", "field 'family': unknown family " + quoted(name) + did_you_mean(name, names));
}

// The table's defaults overlaid by the row's params, normalized by the family's schema.
json row_params(const std::string& path, const std::string& where, const json& r, const Family& fam,
                const json& defaults) {
  json params = defaults;
  if (r.contains("params")) {
    if (!r["params"].is_object()) throw table_error(path, where, "field 'params': must be an object");
    for (auto it = r["params"].begin(); it != r["params"].end(); ++it) params[it.key()] = it.value();
  }
  // Unknown keys first, here: normalize_params's "field: message" cannot carry a key holding ':'.
  for (auto it = params.begin(); it != params.end(); ++it) {
    bool known = false;
    for (const auto& p : fam.params) known |= p.name == it.key();
    if (known) continue;
    const std::string why =
        fam.dimensions ? dimension_error(it.key(), it.value()) : "unknown parameter for family " + quoted(fam.name);
    if (!why.empty()) throw table_error(path, where, "field " + quoted("params." + it.key()) + ": " + why);
  }
  json out;
  std::string err = normalize_params(fam, params, out);
  if (!err.empty()) {
    size_t colon = err.find(':');
    if (colon == std::string::npos) throw table_error(path, where, err);
    throw table_error(path, where, "field '" + err.substr(0, colon) + "'" + err.substr(colon));
  }
  return out;
}

void read_row_extras(const std::string& path, const std::string& where, const json& r, const Family& fam,
                     CaseRow& row) {
  row.tags = json::object();
  if (r.contains("tags")) {
    if (!r["tags"].is_object()) throw table_error(path, where, "field 'tags': must be an object of strings");
    for (auto it = r["tags"].begin(); it != r["tags"].end(); ++it) {
      if (!it.value().is_string())
        throw table_error(path, where, "field " + quoted("tags." + it.key()) + ": must be a string");
      row.tags[it.key()] = it.value();
    }
  }
  row.tolerance = fam.tolerance ? fam.tolerance(row.params) : Tolerance{};
  if (r.contains("tolerance")) {
    const auto& tol = r["tolerance"];
    for (const char* k : {"atol", "rtol"}) {
      if (!tol.is_object() || !tol.contains(k) || !tol[k].is_number() || tol[k].get<double>() < 0)
        throw table_error(path, where, std::string("field 'tolerance.") + k + "': missing or not a number >= 0");
    }
    row.tolerance = {tol["atol"].get<double>(), tol["rtol"].get<double>()};
    row.tolerance_explicit = true;
  }
}

CaseRow parse_row(const std::string& path, const json& r, size_t idx, const Family& fam, const json& defaults,
                  std::set<std::string>& seen) {
  std::string where = "rows[" + std::to_string(idx) + "]";
  if (!r.is_object()) throw table_error(path, where, "must be an object");
  if (!r.contains("id") || !r["id"].is_string() || r["id"].get<std::string>().empty())
    throw table_error(path, where, "field 'id': missing or not a non-empty string");
  CaseRow row;
  row.id = r["id"].get<std::string>();
  row.index = idx;
  where = "row " + quoted(row.id);
  if (!seen.insert(row.id).second) throw table_error(path, where, "field 'id': duplicate id");
  for (auto it = r.begin(); it != r.end(); ++it)
    if (it.key() != "id" && it.key() != "family" && it.key() != "params" && it.key() != "tags" &&
        it.key() != "tolerance")
      throw table_error(path, where, "field " + quoted(it.key()) + ": unknown row field");
  row.family = fam.name;
  if (r.contains("family") && r["family"] != fam.name)
    throw table_error(path, where, "field 'family': row family differs from the table's " + quoted(fam.name));
  row.params = row_params(path, where, r, fam, defaults);
  read_row_extras(path, where, r, fam, row);
  return row;
}

}  // namespace

CaseTable parse_case_table(const std::string& path, const std::string& bytes) {
  // Bounded nesting: the copies and comparisons below recurse once per level.
  json doc = parse_json_bounded(bytes, printable(path));
  if (!doc.is_object()) throw table_error(path, "", "top level must be an object");
  CaseTable t;
  t.path = path;
  t.sha256 = sha256_hex(bytes);
  auto str_field = [&](const char* k, bool req) -> std::string {
    if (!doc.contains(k)) {
      if (req) throw table_error(path, "", std::string("field '") + k + "': missing");
      return "";
    }
    if (!doc[k].is_string()) throw table_error(path, "", std::string("field '") + k + "': must be a string");
    return doc[k].get<std::string>();
  };
  t.name = str_field("table", true);
  t.family = str_field("family", true);
  t.description = str_field("description", false);
  t.sweep = str_field("sweep", false);
  const Family& fam = table_family(path, t.family);
  json defaults = json::object();
  if (doc.contains("defaults")) {
    if (!doc["defaults"].is_object()) throw table_error(path, "", "field 'defaults': must be an object");
    defaults = doc["defaults"];
  }
  if (!doc.contains("rows") || !doc["rows"].is_array())
    throw table_error(path, "", "field 'rows': missing or not an array");
  if (doc["rows"].empty()) throw table_error(path, "", "field 'rows': table has no rows");
  for (auto it = doc.begin(); it != doc.end(); ++it)
    if (it.key() != "table" && it.key() != "family" && it.key() != "description" && it.key() != "defaults" &&
        it.key() != "rows" && it.key() != "sweep")
      throw table_error(path, "", "field " + quoted(it.key()) + ": unknown top-level field");
  std::set<std::string> seen;
  size_t idx = 0;
  for (const auto& r : doc["rows"]) t.rows.push_back(parse_row(path, r, idx++, fam, defaults, seen));
  if (!t.sweep.empty())
    for (const auto& row : t.rows)
      if (!row.params.contains(t.sweep) || !row.params[t.sweep].is_number())
        throw table_error(path, row.id,
                          "field 'sweep': " + quoted(t.sweep) + " is not a numeric parameter of this row");
  return t;
}

bool glob_match(const std::string& p, const std::string& s) {
  size_t pi = 0, si = 0, star = std::string::npos, mark = 0;
  while (si < s.size()) {
    if (pi < p.size() && (p[pi] == s[si] || p[pi] == '?')) {
      ++pi;
      ++si;
    } else if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = si;
    } else if (star != std::string::npos) {
      pi = star + 1;
      si = ++mark;
    } else
      return false;
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

void filter_rows(CaseTable& t, const std::string& globs) {
  if (globs.empty()) return;
  std::vector<std::string> pats;
  size_t s = 0;
  while (s <= globs.size()) {
    size_t e = globs.find(',', s);
    if (e == std::string::npos) e = globs.size();
    if (e > s) pats.push_back(globs.substr(s, e - s));
    s = e + 1;
  }
  std::vector<CaseRow> kept;
  for (auto& r : t.rows)
    for (const auto& p : pats)
      if (glob_match(p, r.id)) {
        kept.push_back(r);
        break;
      }
  if (kept.empty()) {
    std::vector<std::string> ids;
    for (const auto& r : t.rows) ids.push_back(r.id);
    throw InputError(printable(t.path) + ": --rows " + quoted(globs) + " matches no row" + did_you_mean(globs, ids));
  }
  t.rows = std::move(kept);
}

std::vector<std::string> find_case_tables(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return files;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::path& p = it->path();
    if (p.extension() == ".json" && p.filename() != "suites.json" && p.parent_path().filename() != "policies" &&
        it->is_regular_file(ec))
      files.push_back(p.string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace kgate

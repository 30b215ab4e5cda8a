#include "harness/core/tree_check.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "harness/core/artifacts.hpp"
#include "harness/core/crypto.hpp"
#include "harness/core/receipt.hpp"

namespace kgate {

std::string one_line(const std::string& s, size_t max) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (out.size() >= max) return out + "...(" + std::to_string(s.size()) + " bytes)";
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\\')
      out += "\\\\";
    else if (c < 0x20 || c >= 0x7f) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

namespace {

std::string short_digest(const json& d) {
  return d.is_string() ? one_line(d.get<std::string>().substr(0, 12)) : "(no digest)";
}

// A subject that claims to be a tree file must name one inside DIR: relative, no "..".
bool inside_tree(const std::string& name) {
  std::filesystem::path p(name);
  if (name.empty() || p.is_absolute() || name[0] == '/') return false;
  for (const auto& part : p)
    if (part == "..") return false;
  return true;
}

// A subject this binary was built from, against the digest of its build: "" when equal, why not
// otherwise; nullopt when the binary was not built from it (a table, a library: the tree's).
std::optional<std::string> against_build(const std::string& name, const json& digest) {
  const auto& built = built_source_digests();
  const auto it = std::find_if(built.begin(), built.end(), [&](const SourceDigest& d) { return name == d.path; });
  if (it == built.end()) return std::nullopt;
  if (digest.is_string() && digest.get<std::string>() == it->sha256) return "";
  return "receipt " + short_digest(digest) + ", this kgate's build " + std::string(it->sha256).substr(0, 12);
}

}  // namespace

std::vector<StaleItem> stale_against_tree(const json& body, const std::string& dir, bool own_from_binary) {
  std::vector<StaleItem> stale;
  auto source = [&](const std::string& what, const std::string& why) {
    stale.push_back({StaleItem::Kind::source, "STALE " + what + ": " + why});
  };
  const json& pred = body.contains("predicate") ? body["predicate"] : json::object();
  std::string sidecar;
  if (pred.contains("samples") && pred["samples"].is_object() && pred["samples"].contains("path") &&
      pred["samples"]["path"].is_string())
    sidecar = pred["samples"]["path"].get<std::string>();
  const json subjects = body.contains("subject") && body["subject"].is_array() ? body["subject"] : json::array();
  for (const auto& s : subjects) {
    if (!s.is_object() || !s.contains("name") || !s["name"].is_string()) {
      source("(subject without a name)", one_line(s.dump()));
      continue;
    }
    const std::string name = s["name"].get<std::string>();
    if (name == "kgate" || name == kPolicySubject || (!sidecar.empty() && name == sidecar)) continue;  // not tree files
    const std::string shown = one_line(name);
    // An export library is a built artifact, not a tree file: it may live anywhere, so an
    // absolute path is checked where it is (a relative one, like every subject, under DIR).
    const bool library = s.contains("annotations") && s["annotations"].is_object() &&
                         s["annotations"].value("kgate.kind", json()) == "export_library";
    if (!library && !inside_tree(name)) {
      source(shown, "recorded outside the tree (absolute or '..' path): a receipt about the tree names tree files");
      continue;
    }
    const json digest = s.contains("digest") && s["digest"].is_object() && s["digest"].contains("sha256")
                            ? s["digest"]["sha256"]
                            : json(nullptr);
    if (own_from_binary && !library)
      if (const std::optional<std::string> why = against_build(name, digest)) {
        if (!why->empty()) source(shown, *why);
        continue;
      }
    const std::filesystem::path p = library && std::filesystem::path(name).is_absolute()
                                        ? std::filesystem::path(name)
                                        : std::filesystem::path(dir) / name;
    std::error_code ec;
    std::string have;
    if (!std::filesystem::exists(p, ec))
      have = "missing";
    else if (!std::filesystem::is_regular_file(p, ec))
      have = "not a regular file";
    if (library && have == "missing") {
      stale.push_back({StaleItem::Kind::unchecked,
                       "UNCHECKED export library " + shown + ": receipt " + short_digest(digest) + ", not present at " +
                           one_line(p.string()) + " (a built artifact: build it there to check it)"});
      continue;
    }
    if (!have.empty()) {
      source(shown, "receipt " + short_digest(digest) + ", tree " + have);
      continue;
    }
    have = sha256_file_hex(p.string());
    if (!digest.is_string() || have != digest.get<std::string>())
      source(shown, "receipt " + short_digest(digest) + ", tree " + have.substr(0, 12));
  }
  const json* version = nullptr;
  if (pred.contains("protocol") && pred["protocol"].is_object() && pred["protocol"].contains("schema_version"))
    version = &pred["protocol"]["schema_version"];
  const std::string tree = std::to_string(kProtocolSchemaVersion);
  if (!version)
    stale.push_back({StaleItem::Kind::protocol, "STALE protocol: schema_version absent in the receipt, tree " + tree});
  else if (!version->is_number_integer() || version->get<int64_t>() != kProtocolSchemaVersion)
    stale.push_back({StaleItem::Kind::protocol,
                     "STALE protocol: schema_version " + one_line(version->dump()) + " in the receipt, tree " + tree});
  // The launch mode is a protocol fact the tree's kgate always records (direct or graph).
  const json launch = pred.contains("protocol") && pred["protocol"].is_object()
                          ? pred["protocol"].value("launch", json(nullptr))
                          : json(nullptr);
  if (launch != "direct" && launch != "graph")
    stale.push_back({StaleItem::Kind::protocol,
                     "STALE protocol: launch " + (launch.is_null() ? std::string("absent") : one_line(launch.dump())) +
                         " in the receipt, tree direct or graph"});
  return stale;
}

}  // namespace kgate

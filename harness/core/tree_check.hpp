#pragma once
// `gate --against-tree DIR`: is a receipt about the files DIR holds, under the protocol the
// tree's kgate follows? Every subject but the kgate binary, the policy and the samples sidecar must name a
// tree file by a relative path and match its SHA-256 (kernel sources, export libraries, the
// case table, oracle and protocol sources), and the recorded protocol schema version must be
// the tree's (kProtocolSchemaVersion). An export library (a subject annotated kgate.kind
// "export_library") may be recorded by an absolute path: it is checked at that path. A library
// that is not there is not stale but unchecked (a built artifact, absent from a fresh clone):
// it is reported as such, and a library that is there with other bytes is stale.
#include <string>
#include <vector>

#include "harness/core/jcs.hpp"

namespace kgate {

struct StaleItem {
  enum class Kind { source, protocol, unchecked } kind;
  std::string
      line;  // "STALE <what>: <why>" (UNCHECKED for an absent export library), one line: recorded names are escaped
};

// `body` is a receipt's body (an in-toto Statement); an empty result means current. With
// `own_from_binary`, a subject this kgate binary was built from (its own harness, family and
// oracle sources: built_source_digests) is checked against the digest recorded at its build, not
// in DIR: a kernel repository that installs kgate holds only its own tables and libraries, and
// a receipt of another kgate's sources is stale there too.
std::vector<StaleItem> stale_against_tree(const json& body, const std::string& dir, bool own_from_binary = false);

// A receipt-supplied string made safe for a one-line message: control characters, backslash
// and non-ASCII bytes escaped (\n, \t, \xHH), cut to `max` bytes with the full length noted.
std::string one_line(const std::string& s, size_t max = 160);

}  // namespace kgate

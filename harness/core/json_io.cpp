#include "harness/core/json_io.hpp"

#include "harness/core/errors.hpp"
#include "harness/core/text.hpp"

namespace kgate {

int json_nesting_depth(std::string_view bytes, int stop_above) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < bytes.size(); ++i) {
    const char c = bytes[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest && (deepest = depth) > stop_above) return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

static std::string depth_message(int max_depth) {
  return "nested deeper than " + std::to_string(max_depth) + " levels";
}

std::optional<json> parse_json_checked(const std::string& bytes, std::string& why, int max_depth) {
  if (json_nesting_depth(bytes, max_depth) > max_depth) {
    why = depth_message(max_depth);
    return std::nullopt;
  }
  try {
    return json::parse(bytes);
  } catch (const json::exception& e) {
    // nlohmann quotes the last token read, which can be a megabyte-long string.
    why = printable(e.what(), 240);
    return std::nullopt;
  }
}

json parse_json_bounded(const std::string& bytes, const std::string& where, int max_depth) {
  std::string why;
  std::optional<json> j = parse_json_checked(bytes, why, max_depth);
  if (!j && why == depth_message(max_depth)) throw InputError(where + ": JSON " + why);
  if (!j) throw InputError(where + ": malformed JSON (" + why + ")");
  return std::move(*j);
}

}  // namespace kgate

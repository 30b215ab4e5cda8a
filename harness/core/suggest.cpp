#include "harness/core/suggest.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <optional>

#include "harness/core/text.hpp"

namespace kgate {

size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows of the dynamic programme: i-2, i-1, i (a transposition looks two rows back).
  const size_t n = b.size();
  std::vector<size_t> two(n + 1), one(n + 1), cur(n + 1);
  for (size_t j = 0; j <= n; ++j) one[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= n; ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({one[j] + 1, cur[j - 1] + 1, one[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) cur[j] = std::min(cur[j], two[j - 2] + 1);
    }
    std::swap(two, one);
    std::swap(one, cur);
  }
  return one[n];
}

namespace {

bool equal_but_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// How close `name` is to `word` (smaller is closer), or nothing when it does not qualify.
// Edits rank before prefixes: a prefix scores past every allowed distance.
std::optional<size_t> closeness(std::string_view word, std::string_view name) {
  if (word.empty() || name == word) return std::nullopt;
  if (equal_but_case(word, name)) return 0;
  const size_t bound = std::max<size_t>(word.size(), 3) / 3;
  // The distance is at least the difference in length: skip the table for hopeless names.
  const size_t gap = word.size() > name.size() ? word.size() - name.size() : name.size() - word.size();
  // An edit must leave some of the word standing: "-x" is not a misspelt "-h".
  const size_t core = word.size() - std::min(word.find_first_not_of('-'), word.size());
  if (gap <= bound) {
    const size_t d = edit_distance(word, name);
    if (d <= bound && d < core) return d;
  }
  if (word.size() >= 3 && name.size() > word.size() && name.substr(0, word.size()) == word) return bound + 1;
  return std::nullopt;
}

std::string phrase(const std::vector<std::string>& names) {
  if (names.empty()) return "";
  std::string s = "; did you mean ";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) s += i + 1 == names.size() ? " or " : ", ";
    s += quoted(names[i]);
  }
  return s + "?";
}

std::string_view file_name(std::string_view path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// The names with the smallest score, in the order of `known`, at most max_count.
template <class Score>
std::vector<std::string> best(const std::vector<std::string>& known, size_t max_count, Score score) {
  size_t top = std::numeric_limits<size_t>::max();
  std::vector<std::string> out;
  for (const auto& name : known) {
    std::optional<size_t> s = score(name);
    if (!s || *s > top) continue;
    if (*s < top) out.clear();
    top = *s;
    if (out.size() < max_count && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

}  // namespace

std::vector<std::string> suggest(std::string_view word, const std::vector<std::string>& known, size_t max_count) {
  return best(known, max_count, [&](const std::string& name) { return closeness(word, name); });
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& known) {
  return phrase(suggest(word, known));
}

std::string did_you_mean_path(std::string_view path, const std::vector<std::string>& known) {
  // A path close as written ranks before one whose file name alone is close.
  constexpr size_t kByNameOnly = 1000;
  return phrase(best(known, 3, [&](const std::string& k) -> std::optional<size_t> {
    // Whole directories both paths share are no evidence of closeness: compare what follows.
    size_t common = 0;
    for (size_t i = 0; i < std::min(path.size(), k.size()) && path[i] == k[i]; ++i)
      if (path[i] == '/') common = i + 1;
    // A known path longer than the word is compared by as many trailing components as the word
    // has ("cases/cpu/ssu.jsn" against "/src/cases/cpu/ssu.json").
    const std::string_view word = path.substr(common);
    std::string_view name = std::string_view(k).substr(common);
    size_t cut = name.size();
    for (size_t slashes = std::count(word.begin(), word.end(), '/') + 1; slashes && cut != std::string_view::npos;
         --slashes)
      cut = cut ? name.find_last_of('/', cut - 1) : std::string_view::npos;
    if (cut != std::string_view::npos) name = name.substr(cut + 1);
    if (auto d = closeness(word, name)) return d;
    if (auto d = closeness(file_name(path), file_name(k))) return kByNameOnly + *d;
    // Same file name in another directory (the path is missing, the name is right).
    if (!file_name(path).empty() && file_name(path) == file_name(k)) return kByNameOnly;
    return std::nullopt;
  }));
}

}  // namespace kgate

#pragma once
// "Did you mean ...?" for a mistyped name (subcommand, flag, arm, family, case table, gate): the
// known names nearest to it by edit distance, as the Rust compiler and cargo suggest them.
#include <string>
#include <string_view>
#include <vector>

namespace kgate {

// Optimal string alignment distance: insertions, deletions, substitutions and transpositions
// of two adjacent characters each cost 1 ("eigne" -> "eigen" is 1, not 2); no substring is
// edited twice (the restricted Damerau-Levenshtein distance).
size_t edit_distance(std::string_view a, std::string_view b);

// The known names nearest to `word`, best first, at most `max_count`. A name qualifies when it
// equals the word but for case, when its distance is at most max(|word|, 3) / 3 (one edit in a
// short word, two in a flag like "--candiate") and less than the word's length without leading
// dashes ("-x" suggests nothing), or, failing any such, when the word (3 or more characters) is
// a prefix of it. Only the names at the smallest distance are returned;
// a tie keeps the order of `known`.
std::vector<std::string> suggest(std::string_view word, const std::vector<std::string>& known, size_t max_count = 3);

// "; did you mean 'list'?" or "; did you mean 'a' or 'b'?", or "" when nothing is close: ready
// to append to an error message.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& known);

// As did_you_mean, for a path: each known path is compared as written and by its file name
// alone (so "/elsewhere/ssu.json" finds "cases/cpu/ssu.json" as well as "cases/ssu.json"); the
// directories a known path shares with it are left out of the comparison.
std::string did_you_mean_path(std::string_view path, const std::vector<std::string>& known);

}  // namespace kgate

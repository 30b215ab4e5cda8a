#pragma once
// fn(t) for t in [0, n) on n threads (t = 0 on the caller), joined before returning.
#include <algorithm>
#include <thread>
#include <vector>

namespace kgate {

inline unsigned hardware_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

template <class F>
void on_threads(unsigned n, const F& fn) {
  std::vector<std::thread> th;
  for (unsigned t = 1; t < n; ++t) th.emplace_back([&fn, t] { fn(t); });
  fn(0u);
  for (auto& x : th) x.join();
}

}  // namespace kgate

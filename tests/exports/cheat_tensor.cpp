// A host export of the tensor family whose arms cheat the timing, for tests/e2e/tensor_host.sh:
// y = 2 x + w over f32 vectors. Each arm computes honestly on a row's correctness checks (its
// first kHonestCalls calls on the row: sets 0 and 1) and cheats on the calls after them; only the
// timed-call proof (rotated inputs, verified timed calls) can refuse them:
//   cheat.first_calls  computes on its first calls only, then returns at once;
//   cheat.memo_ptr     memoizes by input address: a seen x pointer gets its saved output back;
//   cheat.even_calls   writes only on even calls;
//   cheat.stale        computes every call but writes the previous call's output;
//   cheat.honest       computes every call (the control: it must pass); cheat.ref is the oracle;
//   cheat.slow         honest, computing every call 50 times (a regression examples/ci resolves).
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "harness/export/kgate_export.h"
#include "kernels/tensor/abi.h"

namespace {

constexpr int kHonestCalls = 2;
enum Mode { kHonest, kFirstCalls, kMemoPtr, kEvenCalls, kStale, kSlow };

struct Seen {
  int calls = 0;
  std::vector<float> saved;
};

int run(const void* args, Mode mode) {
  // By arm and row: the row's x buffer and length (a later row may get a freed row's address).
  static std::map<std::tuple<int, const void*, int64_t>, Seen> seen;
  const auto* a = static_cast<const tensor_args*>(args);
  const kgate_tensor *x = kgate_tensor_named(a, "x"), *w = kgate_tensor_named(a, "w"), *y = kgate_tensor_named(a, "y");
  const int64_t n = x->shape[0];
  const auto* xv = static_cast<const float*>(x->data);
  const auto* wv = static_cast<const float*>(w->data);
  auto* yv = static_cast<float*>(y->data);
  Seen& s = seen[{mode, x->data, n}];
  const int call = s.calls++;
  std::vector<float> now(static_cast<size_t>(n));
  for (int rep = 0; rep < (mode == kSlow ? 50 : 1); ++rep) {
    for (int64_t i = 0; i < n; ++i) now[static_cast<size_t>(i)] = 2 * xv[i] + wv[i];
    asm volatile("" : : "r"(now.data()) : "memory");  // every repetition is done
  }
  if (mode == kHonest || mode == kSlow || call < kHonestCalls) {
    s.saved = now;
    for (int64_t i = 0; i < n; ++i) yv[i] = now[static_cast<size_t>(i)];
    return 0;
  }
  switch (mode) {
    case kFirstCalls:
      return 0;
    case kMemoPtr:
      for (int64_t i = 0; i < n; ++i) yv[i] = s.saved[static_cast<size_t>(i)];
      return 0;
    case kEvenCalls:
      if (call % 2 == 0)
        for (int64_t i = 0; i < n; ++i) yv[i] = now[static_cast<size_t>(i)];
      return 0;
    default:
      for (int64_t i = 0; i < n; ++i) yv[i] = s.saved[static_cast<size_t>(i)];
      s.saved = now;
      return 0;
  }
}

template <Mode M>
int launch(const void* args, void*, char*, size_t) {
  return run(args, M);
}

const char* const kHost[] = {"host"};
const kgate_export_arm_t kArms[] = {
    {"cheat.ref", "the oracle", nullptr, 0, kHost, 1, nullptr, launch<kHonest>},
    {"cheat.honest", "computes every call", nullptr, 0, kHost, 1, nullptr, launch<kHonest>},
    {"cheat.first_calls", "its first calls only", nullptr, 0, kHost, 1, nullptr, launch<kFirstCalls>},
    {"cheat.memo_ptr", "memoizes by input address", nullptr, 0, kHost, 1, nullptr, launch<kMemoPtr>},
    {"cheat.even_calls", "writes on even calls", nullptr, 0, kHost, 1, nullptr, launch<kEvenCalls>},
    {"cheat.stale", "writes the previous output", nullptr, 0, kHost, 1, nullptr, launch<kStale>},
    {"cheat.slow", "computes every call 50 times", nullptr, 0, kHost, 1, nullptr, launch<kSlow>},
};
const kgate_export_table_t kTable = {KGATE_EXPORT_ABI_VERSION, "tensor", kArms, sizeof kArms / sizeof kArms[0]};

}  // namespace

extern "C" const kgate_export_table_t* kgate_export_table(void) { return &kTable; }

// The tensor family on the CPU backend: every tensor in a buffer of its own (64-byte aligned,
// never moved), filled from the row's seed; every arm, the oracle too, an export library built
// for "host", called with host pointers. An input set holds the inputs' contents and the oracle
// arm's outputs for them, computed on buffers of the context's own so the live ones never move.
#include <cstdlib>
#include <cstring>

#include "harness/core/errors.hpp"
#include "harness/core/text.hpp"
#include "harness/export/loader.hpp"
#include "harness/run/arm_context.hpp"
#include "harness/run/cpu_backend.hpp"
#include "kernels/tensor/family.hpp"
#include "kernels/tensor/config.hpp"

namespace kgate::tensor {
namespace {

struct FreeAligned {
  void operator()(void* p) const { std::free(p); }
};
using Bytes = std::unique_ptr<char, FreeAligned>;

Bytes aligned_bytes(size_t n) {
  const size_t rounded = (std::max<size_t>(n, 1) + 63) / 64 * 64;
  Bytes b(static_cast<char*>(std::aligned_alloc(64, rounded)));
  if (!b) throw MemoryShort("tensor: no host memory for a buffer of " + std::to_string(n) + " bytes");
  std::memset(b.get(), 0, rounded);
  return b;
}

std::vector<Bytes> allocate(const Op& op) {
  std::vector<Bytes> v;
  for (const TensorSpec& t : op.tensors) v.push_back(aligned_bytes(t.bytes()));
  return v;
}
std::vector<void*> pointers(const std::vector<Bytes>& v) {
  std::vector<void*> p;
  for (const Bytes& b : v) p.push_back(b.get());
  return p;
}

// One tensor_args over buffers of its own: the arms' live ones, or the oracle's scratch.
struct Buffers {
  std::vector<Bytes> data;
  TensorArgs view;
  explicit Buffers(const Op& op) : data(allocate(op)), view(op, pointers(data)) {}
};

struct Set {
  std::vector<std::string> inputs;  // per tensor: an input's or in-place tensor's contents, else empty
  std::vector<std::string> oracle;  // per tensor: the oracle arm's result for an output, else empty
};

class CpuContext final : public CpuInputSets<Set> {
 public:
  CpuContext(const CaseRow& row, uint64_t seed)
      : op_(parse_op(row.params)),
        tol_(row.tolerance),
        reference_(portable_export_name(row.params.at("reference").get<std::string>())),
        live_(op_),
        scratch_(op_) {
    add_set(make_set(seed));
    load(loaded());
  }

  Correctness check(const Implementation& impl) override {
    export_supports(impl, &live_.view.args);
    prepare_verified(impl);
    call(impl);
    return verify(impl);
  }
  Sample time_once(const Implementation& impl) override {
    Sample s;
    s.us = host_time_us([&] { call(impl); });
    return s;
  }
  double warm_call_us(const Implementation& impl) override { return time_once(impl).us; }
  std::string refusal(const Implementation& impl) override { return export_refusal(impl, &live_.view.args); }

  // Outputs poisoned; in-place tensors back to the loaded set's contents.
  void prepare_verified(const Implementation&) override {
    for (size_t i = 0; i < op_.tensors.size(); ++i) {
      const TensorSpec& t = op_.tensors[i];
      if (t.access == KGATE_OUTPUT) poison(t, live_.data[i].get());
      if (t.access == KGATE_INOUT) restore(live_, i, loaded());
    }
  }
  Correctness verify(const Implementation&) override { return compare(live_, loaded()); }

 private:
  void call(const Implementation& impl) {
    if (!impl.exported) throw std::logic_error("tensor: arm " + impl.name + " is not an export arm");
    export_launch(impl, &live_.view.args, nullptr);
  }

  void restore(Buffers& b, size_t i, const Set& s) const {
    std::memcpy(b.data[i].get(), s.inputs[i].data(), s.inputs[i].size());
  }

  void load(const Set& s) override {
    for (size_t i = 0; i < op_.tensors.size(); ++i)
      if (op_.tensors[i].access != KGATE_OUTPUT) restore(live_, i, s);
  }

  // Set k: its inputs filled from `seed` (tensor i from a stream of its own), its oracle the
  // reference arm's outputs for them.
  Set make_set(uint64_t seed) const override {
    Set s;
    s.inputs = make_inputs(op_, seed);
    s.oracle.resize(op_.tensors.size());
    for (size_t i = 0; i < op_.tensors.size(); ++i) {
      const TensorSpec& t = op_.tensors[i];
      if (t.access == KGATE_OUTPUT)
        poison(t, scratch_.data[i].get());
      else
        restore(scratch_, i, s);
    }
    const Implementation& ref = Registry::instance().impl(reference_);
    if (const std::string why = export_refusal(ref, &scratch_.view.args); !why.empty())
      throw InputError("the reference arm " + reference_ + " refuses this row: " + why);
    export_launch(ref, &scratch_.view.args, nullptr);
    for (size_t i = 0; i < op_.tensors.size(); ++i) {
      const TensorSpec& t = op_.tensors[i];
      if (t.access == KGATE_INPUT) continue;
      require_written(t, scratch_.data[i].get(), reference_);
      s.oracle[i].assign(scratch_.data[i].get(), t.bytes());
    }
    return s;
  }

  // Every output against the set's oracle, by its own tolerance or the row's; an input the arm
  // changed fails the check too.
  Correctness compare(const Buffers& b, const Set& s) const {
    Correctness all;
    all.passed = true;
    for (size_t i = 0; i < op_.tensors.size(); ++i) {
      const TensorSpec& t = op_.tensors[i];
      const char* out = b.data[i].get();
      if (t.access == KGATE_INPUT) {
        if (std::memcmp(out, s.inputs[i].data(), s.inputs[i].size()) != 0) {
          all.passed = false;
          ++all.mismatches;
          all.note += std::string(all.note.empty() ? "" : "; ") + "the arm wrote its input " + t.name;
        }
        continue;
      }
      merge_check(all, compare_output(t, out, s.oracle[i].data(), t.tolerance.value_or(tol_)), t.name);
    }
    return all;
  }

  Op op_;
  Tolerance tol_;
  std::string reference_;
  Buffers live_;
  mutable Buffers scratch_;  // the oracle's: made sets never touch the live buffers
};

}  // namespace

std::unique_ptr<RowContext> make_cpu_context(const CaseRow& row, uint64_t seed) {
  return std::make_unique<CpuContext>(row, seed);
}

}  // namespace kgate::tensor

// The tensor family on the GPU: every tensor in a device buffer of its own that never moves;
// inputs filled on the host by config.cpp's seeded fills and uploaded; the input and in-place
// tensors rotate over the row's input sets (gpu::InputSets); each set's oracle is the reference
// arm (a cuda export) run on a second set of device buffers, its outputs downloaded once. A
// verified call's outputs are downloaded after it and compared on the host, outside every timed
// window.
#include <cuda_runtime.h>

#include "harness/core/errors.hpp"
#include "harness/export/loader.hpp"
#include "harness/gpu/arm_context.hpp"
#include "harness/gpu/proof.hpp"
#include "harness/run/cpu_backend.hpp"
#include "kernels/tensor/config.hpp"
#include "kernels/tensor/family.hpp"

namespace kgate::tensor {
namespace {

std::vector<gpu::DeviceBuffer> allocate(const Op& op) {
  std::vector<gpu::DeviceBuffer> v;
  for (const TensorSpec& t : op.tensors) v.emplace_back(t.bytes());
  return v;
}
std::vector<void*> pointers(const std::vector<gpu::DeviceBuffer>& v) {
  std::vector<void*> p;
  for (const gpu::DeviceBuffer& b : v) p.push_back(b.get());
  return p;
}

// One tensor_args over device buffers of its own: the arms' live ones, or the oracle's scratch.
struct DeviceTensors {
  std::vector<gpu::DeviceBuffer> data;
  TensorArgs view;
  explicit DeviceTensors(const Op& op) : data(allocate(op)), view(op, pointers(data)) {}
};

class GpuContext final : public gpu::GpuRowContext {
 public:
  GpuContext(const CaseRow& row, uint64_t seed, gpu::GpuBackend& be)
      : GpuRowContext(be),
        op_(parse_op(row.params)),
        tol_(row.tolerance),
        reference_(portable_export_name(row.params.at("reference").get<std::string>())),
        live_((gpu::require_free(2 * op_bytes(op_), "tensor: the row's buffers and the oracle's"), op_)),
        scratch_(op_) {
    std::vector<const gpu::DeviceBuffer*> rotating;
    const std::vector<std::string> inputs = make_inputs(op_, seed);
    for (size_t i = 0; i < op_.tensors.size(); ++i) {
      const TensorSpec& t = op_.tensors[i];
      if (t.access == KGATE_OUTPUT) {
        poisons_.emplace_back(t.bytes(), '\0');
        poison(t, poisons_.back().data());
        continue;
      }
      poisons_.emplace_back();
      live_.data[i].upload(inputs[i].data(), inputs[i].size());
      rotating.push_back(&live_.data[i]);
      rotating_index_.push_back(i);
    }
    sets_.bind(rotating, be.stream());
    oracles_.push_back(oracle(inputs));
  }

  Correctness check(const Implementation& impl) override {
    export_supports(impl, &live_.view.args);
    prepare_verified(impl);
    launch(impl, be_.stream());
    return verify(impl);
  }
  void add_input_sets(const std::vector<uint64_t>& seeds) override {
    for (uint64_t seed : seeds) {
      const std::vector<std::string> inputs = make_inputs(op_, seed);
      gpu::require_free(sets_.set_bytes(), "tensor: an input set");
      sets_.add([&](size_t r, gpu::DeviceBuffer& master) {
        const std::string& h = inputs[rotating_index_[r]];
        master.upload(h.data(), h.size());
      });
      oracles_.push_back(oracle(inputs));
    }
  }
  int input_sets() const override { return sets_.size(); }
  void load_input(int set) override { sets_.load(set, be_.stream()); }
  // Outputs poisoned, in-place tensors back to the loaded set's contents, on the stream.
  void prepare_verified(const Implementation&) override {
    for (size_t i = 0, r = 0; i < op_.tensors.size(); ++i) {
      const TensorSpec& t = op_.tensors[i];
      if (t.access == KGATE_OUTPUT)
        KGATE_CUDA(cudaMemcpyAsync(live_.data[i].get(), poisons_[i].data(), poisons_[i].size(), cudaMemcpyHostToDevice,
                                   be_.stream()));
      if (t.access == KGATE_INOUT) gpu::copy_async(live_.data[i], sets_.master(sets_.loaded(), r), be_.stream());
      if (t.access != KGATE_OUTPUT) ++r;
    }
    KGATE_CUDA(cudaStreamSynchronize(be_.stream()));  // the poison's host bytes stay put; no race
  }
  Correctness verify(const Implementation&) override {
    KGATE_CUDA(cudaStreamSynchronize(be_.stream()));
    const std::vector<std::string>& want = oracles_.at(static_cast<size_t>(sets_.loaded()));
    Correctness all;
    all.passed = true;
    for (size_t i = 0; i < op_.tensors.size(); ++i) {
      const TensorSpec& t = op_.tensors[i];
      if (t.access == KGATE_INPUT) continue;
      std::string got(t.bytes(), '\0');
      live_.data[i].download(got.data(), got.size());
      merge_check(all, compare_output(t, got.data(), want[i].data(), t.tolerance.value_or(tol_)), t.name);
    }
    return all;
  }

 protected:
  void launch_call(const Implementation& impl, cudaStream_t s) override {
    if (!impl.exported) throw std::logic_error("tensor: arm " + impl.name + " is not an export arm");
    export_launch(impl, &live_.view.args, s);
    KGATE_CUDA_LAUNCHED();
  }
  std::string arm_refusal(const Implementation& impl) override { return export_refusal(impl, &live_.view.args); }
  std::string call_args() const override {
    return {reinterpret_cast<const char*>(&live_.view.args), sizeof live_.view.args};
  }

 private:
  static size_t op_bytes(const Op& op) {
    size_t n = 0;
    for (const TensorSpec& t : op.tensors) n += t.bytes();
    return n;
  }

  // The reference arm's outputs for `inputs`, run on the scratch buffers; an output it leaves
  // poisoned fails the row.
  std::vector<std::string> oracle(const std::vector<std::string>& inputs) {
    for (size_t i = 0; i < op_.tensors.size(); ++i) {
      const TensorSpec& t = op_.tensors[i];
      if (t.access == KGATE_OUTPUT)
        scratch_.data[i].upload(poisons_[i].data(), poisons_[i].size());
      else
        scratch_.data[i].upload(inputs[i].data(), inputs[i].size());
    }
    const Implementation& ref = Registry::instance().impl(reference_);
    if (const std::string why = export_refusal(ref, &scratch_.view.args); !why.empty())
      throw InputError("the reference arm " + reference_ + " refuses this row: " + why);
    export_launch(ref, &scratch_.view.args, be_.stream());
    KGATE_CUDA_LAUNCHED();
    KGATE_CUDA(cudaStreamSynchronize(be_.stream()));
    std::vector<std::string> out(op_.tensors.size());
    for (size_t i = 0; i < op_.tensors.size(); ++i) {
      const TensorSpec& t = op_.tensors[i];
      if (t.access == KGATE_INPUT) continue;
      out[i].assign(t.bytes(), '\0');
      scratch_.data[i].download(out[i].data(), out[i].size());
      require_written(t, out[i].data(), reference_);
    }
    return out;
  }

  Op op_;
  Tolerance tol_;
  std::string reference_;
  DeviceTensors live_, scratch_;
  gpu::InputSets sets_;
  std::vector<size_t> rotating_index_;             // the tensor of each rotating buffer
  std::vector<std::string> poisons_;               // per tensor: an output's poisoned bytes, else empty
  std::vector<std::vector<std::string>> oracles_;  // per set, per tensor: the reference's output
};

}  // namespace

std::unique_ptr<RowContext> make_gpu_context(const CaseRow& row, uint64_t seed, gpu::GpuBackend& be) {
  return std::make_unique<GpuContext>(row, seed, be);
}

}  // namespace kgate::tensor

#pragma once
// The operator a tensor-family row declares (params.operator), read into plain data: its
// tensors with their shapes, strides and fillers evaluated against the row's dimensions, its
// scalars and its work. Shapes, strides and work are numbers or expressions of the dimensions
// ("2*m*n*k"), evaluated by muparser. Element access by dtype, the seeded fillers and the poison
// an output holds before a verified call are here too: the oracle's inputs are made by this code.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/family.hpp"
#include "harness/core/jcs.hpp"
#include "harness/core/records.hpp"
#include "kernels/tensor/abi.h"

namespace kgate::tensor {

struct Fill {
  enum class Kind { Normal, Uniform, Integers, Index, Constant, None };
  Kind kind = Kind::Normal;
  double a = 0, b = 1;  // normal: mean, std; uniform: low, high; integers: low, high (inclusive); index: high
  double share = 0;     // index: the share of -1 entries
};

struct TensorSpec {
  std::string name;
  int dtype = KGATE_F32;
  int access = KGATE_INPUT;
  std::vector<int64_t> shape, strides;
  int64_t storage = 1;     // elements the buffer holds: 1 + sum((shape[d] - 1) * strides[d]), at least 1
  bool contiguous = true;  // row-major without gaps: logical element i is at offset i
  Fill fill;
  std::optional<Tolerance> tolerance;  // an output's own; else the row's

  int64_t elements() const;  // logical: the product of the shape
  size_t bytes() const;      // of the buffer
  // The offset (in elements) of logical element i (row-major over the shape), and its index ("[3,17]").
  int64_t offset(int64_t i) const;
  std::string coords(int64_t i) const;
};

struct Op {
  std::string name;
  std::vector<TensorSpec> tensors;
  std::vector<std::pair<std::string, double>> scalars;
  Work work;
};

// The row's operator; throws InputError "params.operator....: why" for anything that does not hold.
Op parse_op(const json& params);
// parse_op's message, or "" when the row's operator is valid (Family::check).
std::string check_op(const json& params);
// The row's tolerance: the table's, else by the narrowest floating output (f64 1e-9, f32 1e-4,
// f16 and bf16 1e-2), integers exact.
Tolerance default_tolerance(const json& params);

size_t dtype_size(int dtype);
bool is_float(int dtype);
double load(const void* base, int dtype, int64_t offset);
void store(void* base, int dtype, int64_t offset, double v);
// Every element of the buffer (padding between strided elements included) from `seed`.
void fill(const TensorSpec& t, void* data, uint64_t seed);
// An output before a verified call: floats a NaN with a payload no arithmetic makes, integers a
// sentinel; is_poison tells an element still holding it (floats only: any integer may be a result).
void poison(const TensorSpec& t, void* data);
bool is_poison(const TensorSpec& t, const void* data, int64_t offset);

// One tensor_args over buffers the caller owns (data[i]: tensor i's, host or device): the
// descriptors, scalars and names point into this object and `op`, which must outlive it.
struct TensorArgs {
  std::vector<kgate_tensor> desc;
  std::vector<kgate_scalar> scalars;
  tensor_args args{};

  TensorArgs(const Op& op, const std::vector<void*>& data);
  TensorArgs(const TensorArgs&) = delete;
  TensorArgs& operator=(const TensorArgs&) = delete;
};

// One input set's contents from its seed: every input and in-place tensor's buffer filled from a
// stream of its own (tensor i's from splitmix(seed + (i + 1) * golden)); outputs empty. Both
// backends make the same bytes for a seed.
std::vector<std::string> make_inputs(const Op& op, uint64_t seed);
// The oracle arm's output of `t` must have every element written: InputError naming the first
// still poisoned one and the arm otherwise.
void require_written(const TensorSpec& t, const void* data, const std::string& reference);
// One output against its oracle over its logical elements (host bytes), by `tol`. A contiguous
// f32 tensor is read as floats directly: a verified call of a large row is compared in the time
// of a few calls, not of a dtype switch and an offset walk per element.
Correctness compare_output(const TensorSpec& t, const void* out, const void* ref, const Tolerance& tol);

}  // namespace kgate::tensor

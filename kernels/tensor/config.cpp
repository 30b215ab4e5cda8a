#include "kernels/tensor/config.hpp"

#include <muParser.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include "harness/core/compare.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/numeric.hpp"
#include "harness/core/text.hpp"

namespace kgate::tensor {
namespace {

// Bounds a table may declare: a typo fails with a message, not an allocation of the machine.
constexpr size_t kMaxTensors = 64, kMaxScalars = 64;
constexpr double kMaxBufferBytes = 16.0 * (1ull << 30);

std::string fmt_g(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

[[noreturn]] void bad(const std::string& field, const std::string& why) {
  throw InputError("params.operator" + field + ": " + why);
}

const std::map<std::string, int>& dtype_names() {
  static const std::map<std::string, int> m = {{"f32", KGATE_F32},   {"f64", KGATE_F64}, {"f16", KGATE_F16},
                                               {"bf16", KGATE_BF16}, {"i8", KGATE_I8},   {"u8", KGATE_U8},
                                               {"i32", KGATE_I32},   {"i64", KGATE_I64}};
  return m;
}

// The row's dimensions: every integer parameter but the schema's own.
std::map<std::string, double> dimensions(const json& params) {
  std::map<std::string, double> d;
  for (auto it = params.begin(); it != params.end(); ++it)
    if (it.value().is_number_integer()) d[it.key()] = static_cast<double>(it.value().get<int64_t>());
  return d;
}

// A number, or an expression of the dimensions (muparser's syntax: + - * / ^, min, max, ...).
double evaluate(const json& v, std::map<std::string, double> dims, const std::string& field) {
  if (v.is_number()) return v.get<double>();
  if (!v.is_string()) bad(field, "must be a number or an expression of the row's dimensions");
  const std::string expr = v.get<std::string>();
  if (expr.empty() || expr.size() > 256) bad(field, "an expression of 1 to 256 characters");
  try {
    mu::Parser p;
    for (auto& [name, value] : dims) p.DefineVar(name, &value);
    p.SetExpr(expr);
    const double x = p.Eval();
    if (!std::isfinite(x)) bad(field, quoted(expr) + " is not finite for this row");
    return x;
  } catch (const mu::Parser::exception_type& e) {
    std::vector<std::string> names;
    for (const auto& [name, value] : dims) names.push_back(name);
    bad(field, quoted(expr) + ": " + printable(e.GetMsg(), 200) + " (dimensions: " + join(names, ", ") + ")");
  }
}

int64_t count_of(const json& v, const std::map<std::string, double>& dims, const std::string& field) {
  const double x = evaluate(v, dims, field);
  if (x < 0 || x != std::floor(x) || x > 1e12) bad(field, "must be a whole number in [0, 1e12], got " + fmt_g(x));
  return static_cast<int64_t>(x);
}

double number(const json& o, const char* key, double fallback, const std::string& field) {
  if (!o.contains(key)) return fallback;
  if (!o.at(key).is_number()) bad(field + "." + key, "must be a number");
  return o.at(key).get<double>();
}

void only_keys(const json& o, std::initializer_list<const char*> keys, const std::string& field) {
  for (auto it = o.begin(); it != o.end(); ++it)
    if (std::none_of(keys.begin(), keys.end(), [&](const char* k) { return it.key() == k; }))
      bad(field + "." + printable(it.key(), 60), "unknown key");
}

Fill parse_fill(const json& j, const TensorSpec& t, const std::string& field) {
  Fill f;
  if (t.access == KGATE_OUTPUT) {
    if (!j.is_null()) bad(field, "an output is written by the arm, not filled");
    f.kind = Fill::Kind::None;
    return f;
  }
  if (j.is_null()) return f;  // normal(0, 1)
  if (!j.is_object() || !j.contains("kind") || !j.at("kind").is_string())
    bad(field, R"(must be an object with a "kind": normal, uniform, integers, index or constant)");
  const std::string kind = j.at("kind").get<std::string>();
  if (kind == "normal") {
    only_keys(j, {"kind", "mean", "std"}, field);
    f = {Fill::Kind::Normal, number(j, "mean", 0, field), number(j, "std", 1, field)};
  } else if (kind == "uniform") {
    only_keys(j, {"kind", "low", "high"}, field);
    f = {Fill::Kind::Uniform, number(j, "low", 0, field), number(j, "high", 1, field)};
  } else if (kind == "integers") {
    only_keys(j, {"kind", "low", "high"}, field);
    f = {Fill::Kind::Integers, number(j, "low", 0, field), number(j, "high", 9, field)};
    if (f.a != std::floor(f.a) || f.b != std::floor(f.b) || f.b < f.a) bad(field, "integers: low <= high, both whole");
  } else if (kind == "index") {
    only_keys(j, {"kind", "high", "minus_one_share"}, field);
    f = {Fill::Kind::Index, 0, number(j, "high", 0, field), number(j, "minus_one_share", 0, field)};
    if (f.b < 1 || f.b != std::floor(f.b)) bad(field, "index: high (the number of indexed entries) must be >= 1");
    if (!(f.share >= 0 && f.share <= 1)) bad(field, "index: minus_one_share must be in [0, 1]");
    if (is_float(t.dtype)) bad(field, "index: needs an integer dtype");
  } else if (kind == "constant") {
    only_keys(j, {"kind", "value"}, field);
    f = {Fill::Kind::Constant, number(j, "value", 0, field), 0};
  } else {
    bad(field + ".kind", quoted(kind) + " is not one of normal, uniform, integers, index, constant");
  }
  if (f.kind == Fill::Kind::Uniform && !(f.b > f.a)) bad(field, "uniform: low < high");
  if (f.kind == Fill::Kind::Normal && !(f.b >= 0)) bad(field, "normal: std >= 0");
  return f;
}

Tolerance parse_tolerance(const json& j, const std::string& field) {
  if (!j.is_object()) bad(field, R"(must be {"atol": a, "rtol": r})");
  only_keys(j, {"atol", "rtol"}, field);
  Tolerance t{number(j, "atol", 0, field), number(j, "rtol", 0, field)};
  if (!(t.atol >= 0 && t.rtol >= 0)) bad(field, "atol and rtol must be >= 0");
  return t;
}

TensorSpec parse_tensor(const json& j, const std::map<std::string, double>& dims, const std::string& field) {
  if (!j.is_object()) bad(field, "must be an object");
  only_keys(j, {"name", "shape", "dtype", "strides", "fill", "access", "tolerance"}, field);
  TensorSpec t;
  if (!j.contains("name") || !j.at("name").is_string() || j.at("name").get<std::string>().empty() ||
      j.at("name").get<std::string>().size() > 64)
    bad(field + ".name", "a name of 1 to 64 characters is required");
  t.name = j.at("name").get<std::string>();
  const std::string dt = j.value("dtype", std::string("f32"));
  if (!dtype_names().count(dt))
    bad(field + ".dtype", quoted(dt) + " is not one of f32, f64, f16, bf16, i8, u8, i32, i64");
  t.dtype = dtype_names().at(dt);
  const std::string access = j.value("access", std::string("input"));
  if (access == "input")
    t.access = KGATE_INPUT;
  else if (access == "output")
    t.access = KGATE_OUTPUT;
  else if (access == "inout")
    t.access = KGATE_INOUT;
  else
    bad(field + ".access", quoted(access) + " is not one of input, output, inout");
  if (!j.contains("shape") || !j.at("shape").is_array()) bad(field + ".shape", "an array of sizes is required");
  const json& shape = j.at("shape");
  if (shape.size() > KGATE_TENSOR_MAX_RANK)
    bad(field + ".shape", "rank above " + std::to_string(KGATE_TENSOR_MAX_RANK));
  for (size_t d = 0; d < shape.size(); ++d)
    t.shape.push_back(count_of(shape[d], dims, field + ".shape[" + std::to_string(d) + "]"));
  t.strides.assign(t.shape.size(), 1);
  for (size_t d = t.shape.size(); d-- > 1;) t.strides[d - 1] = t.strides[d] * std::max<int64_t>(t.shape[d], 1);
  if (j.contains("strides")) {
    const json& s = j.at("strides");
    if (!s.is_array() || s.size() != shape.size()) bad(field + ".strides", "an array of the shape's rank");
    for (size_t d = 0; d < s.size(); ++d) {
      t.strides[d] = count_of(s[d], dims, field + ".strides[" + std::to_string(d) + "]");
      if (t.strides[d] == 0 && t.access != KGATE_INPUT && t.shape[d] > 1)
        bad(field + ".strides[" + std::to_string(d) + "]", "0 (broadcast) only for an input: elements written twice");
    }
  }
  double extent = 1;
  for (size_t d = 0; d < t.shape.size(); ++d)
    extent += static_cast<double>(std::max<int64_t>(t.shape[d] - 1, 0)) * t.strides[d];
  if (extent * static_cast<double>(dtype_size(t.dtype)) > kMaxBufferBytes)
    bad(field, "a buffer of " + fmt_g(extent * static_cast<double>(dtype_size(t.dtype))) + " bytes (at most 16 GiB)");
  t.storage = static_cast<int64_t>(extent);
  int64_t dense = 1;
  for (size_t d = t.shape.size(); d-- > 0;) {
    t.contiguous = t.contiguous && (t.shape[d] <= 1 || t.strides[d] == dense);
    dense *= std::max<int64_t>(t.shape[d], 1);
  }
  t.fill = parse_fill(j.contains("fill") ? j.at("fill") : json(nullptr), t, field + ".fill");
  if (j.contains("tolerance")) {
    if (t.access == KGATE_INPUT) bad(field + ".tolerance", "an input is not compared");
    t.tolerance = parse_tolerance(j.at("tolerance"), field + ".tolerance");
  }
  return t;
}

Work parse_work(const json& j, const std::vector<TensorSpec>& tensors, const std::map<std::string, double>& dims) {
  // Bytes by default: every input read once, every output written once, an in-place tensor both.
  Work w;
  for (const TensorSpec& t : tensors)
    w.bytes += static_cast<double>(t.elements()) * static_cast<double>(dtype_size(t.dtype)) *
               (t.access == KGATE_INOUT ? 2 : 1);
  if (j.is_null()) return w;
  if (!j.is_object()) bad(".work", R"(must be {"bytes": expr, "flops": expr})");
  only_keys(j, {"bytes", "flops"}, ".work");
  if (j.contains("bytes")) w.bytes = evaluate(j.at("bytes"), dims, ".work.bytes");
  if (j.contains("flops")) w.flops = evaluate(j.at("flops"), dims, ".work.flops");
  if (w.bytes < 0 || w.flops < 0) bad(".work", "bytes and flops must be >= 0");
  return w;
}

}  // namespace

int64_t TensorSpec::elements() const {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}
size_t TensorSpec::bytes() const { return static_cast<size_t>(storage) * dtype_size(dtype); }

int64_t TensorSpec::offset(int64_t i) const {
  if (contiguous) return i;
  int64_t off = 0;
  for (size_t d = shape.size(); d-- > 0;) {
    off += (i % shape[d]) * strides[d];
    i /= shape[d];
  }
  return off;
}

std::string TensorSpec::coords(int64_t i) const {
  std::vector<std::string> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = std::to_string(i % shape[d]);
    i /= shape[d];
  }
  return "[" + join(idx, ",") + "]";
}

Op parse_op(const json& params) {
  const json& j = params.at("operator");
  only_keys(j, {"name", "tensors", "scalars", "work"}, "");
  Op op;
  op.name = j.value("name", std::string("op"));
  const auto dims = dimensions(params);
  if (!j.contains("tensors") || !j.at("tensors").is_array() || j.at("tensors").empty() ||
      j.at("tensors").size() > kMaxTensors)
    bad(".tensors", "an array of 1 to " + std::to_string(kMaxTensors) + " tensors is required");
  std::set<std::string> names;
  bool output = false;
  for (size_t i = 0; i < j.at("tensors").size(); ++i) {
    TensorSpec t = parse_tensor(j.at("tensors")[i], dims, ".tensors[" + std::to_string(i) + "]");
    if (!names.insert(t.name).second)
      bad(".tensors[" + std::to_string(i) + "].name", quoted(t.name) + " declared twice");
    output |= t.access != KGATE_INPUT;
    op.tensors.push_back(std::move(t));
  }
  if (!output) bad(".tensors", "no output (access \"output\" or \"inout\"): nothing to check");
  if (j.contains("scalars")) {
    const json& s = j.at("scalars");
    if (!s.is_object() || s.size() > kMaxScalars) bad(".scalars", "an object of at most 64 name: number");
    for (auto it = s.begin(); it != s.end(); ++it) {
      if (!it.value().is_number()) bad(".scalars." + printable(it.key(), 60), "must be a number");
      op.scalars.emplace_back(it.key(), it.value().get<double>());
    }
  }
  op.work = parse_work(j.contains("work") ? j.at("work") : json(nullptr), op.tensors, dims);
  return op;
}

std::string check_op(const json& params) {
  try {
    (void)parse_op(params);
    return "";
  } catch (const InputError& e) {
    return e.what();
  }
}

Tolerance default_tolerance(const json& params) {
  Tolerance t{0, 0};
  for (const TensorSpec& s : parse_op(params).tensors) {
    if (s.access == KGATE_INPUT) continue;
    const double tol = s.dtype == KGATE_F64 ? 1e-9 : s.dtype == KGATE_F32 ? 1e-4 : is_float(s.dtype) ? 1e-2 : 0;
    t.atol = std::max(t.atol, tol);
    t.rtol = std::max(t.rtol, tol);
  }
  return t;
}

size_t dtype_size(int dtype) {
  switch (dtype) {
    case KGATE_F64:
    case KGATE_I64:
      return 8;
    case KGATE_F32:
    case KGATE_I32:
      return 4;
    case KGATE_F16:
    case KGATE_BF16:
      return 2;
    default:
      return 1;
  }
}

bool is_float(int dtype) { return dtype <= KGATE_BF16; }

namespace {

float half_to_float(uint16_t h) {
  const int e = (h >> 10) & 31, m = h & 1023;
  float v = e == 0    ? std::ldexp(static_cast<float>(m), -24)
            : e == 31 ? (m ? NAN : INFINITY)
                      : std::ldexp(1.0f + static_cast<float>(m) / 1024.0f, e - 15);
  return (h & 0x8000) ? -v : v;
}

uint16_t float_to_half(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000);
  const float a = std::fabs(f);
  if (std::isnan(a)) return static_cast<uint16_t>(sign | 0x7e00);
  if (a >= 65520.0f) return static_cast<uint16_t>(sign | 0x7c00);  // rounds to infinity
  if (a < 0x1p-14f) return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::nearbyint(a * 0x1p24f)));
  int e;
  const float m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  uint32_t bits = static_cast<uint32_t>(std::nearbyint((m * 2 - 1) * 1024));
  int exp = e - 1 + 15;
  if (bits == 1024) {
    bits = 0;
    ++exp;
  }
  return static_cast<uint16_t>(sign | (exp << 10) | bits);
}

constexpr uint16_t kPoisonF16 = 0x7e5e;
constexpr uint64_t kPoisonF64 = 0x7ffde00000000000ull;
constexpr int64_t kIntSentinel = 0x5a;

}  // namespace

double load(const void* base, int dtype, int64_t off) {
  const auto* p = static_cast<const char*>(base) + off * static_cast<int64_t>(dtype_size(dtype));
  switch (dtype) {
    case KGATE_F32: {
      float v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case KGATE_F64: {
      double v;
      std::memcpy(&v, p, 8);
      return v;
    }
    case KGATE_F16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return half_to_float(v);
    }
    case KGATE_BF16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return bf16_bits_to_f32(v);
    }
    case KGATE_I8:
      return static_cast<int8_t>(*p);
    case KGATE_U8:
      return static_cast<uint8_t>(*p);
    case KGATE_I32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    default: {
      int64_t v;
      std::memcpy(&v, p, 8);
      return static_cast<double>(v);
    }
  }
}

void store(void* base, int dtype, int64_t off, double v) {
  auto* p = static_cast<char*>(base) + off * static_cast<int64_t>(dtype_size(dtype));
  switch (dtype) {
    case KGATE_F32: {
      const float f = static_cast<float>(v);
      std::memcpy(p, &f, 4);
      break;
    }
    case KGATE_F64:
      std::memcpy(p, &v, 8);
      break;
    case KGATE_F16: {
      const uint16_t h = float_to_half(static_cast<float>(v));
      std::memcpy(p, &h, 2);
      break;
    }
    case KGATE_BF16: {
      const uint16_t b = f32_to_bf16_bits(static_cast<float>(v));
      std::memcpy(p, &b, 2);
      break;
    }
    case KGATE_I8:
      *p = static_cast<char>(static_cast<int8_t>(v));
      break;
    case KGATE_U8:
      *p = static_cast<char>(static_cast<uint8_t>(v));
      break;
    case KGATE_I32: {
      const int32_t i = static_cast<int32_t>(v);
      std::memcpy(p, &i, 4);
      break;
    }
    default: {
      const int64_t i = static_cast<int64_t>(v);
      std::memcpy(p, &i, 8);
      break;
    }
  }
}

void fill(const TensorSpec& t, void* data, uint64_t seed) {
  Rng rng(seed);
  const Fill& f = t.fill;
  for (int64_t i = 0; i < t.storage; ++i) {
    double v = 0;
    switch (f.kind) {
      case Fill::Kind::Normal:
        v = f.a + f.b * rng.normal();
        break;
      case Fill::Kind::Uniform:
        v = f.a + (f.b - f.a) * rng.uniform();
        break;
      case Fill::Kind::Integers:
        v = f.a + static_cast<double>(rng.below(static_cast<uint64_t>(f.b - f.a + 1)));
        break;
      case Fill::Kind::Index:
        v = rng.uniform() < f.share ? -1.0 : static_cast<double>(rng.below(static_cast<uint64_t>(f.b)));
        break;
      case Fill::Kind::Constant:
        v = f.a;
        break;
      case Fill::Kind::None:
        v = 0;
        break;
    }
    store(data, t.dtype, i, v);
  }
}

namespace {

// The poison of a dtype as its little-endian bits: a float NaN with a payload no arithmetic
// makes; an integer sentinel (any integer may be a result, so it is never "unwritten").
uint64_t poison_bits(int dtype) {
  switch (dtype) {
    case KGATE_F32:
      return kPoisonF32;
    case KGATE_F64:
      return kPoisonF64;
    case KGATE_F16:
      return kPoisonF16;
    case KGATE_BF16:
      return kPoisonBf16;
    default:
      return static_cast<uint64_t>(kIntSentinel);
  }
}

}  // namespace

void poison(const TensorSpec& t, void* data) {
  if (t.dtype == KGATE_F32) {  // the common case, one fill
    std::fill_n(static_cast<uint32_t*>(data), static_cast<size_t>(t.storage), kPoisonF32);
    return;
  }
  const uint64_t bits = poison_bits(t.dtype);
  const size_t n = static_cast<size_t>(t.storage), sz = dtype_size(t.dtype);
  for (size_t i = 0; i < n; ++i) std::memcpy(static_cast<char*>(data) + i * sz, &bits, sz);
}

bool is_poison(const TensorSpec& t, const void* data, int64_t off) {
  if (!is_float(t.dtype)) return false;
  const uint64_t bits = poison_bits(t.dtype);
  const size_t sz = dtype_size(t.dtype);
  return std::memcmp(static_cast<const char*>(data) + off * static_cast<int64_t>(sz), &bits, sz) == 0;
}

TensorArgs::TensorArgs(const Op& op, const std::vector<void*>& data) {
  for (size_t i = 0; i < op.tensors.size(); ++i) {
    const TensorSpec& t = op.tensors[i];
    kgate_tensor d{};
    d.name = t.name.c_str();
    d.data = data.at(i);
    d.dtype = t.dtype;
    d.access = t.access;
    d.rank = static_cast<int32_t>(t.shape.size());
    for (size_t k = 0; k < t.shape.size(); ++k) {
      d.shape[k] = t.shape[k];
      d.strides[k] = t.strides[k];
    }
    desc.push_back(d);
  }
  for (const auto& [name, value] : op.scalars) scalars.push_back({name.c_str(), value});
  args = {KGATE_TENSOR_ABI_VERSION,
          op.name.c_str(),
          desc.data(),
          static_cast<int32_t>(desc.size()),
          scalars.empty() ? nullptr : scalars.data(),
          static_cast<int32_t>(scalars.size())};
}

std::vector<std::string> make_inputs(const Op& op, uint64_t seed) {
  std::vector<std::string> h(op.tensors.size());
  for (size_t i = 0; i < op.tensors.size(); ++i) {
    const TensorSpec& t = op.tensors[i];
    if (t.access == KGATE_OUTPUT) continue;
    h[i].assign(t.bytes(), '\0');
    fill(t, h[i].data(), splitmix_mix(seed + (i + 1) * kGolden));
  }
  return h;
}

void require_written(const TensorSpec& t, const void* data, const std::string& reference) {
  for (int64_t e = 0; e < t.elements(); ++e)
    if (is_poison(t, data, t.offset(e)))
      throw InputError("the reference arm " + reference + " left " + t.name + t.coords(e) + " unwritten");
}

Correctness compare_output(const TensorSpec& t, const void* out, const void* ref, const Tolerance& tol) {
  auto coords = [&](size_t e) { return t.coords(static_cast<int64_t>(e)); };
  const auto n = static_cast<size_t>(t.elements());
  if (t.contiguous && t.dtype == KGATE_F32) {
    const auto* o = static_cast<const float*>(out);
    const auto* r = static_cast<const float*>(ref);
    return compare_elements(
        n, [&](size_t e) { return static_cast<double>(o[e]); }, [&](size_t e) { return static_cast<double>(r[e]); },
        [&](size_t e) { return is_poison_f32(o[e]); }, tol, coords);
  }
  return compare_elements(
      n, [&](size_t e) { return load(out, t.dtype, t.offset(static_cast<int64_t>(e))); },
      [&](size_t e) { return load(ref, t.dtype, t.offset(static_cast<int64_t>(e))); },
      [&](size_t e) { return is_poison(t, out, t.offset(static_cast<int64_t>(e))); }, tol, coords);
}

}  // namespace kgate::tensor

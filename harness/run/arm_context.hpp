#pragma once
// The base of every family's CPU row context: an arm is the family's CpuArm (harness/core/arm.hpp),
// read back with arm_of, and one timed call is one call of it on the context's own buffers, on the
// host clock. The GPU counterpart: harness/gpu/arm_context.hpp.
//
// The timed-call proof (RowContext): a family's `Set` holds one input set's per-call inputs and its
// oracle; set 0 is made by the family's constructor (add_set), sets 1..K-1 by make_set from the
// seeds the executor derives. The live buffers the arms read never move: load_input copies set k's
// contents into them (copy_into), so an arm that memoizes by pointer sees new contents. check() is
// one verified call on the live buffers: prepare_verified, the call, verify.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/core/arm.hpp"
#include "harness/run/backend.hpp"
#include "harness/run/cpu_backend.hpp"

namespace kgate {

// Copies `from` into `live` in place (same size: the live buffer keeps its address).
template <class T>
void copy_into(std::vector<T>& live, const std::vector<T>& from) {
  if (live.size() != from.size())
    throw std::logic_error("input set: a buffer of " + std::to_string(from.size()) + " elements for one of " +
                           std::to_string(live.size()));
  std::copy(from.begin(), from.end(), live.begin());
}

// A CPU row context's input sets: set 0 made by the family's constructor (add_set), sets 1..K-1 by
// make_set from the seeds the executor derives; load_input copies set k into the live buffers.
template <class Set>
class CpuInputSets : public RowContext {
 public:
  void add_input_sets(const std::vector<uint64_t>& seeds) override {
    for (uint64_t s : seeds) sets_.push_back(make_set(s));
  }
  int input_sets() const override { return static_cast<int>(sets_.size()); }
  void load_input(int set) override {
    if (set < 0 || set >= input_sets())
      throw std::logic_error("input set " + std::to_string(set) + " of " + std::to_string(input_sets()));
    if (set != loaded_) load(sets_[static_cast<size_t>(set)]);  // unchanged contents need no copy
    loaded_ = set;
  }

 protected:
  // Input set k from its seed, its shared parts (a cache, weights, a state pool) set 0's.
  virtual Set make_set(uint64_t seed) const = 0;
  // Set's per-call inputs into the live buffers (copy_into).
  virtual void load(const Set& set) = 0;
  // Set 0: the row's seed, made by the family's constructor before any other.
  void add_set(Set s) { sets_.push_back(std::move(s)); }
  const Set& loaded() const { return sets_[static_cast<size_t>(loaded_)]; }

 private:
  std::vector<Set> sets_;
  int loaded_ = 0;
};

// A family's CPU context whose arms are its own CpuArm objects: one timed call is one call of the
// arm on the live buffers, on the host clock.
template <class Arm, class Set>
class CpuArmContext : public CpuInputSets<Set> {
 public:
  Sample time_once(const Implementation& impl) override {
    const Arm& a = arm(impl);
    Sample s;
    s.us = host_time_us([&] { call(a); });
    return s;
  }
  double warm_call_us(const Implementation& impl) override { return time_once(impl).us; }

  Correctness check(const Implementation& impl) override {
    this->prepare_verified(impl);
    call(arm(impl));
    return this->verify(impl);
  }

 protected:
  // One call of `a` on the live buffers.
  virtual void call(const Arm& a) = 0;
  static const Arm& arm(const Implementation& impl) { return arm_of<Arm>(impl); }
};

}  // namespace kgate

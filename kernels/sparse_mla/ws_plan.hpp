#pragma once
// sparse_mla.fast: the warp-specialized kernel's length-balanced plan (fast_ws.cuh), a host and device
// function so the CPU unit tests check the same walk the plan kernel runs.
//
// The rule is FlashMLA's decode scheduler's (get_mla_metadata_kernel, 9241ae3: a contiguous share of
// the (request, block) sequence per SM part, a fixed cost in blocks per request); the code is ours.
// A launch's rows are the pairs (token, 64-head group), token-major; pair (t, g) costs
// max(1, active blocks of t) 64-column blocks plus `overhead` blocks of fixed cost. Partition p takes
// a contiguous run of at most P of that sequence, P the smallest share with which the walk fits in the
// partitions; the pair a partition ends in goes on in the next one (a segment per partition, each with its own
// overhead). A pair in one partition writes out and lse; a split pair's segment j writes partial
// split j of the pair's rows, merged afterwards (sparse_mla_fast_combine_kernel, the pair's segment
// count from the plan). A segment holds at least two blocks unless it is a pair's first or last, so a
// pair has at most ws_plan_max_segments(its blocks) of them: the partials' split slots per row. The
// last partition takes whatever is left, so every pair is covered whatever the arithmetic.
//
// The U partitions in use (a prefix of the walk) are spread evenly over the grid, partition p on CTA
// p x parts / U: a grid whose working CTAs were its first U measured slower and in two modes from
// sample to sample, a grid whose CTAs all work did not (measured on the split decode rows;
// kernels/sparse_mla/NOTES.md).
//
// One int buffer (16-byte aligned):
//   [0] the partitions in use;
//   [4 + 2 c], [5 + 2 c]: CTA c's further items are items parts + [4 + 2 c] .. parts + [5 + 2 c] - 1;
//   items (4 ints each, from items_off()): token; group | (j + 1) << 8 (j: the segment's index in its
//     pair, -1 when the pair has one); b0 | b1 << 16; active columns. Item c (< parts) is CTA c's
//     first (token -1: none, the CTA has no work);
//   per pair (from nseg_off()): its segment count.
#include "harness/core/numeric.hpp"  // KGATE_HD

namespace kgate::sparse_mla {

constexpr int kPlanMaxTokens = 1024;  // the plan kernel's shared table of active columns
constexpr int kPlanBlockCols = 64;    // the warp-specialized kernel's block

struct WsPlanLayout {
  int parts, pairs;
  KGATE_HD int items_off() const { return (4 + 2 * parts + 3) / 4 * 4; }
  KGATE_HD int nseg_off() const { return items_off() + 4 * (2 * parts + pairs); }
  KGATE_HD long long ints() const { return nseg_off() + static_cast<long long>(pairs); }
};
// The most segments a pair of nb blocks gets: a first and a last of one block or more, two or more
// each between.
KGATE_HD inline int ws_plan_max_segments(int nb) { return nb < 3 ? nb : (nb + 1) / 2 + 1 < nb ? (nb + 1) / 2 + 1 : nb; }

// The walk over one launch's pairs (ws_plan_walk's steps).
struct WsPlanWalk {
  const int* act;  // token t's active columns, clamped to [0, W]
  int tokens, groups, parts, overhead;
  WsPlanLayout L;

  KGATE_HD int blocks(int t) const { return act[t] > 0 ? (act[t] + kPlanBlockCols - 1) / kPlanBlockCols : 1; }

  // The greedy walk at share P: partition p takes pairs while their rest fits (left + overhead), then a
  // segment of what remains but the overhead, the pair going on in partition p + 1; with `rest`, the
  // last partition takes whatever is left. seg(p, pair, j, b0, b1, n): a segment of pair, its index j
  // (-1: the pair's only one), blocks [b0, b1), n the pair's segment count when it ends there (else 0).
  // Returns the partitions used, parts + 1 when the pairs do not fit.
  template <class Seg>
  KGATE_HD int run(long long P, bool rest, Seg&& seg) const {
    int pair = 0, blk = 0, j = 0, p = 0;
    for (; pair < L.pairs; ++p) {
      if (p == parts) return parts + 1;
      const bool last = rest && p == parts - 1;
      long long remain = P;
      bool moved = false;
      while (pair < L.pairs) {
        const int nb = blocks(pair / groups), left = nb - blk;
        if (last || remain >= left + overhead) {  // the pair ends in this partition
          seg(p, pair, j > 0 ? j : -1, blk, nb, j + 1);
          remain -= left + overhead;
          ++pair;
          blk = 0;
          j = 0;
          moved = true;
        } else {
          if (remain > overhead) {
            const int take = static_cast<int>(remain - overhead);
            seg(p, pair, j, blk, blk + take, 0);
            blk += take;
            ++j;
            moved = true;
          }
          break;
        }
      }
      if (!moved) return parts + 1;
    }
    return p;
  }

  // The smallest share that fits in `parts` (FlashMLA's scheduler takes ceil(total / parts) +
  // overhead, which leaves partitions idle at the end; the search makes the longest one as short as
  // the walk can). Everything in one partition always fits.
  KGATE_HD long long smallest_share() const {
    long long total = 0;
    for (int t = 0; t < tokens; ++t) total += static_cast<long long>(blocks(t) + overhead) * groups;
    auto count_only = [](int, int, int, int, int, int) {};
    long long lo = (total + parts - 1) / parts, hi = total;
    if (lo < overhead + 2) lo = overhead + 2;  // two blocks a segment at least (ws_plan_max_segments)
    if (hi < lo) hi = lo;
    while (lo < hi) {
      const long long mid = (lo + hi) / 2;
      if (run(mid, false, count_only) <= parts)
        hi = mid;
      else
        lo = mid + 1;
    }
    return lo;
  }

  KGATE_HD void item(int* v, int t, int g, int j, int b0, int b1) const {
    v[0] = t;
    v[1] = g | ((j + 1) << 8);
    v[2] = b0 | (b1 << 16);
    v[3] = t < 0 ? 0 : act[t];
  }

  // Spread: partition p to CTA p x parts / used (increasing, >= p), the highest first, so a slot is
  // rewritten only after its own partition has moved; a slot left behind is emptied.
  KGATE_HD void spread(int* plan, int used) const {
    int* items = plan + L.items_off();
    for (int p = used - 1; p >= 0; --p) {
      const int c = static_cast<int>(static_cast<long long>(p) * parts / used);
      if (c == p) continue;
      for (int k = 0; k < 4; ++k) items[4 * c + k] = items[4 * p + k];
      plan[4 + 2 * c] = plan[4 + 2 * p];
      plan[5 + 2 * c] = plan[5 + 2 * p];
      item(items + 4 * p, -1, 0, -1, 0, 0);
      plan[4 + 2 * p] = plan[5 + 2 * p] = 0;
    }
  }
};

// act[t]: token t's active columns, clamped to [0, W]. Writes the whole plan into `plan`.
KGATE_HD inline void ws_plan_walk(const int* act, int tokens, int groups, int parts, int overhead, int* plan) {
  const WsPlanWalk w{act, tokens, groups, parts, overhead, WsPlanLayout{parts, tokens * groups}};
  const long long share = w.smallest_share();
  int* items = plan + w.L.items_off();
  int* nseg = plan + w.L.nseg_off();
  for (int p = 0; p < parts; ++p) {  // every CTA without work until the walk gives it some
    w.item(items + 4 * p, -1, 0, -1, 0, 0);
    plan[4 + 2 * p] = plan[5 + 2 * p] = 0;
  }
  int r = 0, open = -1;  // further items written; the partition being written
  const int used = w.run(share, true, [&](int p, int pair, int j, int b0, int b1, int n) {
    const int t = pair / groups, g = pair % groups;
    if (p != open) {  // the partition's first item
      open = p;
      plan[4 + 2 * p] = r;
      w.item(items + 4 * p, t, g, j, b0, b1);
    } else {
      w.item(items + 4 * (parts + r++), t, g, j, b0, b1);
    }
    plan[5 + 2 * p] = r;
    if (n) nseg[pair] = n;
  });
  w.spread(plan, used);
  plan[0] = used;
}

}  // namespace kgate::sparse_mla

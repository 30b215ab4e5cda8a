// The html report: one self-contained file (inline CSS and SVG, no script, no network).
//
// Layout, fixed so that a test can find the charts in a screenshot: a header of kHtmlHeaderPx,
// then the charts stacked, each drawn kHtmlChartWidthPx x kHtmlChartPx and shown at the page's
// width (up to 1600 px) with that aspect, so chart i (id "chart-i") lies at y = kHtmlHeaderPx +
// i * kHtmlChartPx * scale, scale = shown width / kHtmlChartWidthPx; each chart's
// data-plot="x0,y0,x1,y1" gives its plot area within it, in drawn pixels. Charts: per baseline, the ratio per row (a
// bar from 1, the 99% CI as a whisker, a line at 1); median time per arm against the table's declared sweep parameter
// (a mark per row where it declares none); and the candidate as a percent of the floor arm (else of the copy peak) when
// the receipt has one; and per arm, every timed sample per row from the sidecar (quartile box, range, each group's
// median).
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "harness/core/gates.hpp"
#include "harness/report/compare.hpp"
#include "harness/report/report.hpp"
#include "harness/report/report_text.hpp"

namespace kgate {
namespace {

namespace rt = report_text;

constexpr int kLeft = 70, kTop = 40, kBottom = 110;
// Data colours are saturated (max - min channel > 40) and everything else grey: the html e2e test
// finds the marks in a screenshot that way.
const char* const kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
const char* const kDashes[] = {"", "6,3", "2,3", "9,3,2,3"};

std::string f1(double x) { return rt::printf_num("%.1f", x); }

// A tick label: three significant digits, an SI prefix beyond [0.01, 1000) (16.8M, not 1.67772e+07).
std::string eng(double x) {
  const double a = std::fabs(x);
  if (a == 0 || (a >= 0.01 && a < 1000)) return rt::printf_num("%.3g", x);
  static const char* const big[] = {"k", "M", "G", "T", "P"};
  static const char* const small[] = {"m", "\u00b5", "n", "p"};
  int e = static_cast<int>(std::floor(std::log10(a) / 3));
  if (e > 5) e = 5;
  if (e < -4) e = -4;
  const std::string prefix = e > 0 ? big[e - 1] : small[-e - 1];
  return rt::printf_num("%.3g", x / std::pow(1000.0, e)) + prefix;
}

// A linear or logarithmic map from data to pixels.
struct Scale {
  double d0 = 0, d1 = 1, p0 = 0, p1 = 1;
  bool log = false;
  double operator()(double x) const {
    const double a = log ? std::log(d0) : d0, b = log ? std::log(d1) : d1, t = log ? std::log(x) : x;
    return b == a ? (p0 + p1) / 2 : p0 + (t - a) / (b - a) * (p1 - p0);
  }
  // Three to ten round ticks: log, the coarsest mantissa set that gives at least three in range
  // (1; 1, 2, 5; ... ; steps of 0.1); linear, a 1/2/5 step.
  std::vector<double> ticks() const {
    std::vector<double> out;
    if (log) {
      static const std::vector<std::vector<double>> sets = [] {
        std::vector<std::vector<double>> s = {
            {1}, {1, 2, 5}, {1, 1.5, 2, 3, 5, 7}, {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8}};
        for (double step : {0.1, 0.02}) {
          std::vector<double> m;
          for (double x = 1; x < 10 - 1e-9; x += step) m.push_back(x);
          s.push_back(m);
        }
        return s;
      }();
      for (const auto& set : sets) {
        std::vector<double> t;
        for (int e = int(std::floor(std::log10(d0))); e <= int(std::ceil(std::log10(d1))); ++e)
          for (double m : set) {
            const double x = m * std::pow(10.0, e);
            if (x >= d0 && x <= d1) t.push_back(x);
          }
        if (t.size() > 10 && !out.empty()) break;
        out = t;
        if (out.size() >= 3) break;
      }
      return out;
    }
    const double raw = (d1 - d0) / 5, mag = std::pow(10, std::floor(std::log10(raw > 0 ? raw : 1)));
    const double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
    for (double t = std::ceil(d0 / step) * step; t <= d1 + step * 1e-9; t += step)
      out.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);  // no "-0"
    return out;
  }
};

// Data range [lo, hi] widened by `pad` of its extent (log: in log space).
Scale scale_over(double lo, double hi, bool log, double p0, double p1, double pad = 0.06) {
  if (log) {
    double a = std::log(lo), b = std::log(hi), e = std::max(b - a, 0.02);
    return {std::exp(a - pad * e), std::exp(b + pad * e), p0, p1, true};
  }
  double e = std::max(hi - lo, std::fabs(hi) * 0.02 + 1e-12);
  return {lo - pad * e, hi + pad * e, p0, p1, false};
}

class Svg {
 public:
  Svg(int index, int right_margin, const std::string& title, const std::string& subtitle)
      : right_(kHtmlChartWidthPx - right_margin) {
    o_ << "<svg class=\"chart\" id=\"chart-" << index << "\" xmlns=\"http://www.w3.org/2000/svg\" width=\""
       << kHtmlChartWidthPx << "\" height=\"" << kHtmlChartPx << "\" viewBox=\"0 0 " << kHtmlChartWidthPx << " "
       << kHtmlChartPx << "\" data-plot=\"" << kLeft << "," << kTop << "," << right_ << "," << bottom() << "\">\n"
       << "<rect x=\"0\" y=\"0\" width=\"" << kHtmlChartWidthPx << "\" height=\"" << kHtmlChartPx
       << "\" fill=\"#ffffff\"/>\n<text x=\"" << kLeft << "\" y=\"16\" class=\"title\">" << rt::html(title)
       << "</text>\n"
       << "<text x=\"" << kLeft << "\" y=\"32\" class=\"tick\">" << rt::html(subtitle) << "</text>\n"
       << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << right_ - kLeft << "\" height=\""
       << bottom() - kTop << "\" fill=\"none\" stroke=\"#cccccc\"/>\n";
  }
  int left() const { return kLeft; }
  int right() const { return right_; }
  int top() const { return kTop; }
  int bottom() const { return kHtmlChartPx - kBottom; }
  void y_axis(const Scale& y, const std::string& label, const std::string& suffix = "") {
    // Labels 16 px apart at least; 1 is kept first (the ratio charts' reference).
    std::vector<double> ticks = y.ticks();
    std::stable_partition(ticks.begin(), ticks.end(), [](double t) { return t == 1; });
    std::vector<double> kept;
    for (double t : ticks) {
      const double py = y(t);
      if (std::any_of(kept.begin(), kept.end(), [&](double k) { return std::fabs(k - py) < 16; })) continue;
      kept.push_back(py);
      o_ << "<line x1=\"" << kLeft - 4 << "\" y1=\"" << f1(py) << "\" x2=\"" << right_ << "\" y2=\"" << f1(py)
         << "\" stroke=\"#eeeeee\"/><text x=\"" << kLeft - 6 << "\" y=\"" << f1(py + 4)
         << "\" class=\"tick\" text-anchor=\"end\">" << rt::html(eng(t) + suffix) << "</text>\n";
    }
    o_ << "<text transform=\"translate(14," << (kTop + bottom()) / 2
       << ") rotate(-90)\" class=\"tick\" text-anchor=\"middle\">" << rt::html(label) << "</text>\n";
  }
  // At the given values (the data's own, when few), else at round ones; labels 32 px apart.
  void x_ticks(const Scale& x, std::vector<double> at) {
    if (at.empty() || at.size() > 12) at = x.ticks();
    double last = -1e9;
    for (double t : at) {
      if (x(t) - last < 32) continue;
      last = x(t);
      o_ << "<line x1=\"" << f1(x(t)) << "\" y1=\"" << bottom() << "\" x2=\"" << f1(x(t)) << "\" y2=\"" << bottom() + 4
         << "\" stroke=\"#888888\"/><text x=\"" << f1(x(t)) << "\" y=\"" << bottom() + 16
         << "\" class=\"tick\" text-anchor=\"middle\">" << rt::html(eng(t)) << "</text>\n";
    }
  }
  // Row labels under a categorical axis, rotated; at most ~48 shown.
  void row_labels(const std::vector<std::string>& ids, double slot) {
    const size_t every = ids.size() / 48 + 1;
    for (size_t i = 0; i < ids.size(); i += every) {
      const double px = kLeft + (i + 0.5) * slot;
      std::string id = ids[i].size() > 26 ? ids[i].substr(0, 25) + "\u2026" : ids[i];
      o_ << "<text transform=\"translate(" << f1(px + 3) << "," << bottom() + 10 << ") rotate(-40)\" class=\"tick\" "
         << "text-anchor=\"end\">" << rt::html(id) << "</text>\n";
    }
  }
  void hline(double py, const char* color, const std::string& label) {
    o_ << "<line x1=\"" << kLeft << "\" y1=\"" << f1(py) << "\" x2=\"" << right_ << "\" y2=\"" << f1(py)
       << "\" stroke=\"" << color << "\" stroke-width=\"1.5\"/><text x=\"" << right_ - 4 << "\" y=\"" << f1(py - 4)
       << "\" class=\"tick\" text-anchor=\"end\">" << rt::html(label) << "</text>\n";
  }
  std::ostringstream& out() { return o_; }
  std::string finish() { return o_.str() + "</svg>\n"; }

 private:
  int right_;
  std::ostringstream o_;
};

// An arm as the charts name it: an export arm (export:LIB:NAME) by NAME and "(export)" where no
// other arm of `arms` has that NAME, else in full; the report's arms table has every identity.
std::string arm_label(const std::string& arm, const std::vector<std::string>& arms) {
  const auto name = [](const std::string& a) {
    const size_t colon = a.rfind(':');
    return a.rfind("export:", 0) == 0 && colon > 7 ? a.substr(colon + 1) : a;
  };
  if (name(arm) == arm) return arm;
  const bool shared = std::any_of(arms.begin(), arms.end(), [&](const std::string& o) {
    return o != arm && o.rfind("export:", 0) == 0 && name(o) == name(arm);
  });
  return shared ? arm : name(arm) + " (export)";
}
std::vector<std::string> run_arms(const std::string& candidate, const std::vector<std::string>& baselines) {
  std::vector<std::string> out = {candidate};
  out.insert(out.end(), baselines.begin(), baselines.end());
  return out;
}
std::string arm_label(const ReportView& v, const std::string& arm) {
  return arm_label(arm, run_arms(v.candidate, v.baselines));
}
std::string arm_label(const CompareResult& c, const std::string& arm) {
  return arm_label(arm, run_arms(c.new_side.candidate, c.new_side.baselines));
}

// A bar from `from` to `to` (pixels) centred on px, with its tooltip.
void bar(Svg& s, double px, double w, double from, double to, const char* color, const std::string& tip) {
  s.out() << "<rect x=\"" << f1(px - w / 2) << "\" y=\"" << f1(std::min(from, to)) << "\" width=\"" << f1(w)
          << "\" height=\"" << f1(std::max(std::fabs(to - from), 1.0)) << "\" fill=\"" << color << "\"><title>"
          << rt::html(tip) << "</title></rect>\n";
}

// The limit(L) a row is held to against `baseline`, as its gate judged it (effective_limit); none
// where the baseline is not judged by limit.
std::optional<double> row_limit(const ReportView& v, const RowRecord& r, const std::string& baseline) {
  const GateSet& g = v.policy.gates_for(baseline);
  if (std::find(g.gates.begin(), g.gates.end(), "limit") == g.gates.end()) return std::nullopt;
  return effective_limit(r, g);
}

// Whether the row failed a gate judging its pair against `baseline`.
bool failed_against(const RowView& rv, const std::string& baseline, const std::string& gate) {
  return std::any_of(rv.failures.begin(), rv.failures.end(),
                     [&](const GateResult& f) { return f.gate == gate && f.baseline == baseline; });
}

std::string ratio_chart(const ReportView& v, const std::string& baseline, int index) {
  // A baseline judged by limit (a floor): the bar's colour is the row's limit gate, and a tick marks
  // the ratio the limit needs (1 / (1 + L)).
  const bool limited = std::any_of(v.rows.begin(), v.rows.end(),
                                   [&](const RowView& rv) { return row_limit(v, rv.record, baseline).has_value(); });
  Svg s(index, 20,
        "ratio vs " + arm_label(v, baseline) + " per row: baseline / candidate median, > 1 = candidate faster",
        limited ? "bar from 1 to the ratio; whisker: the " + rt::shortest(v.interval.level * 100) +
                      "% CI; black tick: the ratio the row's limit gate needs, 1 / (1 + L); green: the limit "
                      "passed, red: failed"
                : "bar from 1 to the ratio; whisker: the " + rt::shortest(v.interval.level * 100) +
                      "% CI; green: resolved faster (CI above 1), red: resolved slower (CI below 1), amber: "
                      "unresolved");
  double lo = 1, hi = 1;
  std::vector<std::string> ids;
  std::vector<const PairRecord*> pairs;
  for (const auto& rv : v.rows) {
    ids.push_back(rv.record.id);
    const PairRecord* found = nullptr;
    for (const auto& p : rv.record.pairs)
      if (p.baseline == baseline) found = &p;
    pairs.push_back(found);
    if (found && found->ratio) {
      lo = std::min({lo, *found->ratio, found->ratio_ci ? found->ratio_ci->lo : *found->ratio});
      hi = std::max({hi, *found->ratio, found->ratio_ci ? found->ratio_ci->hi : *found->ratio});
    }
    if (const auto L = row_limit(v, rv.record, baseline)) lo = std::min(lo, 1 / (1 + *L));
  }
  const Scale y = scale_over(lo, hi, true, s.bottom(), s.top());
  s.y_axis(y, "ratio (log scale)");
  const double slot = double(s.right() - s.left()) / std::max<size_t>(1, ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    const double px = s.left() + (i + 0.5) * slot;
    const PairRecord* p = pairs[i];
    if (!p || !p->ratio) {
      s.out() << "<text x=\"" << f1(px) << "\" y=\"" << f1(y(1) - 6)
              << "\" class=\"tick\" text-anchor=\"middle\" fill=\"#888888\">"
              << "\u00d7<title>" << rt::html(ids[i] + ": not measured") << "</title></text>\n";
      continue;
    }
    const std::optional<double> L = row_limit(v, v.rows[i].record, baseline);
    const char* color = L                     ? (failed_against(v.rows[i], baseline, "limit") ? "#c62828" : "#2e7d32")
                        : !p->ratio_ci        ? "#999999"
                        : p->ratio_ci->lo > 1 ? "#2e7d32"
                        : p->ratio_ci->hi < 1 ? "#c62828"
                                              : "#f0a202";
    std::string tip = ids[i] + ": ratio " + rt::ratio3(*p->ratio);
    if (p->ratio_ci) tip += ", CI [" + rt::ratio3(p->ratio_ci->lo) + ", " + rt::ratio3(p->ratio_ci->hi) + "]";
    s.out() << "<g class=\"bar\" data-row=\"" << rt::html(ids[i]) << "\">";
    bar(s, px, std::max(2.0, slot * 0.6), y(1), y(*p->ratio), color, tip);
    if (p->ratio_ci) {
      const double a = y(p->ratio_ci->lo), b = y(p->ratio_ci->hi), cap = std::max(2.0, slot * 0.2);
      s.out() << "<path d=\"M" << f1(px) << " " << f1(a) << "V" << f1(b) << "M" << f1(px - cap) << " " << f1(a) << "H"
              << f1(px + cap) << "M" << f1(px - cap) << " " << f1(b) << "H" << f1(px + cap)
              << "\" stroke=\"#222222\" stroke-width=\"1.2\" fill=\"none\"/>";
    }
    if (L) {
      const double need = y(1 / (1 + *L)), half = std::max(3.0, slot * 0.45);
      s.out() << "<path class=\"limit\" d=\"M" << f1(px - half) << " " << f1(need) << "H" << f1(px + half)
              << "\" stroke=\"#000000\" stroke-width=\"2\"><title>" << rt::html(ids[i] + ": limit needs ratio >= ")
              << rt::html(rt::ratio3(1 / (1 + *L))) << "</title></path>";
    }
    s.out() << "</g>\n";
  }
  s.hline(y(1), "#000000", "1");
  s.row_labels(ids, slot);
  return s.finish();
}

// Each row's line key: the values of the tags (then, where those still leave two rows at one x,
// the params) that are not a function of x, so that a line joins comparable rows.
std::vector<std::string> line_groups(const ReportView& v, const std::vector<double>& xs) {
  auto determined = [&](auto value_of) {
    std::map<double, std::string> at;
    for (size_t i = 0; i < v.rows.size(); ++i) {
      auto [it, fresh] = at.emplace(xs[i], value_of(v.rows[i].record));
      if (!fresh && it->second != value_of(v.rows[i].record)) return false;
    }
    return true;
  };
  std::vector<std::string> keys(v.rows.size());
  std::set<std::string> tag_keys;
  for (const auto& rv : v.rows)
    for (const auto& [k, val] : rv.record.tags) tag_keys.insert(k);
  for (const auto& k : tag_keys) {
    auto val = [&](const RowRecord& r) { return r.tags.count(k) ? r.tags.at(k) : std::string("-"); };
    if (determined(val)) continue;
    for (size_t i = 0; i < v.rows.size(); ++i)
      keys[i] += (keys[i].empty() ? "" : " ") + k + "=" + val(v.rows[i].record);
  }
  std::set<std::pair<std::string, double>> seen;
  bool unique = true;
  for (size_t i = 0; i < v.rows.size(); ++i) unique = unique && seen.insert({keys[i], xs[i]}).second;
  if (unique) return keys;
  std::set<std::string> param_keys;
  for (const auto& rv : v.rows)
    for (auto it = rv.record.params.begin(); it != rv.record.params.end(); ++it) param_keys.insert(it.key());
  for (const auto& k : param_keys) {
    auto val = [&](const RowRecord& r) { return r.params.contains(k) ? r.params[k].dump() : std::string("-"); };
    if (determined(val)) continue;
    for (size_t i = 0; i < v.rows.size(); ++i)
      keys[i] += (keys[i].empty() ? "" : " ") + k + "=" + val(v.rows[i].record);
  }
  return keys;
}

// Per arm and group of rows, the arm's median time over the chart's x values.
struct TimeSeries {
  struct Series {
    std::string arm, group;
    std::vector<std::pair<double, double>> points;
  };
  std::vector<Series> series;
  double tmin = INFINITY, tmax = 0;
};

TimeSeries time_series(const ReportView& v, const std::vector<double>& xs, const std::vector<std::string>& groups,
                       const std::vector<std::string>& arms) {
  TimeSeries ts;
  for (size_t a = 0; a < arms.size(); ++a) {
    std::map<std::string, size_t> of_group;
    for (size_t i = 0; i < v.rows.size(); ++i) {
      std::optional<double> t;
      for (const auto& p : v.rows[i].record.pairs) {
        if (a == 0 && p.candidate_stats && !t) t = p.candidate_stats->median_us;
        if (a > 0 && p.baseline == arms[a] && p.baseline_stats) t = p.baseline_stats->median_us;
      }
      if (!t || !(*t > 0)) continue;
      auto [it, fresh] = of_group.emplace(groups[i], ts.series.size());
      if (fresh) ts.series.push_back({arms[a], groups[i], {}});
      ts.series[it->second].points.emplace_back(xs[i], *t);
      ts.tmin = std::min(ts.tmin, *t);
      ts.tmax = std::max(ts.tmax, *t);
    }
  }
  return ts;
}

// Time against the table's declared sweep parameter, a line per arm and group of rows that share
// their other tags; a table that declares none gets a mark per arm and row, and no line joins
// rows of unlike shapes.
std::string time_chart(const ReportView& v, int index) {
  const std::string& param = v.sweep;
  std::vector<double> xs;
  std::vector<std::string> ids;
  for (size_t i = 0; i < v.rows.size(); ++i) {
    xs.push_back(param.empty() ? double(i) : v.rows[i].record.params[param].get<double>());
    ids.push_back(v.rows[i].record.id);
  }
  const std::vector<std::string> groups = param.empty() ? std::vector<std::string>(v.rows.size()) : line_groups(v, xs);
  std::vector<std::string> arms = {v.candidate};
  arms.insert(arms.end(), v.baselines.begin(), v.baselines.end());
  TimeSeries ts = time_series(v, xs, groups, arms);
  auto& series = ts.series;
  const double tmin = ts.tmin, tmax = ts.tmax;
  Svg s(index, 230, "median time per arm vs " + (param.empty() ? std::string("row") : param),
        param.empty() ? "the table declares no sweep parameter: a mark per arm and row, no line between rows"
        : std::any_of(groups.begin(), groups.end(), [](const std::string& g) { return !g.empty(); })
            ? "one line per arm (colour) and group of rows that share their other tags (dash)"
            : "one line per arm");
  if (series.empty()) return s.finish();
  const double xmin = *std::min_element(xs.begin(), xs.end()), xmax = *std::max_element(xs.begin(), xs.end());
  const Scale x = scale_over(xmin, xmax, !param.empty() && xmin > 0 && xmax / xmin >= 8, s.left(), s.right(), 0.04);
  const Scale y = scale_over(tmin, tmax, tmax / tmin >= 10, s.bottom(), s.top());
  s.y_axis(y, "median us" + std::string(y.log ? " (log scale)" : ""));
  if (param.empty())
    s.row_labels(ids, double(s.right() - s.left()) / std::max<size_t>(1, ids.size()));
  else {
    const std::set<double> distinct(xs.begin(), xs.end());
    s.x_ticks(x, {distinct.begin(), distinct.end()});
    s.out() << "<text x=\"" << (s.left() + s.right()) / 2 << "\" y=\"" << s.bottom() + 36
            << "\" class=\"tick\" text-anchor=\"middle\">" << rt::html(param + (x.log ? " (log scale)" : ""))
            << "</text>\n";
  }
  const double cat = double(s.right() - s.left()) / std::max<size_t>(1, ids.size());
  auto px = [&](double xv) { return param.empty() ? s.left() + (xv + 0.5) * cat : x(xv); };
  std::map<std::string, int> dash_of_group;
  for (size_t k = 0; k < series.size(); ++k) {
    TimeSeries::Series& se = series[k];
    std::sort(se.points.begin(), se.points.end());
    const size_t arm_index = std::find(arms.begin(), arms.end(), se.arm) - arms.begin();
    const char* color = kPalette[arm_index % 8];
    const int dash = dash_of_group.emplace(se.group, int(dash_of_group.size())).first->second % 4;
    std::string d;
    for (const auto& [xv, t] : se.points) d += (d.empty() ? "M" : "L") + f1(px(xv)) + " " + f1(y(t));
    s.out() << "<g class=\"series\">";
    if (!param.empty())
      s.out() << "<path d=\"" << d << "\" fill=\"none\" stroke=\"" << color << "\" stroke-width=\"2\""
              << (*kDashes[dash] ? std::string(" stroke-dasharray=\"") + kDashes[dash] + "\"" : "") << "/>";
    for (const auto& [xv, t] : se.points)
      s.out() << "<circle cx=\"" << f1(px(xv)) << "\" cy=\"" << f1(y(t)) << "\" r=\"3\" fill=\"" << color
              << "\"><title>"
              << rt::html(arm_label(v, se.arm) + (se.group.empty() ? "" : " " + se.group) + ": " + rt::sig4(t) +
                          " us at " +
                          (param.empty() ? "row " + ids[size_t(xv)] : param + "=" + rt::printf_num("%.6g", xv)))
              << "</title></circle>";
    s.out() << "</g>\n";
    if (k < 20) {
      const int ly = s.top() + 8 + int(k) * 16;
      s.out() << "<line x1=\"" << s.right() + 10 << "\" y1=\"" << ly << "\" x2=\"" << s.right() + 34 << "\" y2=\"" << ly
              << "\" stroke=\"" << color << "\" stroke-width=\"2\""
              << (*kDashes[dash] ? std::string(" stroke-dasharray=\"") + kDashes[dash] + "\"" : "") << "/><text x=\""
              << s.right() + 38 << "\" y=\"" << ly + 4 << "\" class=\"tick\">"
              << rt::html(arm_label(v, se.arm) + (se.group.empty() ? "" : " " + se.group)) << "</text>\n";
    } else if (k == 20) {
      s.out() << "<text x=\"" << s.right() + 10 << "\" y=\"" << s.top() + 8 + 20 * 16 << "\" class=\"tick\">\u2026 "
              << series.size() - 20 << " more</text>\n";
    }
  }
  return s.finish();
}

// Percent of the floor arm per row (floor time / candidate time), else percent of the measured
// copy peak; empty when the receipt has neither.
std::string percent_chart(const ReportView& v, int index) {
  std::string floor;
  for (const auto& b : v.baselines)
    if (floor.empty() && v.is_floor(b)) floor = b;
  if (floor.empty() && !v.has_copy_peak()) return "";
  std::vector<std::string> ids;
  std::vector<std::optional<double>> pct;
  double top = 100;
  for (const auto& rv : v.rows) {
    ids.push_back(rv.record.id);
    std::optional<double> x;
    for (size_t i = 0; i < rv.record.pairs.size(); ++i) {
      const PairFigures& f = rv.figures[i];
      if (!floor.empty() && rv.record.pairs[i].baseline == floor) x = f.pct_of_floor;
      if (floor.empty() && !x) x = f.pct_copy_peak;
    }
    pct.push_back(x);
    if (x) top = std::max(top, *x);
  }
  Svg s(
      index, 20,
      floor.empty() ? "candidate as % of the measured copy peak" : "candidate as % of the floor " + arm_label(v, floor),
      floor.empty() ? "the family's work model bytes / candidate median, over the copy peak measured at start-up"
                    : "floor time / candidate time; 100% = as fast as the floor");
  const Scale y = scale_over(0, top, false, s.bottom(), s.top(), 0.05);
  s.y_axis(y, floor.empty() ? "% of copy peak" : "% of floor", "%");
  const double slot = double(s.right() - s.left()) / std::max<size_t>(1, ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    if (!pct[i]) continue;
    s.out() << "<g class=\"bar\" data-row=\"" << rt::html(ids[i]) << "\">";
    bar(s, s.left() + (i + 0.5) * slot, std::max(2.0, slot * 0.6), y(0), y(*pct[i]), "#5470c6",
        ids[i] + ": " + rt::pct1(*pct[i]));
    s.out() << "</g>\n";
  }
  s.hline(y(100), "#000000", "100%");
  s.row_labels(ids, slot);
  return s.finish();
}

// Quantile q of sorted values (linear between the two nearest ranks).
double quantile(const std::vector<double>& sorted, double q) {
  const double at = q * static_cast<double>(sorted.size() - 1);
  const size_t i = static_cast<size_t>(at);
  return i + 1 < sorted.size() ? sorted[i] + (at - static_cast<double>(i)) * (sorted[i + 1] - sorted[i]) : sorted[i];
}

// One arm's timed samples per row, from the sidecar, as groups in run order: the baseline side of
// its pair, or (the candidate) the candidate side of the row's first measured pair.
std::vector<std::vector<std::vector<double>>> arm_samples(const ReportView& v, const std::string& arm, bool cand) {
  std::vector<std::vector<std::vector<double>>> out(v.rows.size());
  const json& rows = (*v.samples)["rows"];
  for (size_t i = 0; i < v.rows.size(); ++i) {
    const RowRecord& r = v.rows[i].record;
    const auto it = rows.find(r.id);
    if (it == rows.end() || !it->contains("pairs")) continue;
    const json& pairs = (*it)["pairs"];
    for (size_t p = 0; p < r.pairs.size() && p < pairs.size() && out[i].empty(); ++p) {
      if (!cand && r.pairs[p].baseline != arm) continue;
      for (const json& g : pairs[p].value(cand ? "candidate" : "baseline", json::array())) {
        std::vector<double> xs;
        for (const json& x : g)
          if (x.is_number() && x.get<double>() > 0) xs.push_back(x.get<double>());
        if (!xs.empty()) out[i].push_back(std::move(xs));
      }
    }
  }
  return out;
}

// Every timed sample of one arm per row: a box over the quartiles, a whisker from the fastest to
// the slowest sample, and a tick per group at that group's median, groups left to right in run
// order, so a group that drifts from the others or two clusters of samples show.
std::string distribution_chart(const ReportView& v, const std::string& arm, bool cand, int index) {
  if (!v.samples || !v.samples->contains("rows")) return "";
  const auto groups = arm_samples(v, arm, cand);
  double lo = INFINITY, hi = 0;
  for (const auto& row : groups)
    for (const auto& g : row)
      for (double x : g) lo = std::min(lo, x), hi = std::max(hi, x);
  if (!(hi > 0)) return "";
  const std::string unit = v.samples->value("unit", std::string("us"));
  Svg s(index, 20, arm_label(v, arm) + (cand ? " (candidate)" : "") + ": every timed sample per row, " + unit,
        "box: the quartiles, black line: the median; whisker: fastest to slowest sample; ticks: each group's "
        "median, groups left to right in run order");
  const Scale y = scale_over(lo, hi, true, s.bottom(), s.top());
  s.y_axis(y, "time (" + unit + ", log scale)");
  std::vector<std::string> ids;
  for (const auto& rv : v.rows) ids.push_back(rv.record.id);
  const double slot = double(s.right() - s.left()) / std::max<size_t>(1, ids.size());
  const double w = std::max(3.0, slot * 0.7);
  for (size_t i = 0; i < ids.size(); ++i) {
    if (groups[i].empty()) continue;
    std::vector<double> all;
    for (const auto& g : groups[i]) all.insert(all.end(), g.begin(), g.end());
    std::sort(all.begin(), all.end());
    const double px = s.left() + (i + 0.5) * slot, q1 = quantile(all, 0.25), med = quantile(all, 0.5),
                 q3 = quantile(all, 0.75);
    s.out() << "<g class=\"dist\" data-row=\"" << rt::html(ids[i]) << "\"><path d=\"M" << f1(px) << " "
            << f1(y(all.front())) << "V" << f1(y(all.back())) << "\" stroke=\"#888888\" stroke-width=\"1\"/>";
    bar(s, px, w, y(q1), y(q3), kPalette[0],
        ids[i] + ": " + std::to_string(all.size()) + " samples, median " + rt::printf_num("%.4g", med) + " " + unit +
            ", quartiles " + rt::printf_num("%.4g", q1) + " - " + rt::printf_num("%.4g", q3) + ", range " +
            rt::printf_num("%.4g", all.front()) + " - " + rt::printf_num("%.4g", all.back()));
    s.out() << "<path d=\"M" << f1(px - w / 2) << " " << f1(y(med)) << "H" << f1(px + w / 2)
            << "\" stroke=\"#000000\" stroke-width=\"1.5\"/>";
    const double gw = w / static_cast<double>(groups[i].size());
    for (size_t g = 0; g < groups[i].size(); ++g) {
      std::vector<double> sorted = groups[i][g];
      std::sort(sorted.begin(), sorted.end());
      const double gmed = quantile(sorted, 0.5), gx = px - w / 2 + (static_cast<double>(g) + 0.5) * gw, gy = y(gmed);
      s.out() << "<path class=\"group\" d=\"M" << f1(gx - std::max(1.0, gw * 0.4)) << " " << f1(gy) << "H"
              << f1(gx + std::max(1.0, gw * 0.4)) << "\" stroke=\"" << kPalette[1 + g % 7]
              << "\" stroke-width=\"2\"><title>" << rt::html(ids[i] + ": group " + std::to_string(g) + " median ")
              << rt::html(rt::printf_num("%.4g", gmed) + " " + unit) << "</title></path>";
    }
    s.out() << "</g>\n";
  }
  s.row_labels(ids, slot);
  return s.finish();
}

// The pairs of one baseline in a comparison on a log axis over [lo, hi] widened to every value
// extent(pair) lists, their row ids under the chart.
struct PairAxis {
  std::vector<const PairChange*> pairs;
  Scale y;
  double slot = 0;
};
template <class Extent>
PairAxis pair_axis(Svg& s, const CompareResult& c, const std::string& baseline, double lo, double hi,
                   const std::string& label, Extent extent) {
  PairAxis a;
  std::vector<std::string> ids;
  for (const auto& p : c.pairs) {
    if (p.baseline != baseline) continue;
    a.pairs.push_back(&p);
    ids.push_back(p.id);
    for (double x : extent(p)) lo = std::min(lo, x), hi = std::max(hi, x);
  }
  a.y = scale_over(lo, hi, true, s.bottom(), s.top());
  s.y_axis(a.y, label);
  a.slot = double(s.right() - s.left()) / std::max<size_t>(1, a.pairs.size());
  s.row_labels(ids, a.slot);
  return a;
}

// A vertical whisker over [lo, hi] (pixels) at px.
void whisker(Svg& s, double px, double lo, double hi) {
  s.out() << "<path d=\"M" << f1(px) << " " << f1(lo) << "V" << f1(hi)
          << "\" stroke=\"#222222\" stroke-width=\"1.2\"/>";
}

// Per baseline of a comparison: each row's old and new ratio with its interval, side by side.
std::string compare_ratio_chart(const CompareResult& c, const std::string& baseline, int index) {
  Svg s(index, 20, "ratio vs " + arm_label(c, baseline) + " per row, old (left, purple) and new (right, blue)",
        "ratio = baseline median / candidate median, > 1 = candidate faster; whisker: each receipt's " +
            rt::shortest(c.level * 100) + "% CI");
  using Side = std::pair<std::optional<double>, std::optional<RatioInterval>>;
  auto sides = [](const PairChange& p) {
    return std::array<Side, 2>{Side{p.old_ratio, p.old_ci}, {p.new_ratio, p.new_ci}};
  };
  const PairAxis a = pair_axis(s, c, baseline, 1, 1, "ratio (log scale)", [&](const PairChange& p) {
    std::vector<double> xs;
    for (const auto& [r, ci] : sides(p)) {
      if (r) xs.push_back(*r);
      if (ci) xs.insert(xs.end(), {ci->lo, ci->hi});
    }
    return xs;
  });
  for (size_t i = 0; i < a.pairs.size(); ++i) {
    const PairChange& p = *a.pairs[i];
    s.out() << "<g class=\"pair\" data-row=\"" << rt::html(p.id) << "\">";
    const auto both = sides(p);
    for (size_t k = 0; k < both.size(); ++k) {
      const auto& [r, ci] = both[k];
      if (!r) continue;
      const double px = s.left() + (i + 0.3 + 0.4 * k) * a.slot;
      bar(s, px, std::max(2.0, a.slot * 0.3), a.y(1), a.y(*r), k ? kPalette[0] : kPalette[3],
          p.id + (k ? ": new ratio " : ": old ratio ") + rt::ratio3(*r) +
              (ci ? ", CI " + rt::interval3(ci->lo, ci->hi) : std::string()));
      if (ci) whisker(s, px, a.y(ci->lo), a.y(ci->hi));
    }
    s.out() << "</g>\n";
  }
  s.hline(a.y(1), "#000000", "1");
  return s.finish();
}

// Per baseline of a comparison: each row's change (new ratio / old ratio) with its interval,
// coloured by its class.
std::string change_chart(const CompareResult& c, const std::string& baseline, int index) {
  Svg s(index, 20,
        "change vs " + arm_label(c, baseline) + " per row: new ratio / old ratio, > 1 = the candidate gained",
        "bar from 1 to the change; whisker: its " + rt::shortest(c.level * 100) +
            "% interval (run noise included); green FASTER, red SLOWER, blue SAME, amber UNRESOLVED");
  const double m = 1 + c.rule.margin;
  const PairAxis a = pair_axis(s, c, baseline, 1 / m, m, "change (log scale)", [](const PairChange& p) {
    std::vector<double> xs;
    if (p.change) xs.push_back(*p.change);
    if (p.change_ci) xs.insert(xs.end(), {p.change_ci->lo, p.change_ci->hi});
    return xs;
  });
  for (size_t i = 0; i < a.pairs.size(); ++i) {
    const PairChange& p = *a.pairs[i];
    if (!p.change) continue;
    const double px = s.left() + (i + 0.5) * a.slot;
    const char* color = p.cls == ChangeClass::faster   ? "#2e7d32"
                        : p.cls == ChangeClass::slower ? "#c62828"
                        : p.cls == ChangeClass::same   ? "#1f77b4"
                                                       : "#f0a202";
    s.out() << "<g class=\"change\" data-row=\"" << rt::html(p.id) << "\" data-class=\"" << to_string(p.cls) << "\">";
    bar(s, px, std::max(2.0, a.slot * 0.6), a.y(1), a.y(*p.change), color,
        p.id + ": " + to_string(p.cls) + ", change " + rt::ratio3(*p.change) +
            (p.change_ci ? ", interval " + rt::interval3(p.change_ci->lo, p.change_ci->hi) : std::string()));
    if (p.change_ci) whisker(s, px, a.y(p.change_ci->lo), a.y(p.change_ci->hi));
    s.out() << "</g>\n";
  }
  s.hline(a.y(1), "#000000", "1");
  s.hline(a.y(m), "#888888", "+margin");
  s.hline(a.y(1 / m), "#888888", "-margin");
  return s.finish();
}

constexpr const char* kCss = R"(body{margin:0;font:14px/1.4 "DejaVu Sans",Verdana,sans-serif;color:#222;background:#fff}
header.top{box-sizing:border-box;padding:6px 16px;overflow:auto;border-bottom:1px solid #ddd}
header.top h2{margin:0 0 2px;font-size:17px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
header.top p{margin:1px 0;font-size:12px}
#charts svg{display:block;width:100%;height:auto;max-width:1600px}
svg .title{font-size:12px;font-weight:bold;fill:#222}
svg .tick{font-size:10px;fill:#444}
main{padding:0 16px 32px}
table{border-collapse:collapse;font-size:12px;margin:6px 0}
td,th{border:1px solid #ccc;padding:2px 6px;vertical-align:top}
th{background:#f0f2f5}
.num{text-align:right;font-variant-numeric:tabular-nums}
tbody:nth-of-type(even){background:#f7f8fa}
code{font-size:12px}
pre{background:#f6f8fa;padding:8px;overflow:auto;max-height:480px;font-size:12px}
)";

// The page: a header of kHtmlHeaderPx, the charts stacked (the layout the e2e test reads), the body.
std::string page(const std::string& title, const std::string& banner, const std::string& charts,
                 const std::string& body) {
  std::string o = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>";
  o += rt::html(title);
  o += "</title>\n<style>\n";
  o += kCss;
  o += "</style>\n</head>\n<body>\n<header class=\"top\" style=\"height:" + std::to_string(kHtmlHeaderPx) + "px\">\n";
  o += banner;
  o += "</header>\n<div id=\"charts\" data-top=\"" + std::to_string(kHtmlHeaderPx) + "\" data-chart-height=\"" +
       std::to_string(kHtmlChartPx) + "\" data-chart-width=\"" + std::to_string(kHtmlChartWidthPx) + "\">\n";
  o += charts;
  o += "</div>\n<main>\n";
  o += body;
  o += "</main>\n</body>\n</html>\n";
  return o;
}

}  // namespace

std::string report_html(const ReportView& v) {
  const ReportDocument d = report_document(v);
  std::string charts;
  int index = 0;
  for (const auto& b : v.baselines) charts += ratio_chart(v, b, index++);
  charts += time_chart(v, index++);
  // Then the samples behind every median: the candidate's, then each baseline's.
  const auto add = [&](const std::string& chart) {
    if (!chart.empty()) charts += chart, ++index;
  };
  add(percent_chart(v, index));
  add(distribution_chart(v, v.candidate, true, index));
  for (const auto& b : v.baselines) add(distribution_chart(v, b, false, index));
  return page("kgate report: " + v.candidate + " (" + v.table + ")", doc::render_html(d.banner), charts,
              doc::render_html(d.body()));
}

std::string compare_html(const CompareResult& c) {
  std::vector<doc::Block> d = compare_document(c);
  // The title and the derived-file line head the page; the rest follows the charts.
  const std::vector<doc::Block> banner(d.begin(), d.begin() + std::min<size_t>(2, d.size()));
  d.erase(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(banner.size()));
  std::string charts;
  int index = 0;
  for (const auto& b : c.new_side.baselines)
    if (std::any_of(c.pairs.begin(), c.pairs.end(), [&](const PairChange& p) { return p.baseline == b; })) {
      charts += change_chart(c, b, index++);
      charts += compare_ratio_chart(c, b, index++);
    }
  return page("kgate compare: " + c.new_side.candidate + " (" + c.new_side.table + ")", doc::render_html(banner),
              charts, doc::render_html(d));
}

}  // namespace kgate

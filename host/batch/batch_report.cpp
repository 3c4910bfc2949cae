// What a batch reports besides its table (batch.hpp: pareto_front, write_batch_report): the
// non-dominated designs of two objectives, a summary of every numeric column, and SVG plots.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "host/batch/batch_csv.hpp"
#include "host/batch/objective.hpp"
#include "host/io/atomic_file.hpp"
#include "host/io/svg_plot.hpp"
#include "softik/batch.hpp"
#include "softik/error.hpp"

namespace softik {

using batch_detail::csv_field;
using batch_detail::format_number;

namespace {

/// A finite number in a table field (summaries and plots skip the rest).
std::optional<double> number_of(const std::string& text) {
  const std::optional<double> v = batch_detail::parse_number(text);
  return v && std::isfinite(*v) ? v : std::nullopt;
}

/// `a` is better than `b` for the objective (ties: neither).
bool better(const BatchObjective& o, double a, double b) { return o.maximize ? a > b : a < b; }

std::string goal_text(const BatchObjective& o) { return (o.maximize ? "max " : "min ") + o.expression; }

/// summary.csv: the status counts, then min/mean/max of every numeric column over the ok designs.
std::string summary_table(const BatchSpec& spec, const BatchResult& result) {
  std::vector<std::string> columns;
  std::map<std::string, std::vector<double>> values;
  size_t ok = 0;
  for (size_t i = 0; i < result.designs.size() && i < spec.designs.size(); ++i) {
    const DesignResult& d = result.designs[i];
    if (!d.ok) continue;
    ++ok;
    for (const auto& [column, text] : design_row(spec.designs[i], d)) {
      const std::optional<double> v = number_of(text);
      if (!v) continue;
      auto& list = values[column];
      if (list.empty()) columns.push_back(column);
      list.push_back(*v);
    }
  }
  std::ostringstream out;
  out << "column,designs,min,mean,max\n";
  out << "status ok," << ok << ",,,\n";
  out << "status error," << result.designs.size() - ok << ",,,\n";
  out << "resumed from the table," << result.resumed << ",,,\n";
  for (const std::string& c : columns) {
    const std::vector<double>& v = values[c];
    double sum = 0;
    for (double x : v) sum += x;
    out << csv_field(c) << "," << v.size() << "," << format_number(*std::min_element(v.begin(), v.end())) << ","
        << format_number(sum / static_cast<double>(v.size())) << ","
        << format_number(*std::max_element(v.begin(), v.end())) << "\n";
  }
  return out.str();
}

/// objective.svg: the objective against each numeric override that varies, best designs apart.
std::string objective_plot(const BatchSpec& spec, const BatchResult& result) {
  const auto values = batch_detail::evaluate_designs(spec.objective.expression, spec, result);
  const BatchRanking ranking = rank_designs(spec, result);
  std::map<std::string, bool> best;
  for (const RankedDesign& d : ranking.best) best[d.name] = true;
  std::vector<std::string> parameters;  // override paths, first-seen order
  for (const BatchDesign& d : spec.designs)
    for (const auto& s : d.set)
      if (std::find(parameters.begin(), parameters.end(), s.first) == parameters.end()) parameters.push_back(s.first);
  std::vector<io_detail::PlotPanel> panels;
  const std::string y_label = goal_text(spec.objective);
  for (const std::string& p : parameters) {
    io_detail::PlotPanel panel{p,
                               p,
                               y_label,
                               {{"designs", "#1f77b4", 3, false, {}, {}, {}},
                                {"best " + std::to_string(ranking.best.size()), "#ff7f0e", 5, false, {}, {}, {}}}};
    double lo = 0, hi = 0;
    bool any = false;
    for (size_t i = 0; i < values.size(); ++i) {
      if (!values[i].ok) continue;
      std::optional<double> x;
      for (const auto& s : spec.designs[i].set)
        if (s.first == p) x = number_of(s.second);
      if (!x) continue;
      lo = any ? std::min(lo, *x) : *x;
      hi = any ? std::max(hi, *x) : *x;
      any = true;
      io_detail::PlotSeries& s = panel.series[best.count(result.designs[i].name) ? 1 : 0];
      s.x.push_back(*x);
      s.y.push_back(values[i].value);
      s.names.push_back(result.designs[i].name);
    }
    if (any && hi > lo && panels.size() < 12) panels.push_back(panel);
  }
  if (panels.empty()) {  // nothing numeric varies: the objective by design number
    io_detail::PlotPanel panel{
        y_label,
        "design number (the batch's order)",
        y_label,
        {{"designs", "#1f77b4", 3, false, {}, {}, {}}, {"best", "#ff7f0e", 5, false, {}, {}, {}}}};
    for (size_t i = 0; i < values.size(); ++i) {
      if (!values[i].ok) continue;
      io_detail::PlotSeries& s = panel.series[best.count(result.designs[i].name) ? 1 : 0];
      s.x.push_back(static_cast<double>(i));
      s.y.push_back(values[i].value);
      s.names.push_back(result.designs[i].name);
    }
    panels.push_back(panel);
  }
  return io_detail::svg_scatter(panels, panels.size() > 1 ? 2 : 1);
}

}  // namespace

BatchPareto pareto_front(const BatchSpec& spec, const BatchResult& result) {
  BatchPareto pareto;
  if (spec.pareto.size() != 2) return pareto;
  const BatchObjective& fx = spec.pareto[0];
  const BatchObjective& fy = spec.pareto[1];
  const auto xs = batch_detail::evaluate_designs(fx.expression, spec, result);
  const auto ys = batch_detail::evaluate_designs(fy.expression, spec, result);
  std::vector<ParetoPoint> points;
  for (size_t i = 0; i < xs.size(); ++i) {
    if (!xs[i].ok || !ys[i].ok) {
      pareto.unranked.emplace_back(result.designs[i].name, !xs[i].ok ? xs[i].why : ys[i].why);
      continue;
    }
    points.push_back({result.designs[i].name, xs[i].value, ys[i].value});
  }
  // Best x first (ties: best y first); a point is on the front when no earlier point has a y at
  // least as good, unless that point equals it (equal points do not dominate each other).
  std::stable_sort(points.begin(), points.end(), [&](const ParetoPoint& a, const ParetoPoint& b) {
    return better(fx, a.x, b.x) || (a.x == b.x && better(fy, a.y, b.y));
  });
  for (const ParetoPoint& p : points) {
    const bool first = pareto.front.empty();
    const ParetoPoint* last = first ? nullptr : &pareto.front.back();
    if (first || better(fy, p.y, last->y) || (p.x == last->x && p.y == last->y))
      pareto.front.push_back(p);
    else
      pareto.dominated.push_back(p);
  }
  return pareto;
}

std::vector<std::string> write_batch_report(const BatchSpec& spec, const BatchResult& result, const std::string& stem) {
  std::vector<std::string> written;
  auto write = [&](const std::string& kind, const std::string& text) {
    detail::write_atomically(stem + "." + kind, text);
    written.push_back(stem + "." + kind);
  };
  write("summary.csv", summary_table(spec, result));
  if (!spec.objective.expression.empty()) write("objective.svg", objective_plot(spec, result));
  if (spec.pareto.size() == 2) {
    const BatchPareto pareto = pareto_front(spec, result);
    const std::string x = goal_text(spec.pareto[0]), y = goal_text(spec.pareto[1]);
    io_detail::PlotPanel panel{"Pareto front (" + std::to_string(pareto.front.size()) + " designs)", x, y, {}};
    io_detail::PlotSeries others{"dominated", "#9a9a9a", 3, false, {}, {}, {}};
    io_detail::PlotSeries front{"Pareto front", "#d62728", 4.5, true, {}, {}, {}};
    for (const ParetoPoint& p : pareto.dominated) {
      others.x.push_back(p.x);
      others.y.push_back(p.y);
      others.names.push_back(p.name);
    }
    std::ostringstream table;
    table << "design," << csv_field(spec.pareto[0].expression) << "," << csv_field(spec.pareto[1].expression) << "\n";
    for (const ParetoPoint& p : pareto.front) {
      front.x.push_back(p.x);
      front.y.push_back(p.y);
      front.names.push_back(p.name);
      table << csv_field(p.name) << "," << format_number(p.x) << "," << format_number(p.y) << "\n";
    }
    panel.series = {others, front};
    write("pareto.svg", io_detail::svg_scatter({panel}, 1, 560, 420));
    write("pareto.csv", table.str());
  }
  return written;
}

}  // namespace softik

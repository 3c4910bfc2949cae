// What a batch reports besides its table (batch.hpp: pareto_front, write_batch_report,
// read_batch_table; host/io/svg_plot.hpp): the Pareto front against a brute-force check, the
// designs left out of it, axis ticks, SVG scatter plots, the summary/plot files and the CLI.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "host/io/svg_plot.hpp"
#include "softik/batch.hpp"
#include "softik/error.hpp"
#include "tests/batch_test_support.hpp"

namespace softik {
namespace {

using io_detail::nice_ticks;
using io_detail::PlotPanel;
using io_detail::PlotSeries;
using io_detail::svg_scatter;

struct Pt {
  std::string name;
  double a = 0, b = 0;
};

std::string fmt(const char* format, double v) {
  char text[64];
  std::snprintf(text, sizeof text, format, v);
  return text;
}
std::string exact(double v) { return fmt("%.17g", v); }

/// Designs with overrides {a, b} whose result rows hold the same values (no scene runs).
struct HandBatch {
  BatchSpec spec;
  BatchResult result;
};
HandBatch hand_batch(const std::vector<Pt>& pts) {
  HandBatch h;
  for (const Pt& p : pts) {
    h.spec.designs.push_back({p.name, {{"a", exact(p.a)}, {"b", exact(p.b)}}});
    DesignResult d;
    d.name = p.name;
    d.ok = true;
    d.row = {{"a", exact(p.a)}, {"b", exact(p.b)}};
    h.result.designs.push_back(d);
  }
  return h;
}

BatchObjective goal(const std::string& expression, bool maximize) { return {expression, maximize, 5}; }

bool better(bool maximize, double u, double v) { return maximize ? u > v : u < v; }

/// 200 points on a 0.25 grid (many equal x, equal y), with copies of both ends of every goal
/// pair's front and of random points (exact duplicates, on and off the front).
std::vector<Pt> tied_points() {
  std::mt19937 rng(20240611);
  std::uniform_int_distribution<int> q(0, 40);
  std::vector<Pt> pts;
  for (int i = 0; i < 170; ++i) pts.push_back({"", q(rng) * 0.25, q(rng) * 0.25});
  const std::vector<Pt> base = pts;
  for (bool mx : {true, false})
    for (bool my : {true, false}) {
      const auto x_first = [&](const Pt& p) { return std::make_pair(mx ? p.a : -p.a, my ? p.b : -p.b); };
      const auto y_first = [&](const Pt& p) { return std::make_pair(my ? p.b : -p.b, mx ? p.a : -p.a); };
      const auto best_by = [&](auto key) {
        return *std::max_element(base.begin(), base.end(), [&](const Pt& l, const Pt& r) { return key(l) < key(r); });
      };
      pts.push_back(best_by(x_first));
      pts.push_back(best_by(y_first));
    }
  std::uniform_int_distribution<size_t> pick(0, base.size() - 1);
  while (pts.size() < 200) pts.push_back(base[pick(rng)]);
  for (size_t i = 0; i < pts.size(); ++i) pts[i].name = "d" + std::to_string(i);
  return pts;
}

TEST(BatchReport, ParetoFrontIsTheSetOfNonDominatedDesigns) {
  const std::vector<Pt> pts = tied_points();
  HandBatch h = hand_batch(pts);
  std::map<std::string, Pt> by_name;
  std::vector<std::string> all;
  for (const Pt& p : pts) {
    by_name[p.name] = p;
    all.push_back(p.name);
  }
  std::sort(all.begin(), all.end());
  for (bool mx : {true, false})
    for (bool my : {true, false}) {
      SCOPED_TRACE(std::string(mx ? "max a, " : "min a, ") + (my ? "max b" : "min b"));
      h.spec.pareto = {goal("a", mx), goal("b", my)};
      const BatchPareto p = pareto_front(h.spec, h.result);
      const auto at_least = [](bool m, double u, double v) { return u == v || better(m, u, v); };
      std::set<std::string> expected;
      for (const Pt& q : pts) {
        bool dominated = false;
        for (const Pt& o : pts)
          if (at_least(mx, o.a, q.a) && at_least(my, o.b, q.b) && (better(mx, o.a, q.a) || better(my, o.b, q.b)))
            dominated = true;
        if (!dominated) expected.insert(q.name);
      }
      std::set<std::string> front;
      for (const ParetoPoint& f : p.front) front.insert(f.name);
      EXPECT_EQ(front, expected);
      EXPECT_EQ(front.size(), p.front.size()) << "a design twice on the front";
      EXPECT_TRUE(p.unranked.empty());
      std::vector<std::string> names;
      for (const auto* list : {&p.front, &p.dominated})
        for (const ParetoPoint& f : *list) {
          names.push_back(f.name);
          EXPECT_EQ(f.x, by_name[f.name].a) << f.name;
          EXPECT_EQ(f.y, by_name[f.name].b) << f.name;
        }
      std::sort(names.begin(), names.end());
      EXPECT_EQ(names, all) << "front + dominated + unranked are the designs, each once";
      size_t equal_neighbours = 0;
      for (size_t k = 1; k < p.front.size(); ++k) {
        const ParetoPoint &u = p.front[k - 1], &v = p.front[k];
        const bool same = u.x == v.x && u.y == v.y;
        equal_neighbours += same ? 1 : 0;
        EXPECT_TRUE(same || (better(mx, u.x, v.x) && better(my, v.y, u.y)))
            << u.name << " (" << u.x << ", " << u.y << ") before " << v.name << " (" << v.x << ", " << v.y << ")";
      }
      EXPECT_GT(equal_neighbours, 0u) << "the data puts exact duplicates on the front";
    }
}

TEST(BatchReport, FailedMissingAndNonFiniteDesignsAreUnranked) {
  HandBatch h = hand_batch({{"good1", 1, 2},
                            {"good2", 3, 1},
                            {"failed", 5, 5},
                            {"no_b", 1, 1},
                            {"zero_b", 1, 0},
                            {"zero_zero", 0, 0},
                            {"text_b", 1, 1}});
  h.result.designs[2].ok = false;
  h.result.designs[2].error = "boom";
  h.result.designs[3].row = {{"a", "1"}};
  h.result.designs[6].row = {{"a", "1"}, {"b", "n/a"}};
  h.spec.pareto = {goal("a / b", true), goal("a", false)};
  const BatchPareto p = pareto_front(h.spec, h.result);
  ASSERT_EQ(p.front.size(), 2u);
  EXPECT_EQ(p.front[0].name, "good2");  // a/b = 3 (best x first), then 0.5
  EXPECT_EQ(p.front[1].name, "good1");
  EXPECT_EQ(p.front[1].x, 0.5);
  EXPECT_TRUE(p.dominated.empty());
  const std::vector<std::pair<std::string, std::string>> unranked = {{"failed", "failed"},
                                                                     {"no_b", "no number in column 'b'"},
                                                                     {"zero_b", "'a / b' is not finite"},
                                                                     {"zero_zero", "'a / b' is not finite"},
                                                                     {"text_b", "no number in column 'b'"}};
  EXPECT_EQ(p.unranked, unranked);
  h.spec.pareto = {goal("a", true), goal("a / b", true)};  // the second objective's reason
  const BatchPareto q = pareto_front(h.spec, h.result);
  EXPECT_EQ(q.unranked, unranked);
  for (const ParetoPoint& f : q.front) EXPECT_TRUE(f.name == "good1" || f.name == "good2") << f.name;
}

TEST(BatchReport, TicksAreRoundAndInsideTheRange) {
  const std::vector<std::pair<double, double>> ranges = {{0, 1},     {0.0043, 0.0077}, {-3e4, 2e5},   {1e-9, 3e-9},
                                                         {-1, -0.2}, {7, 7.0001},      {12345, 98765}};
  for (const auto& [lo, hi] : ranges) {
    const std::vector<double> t = nice_ticks(lo, hi);
    SCOPED_TRACE("[" + exact(lo) + ", " + exact(hi) + "]: " + std::to_string(t.size()) + " ticks");
    ASSERT_GE(t.size(), 2u);
    EXPECT_LE(t.size(), 11u);
    // The step, 1, 2 or 5 times a power of ten (measured between the first two ticks).
    const double measured = t[1] - t[0];
    ASSERT_GT(measured, 0);
    const double power = std::pow(10.0, std::floor(std::log10(measured) + 1e-9));
    const double mantissa = std::round(measured / power), step = mantissa * power;
    EXPECT_TRUE(mantissa == 1 || mantissa == 2 || mantissa == 5) << "step " << measured;
    EXPECT_NEAR(measured / power, mantissa, 1e-6);
    for (size_t k = 0; k < t.size(); ++k) {
      const double slack = 1e-9 * step + 4e-16 * std::abs(t[k]);  // round-off of k * step
      EXPECT_GE(t[k], lo - slack) << k;
      EXPECT_LE(t[k], hi + slack) << k;
      EXPECT_NEAR(t[k], std::round(t[k] / step) * step, slack) << "tick " << t[k] << " is not a multiple of " << step;
    }
    for (size_t k = 1; k < t.size(); ++k) EXPECT_NEAR(t[k] - t[k - 1], step, 1e-6 * step) << k;
    EXPECT_LT(t.front() - step, lo) << "the first multiple of the step >= lo";
    EXPECT_GT(t.back() + step, hi) << "the last multiple of the step <= hi";
  }
  EXPECT_EQ(nice_ticks(0, 1, 10).size(), 11u);  // step 0.1
  for (const auto& [lo, hi] :
       std::vector<std::pair<double, double>>{{2, 2}, {3, 1}, {std::nan(""), 1}, {0, std::nan("")}, {0, INFINITY}})
    EXPECT_TRUE(nice_ticks(lo, hi).empty()) << lo << " " << hi;
}

/// The opening tag of the circle(s) whose tooltip is `name`'s.
std::vector<std::string> circles_of(const std::string& svg, const std::string& name) {
  std::vector<std::string> tags;
  const std::string title = "<title>" + name + ":";
  for (size_t at = svg.find(title); at != std::string::npos; at = svg.find(title, at + 1)) {
    const size_t start = svg.rfind("<circle", at);
    tags.push_back(start == std::string::npos ? "" : svg.substr(start, at - start));
  }
  return tags;
}
double attribute(const std::string& tag, const std::string& key) {
  const size_t at = tag.find(" " + key + "=\"");
  return at == std::string::npos ? std::nan("") : std::stod(tag.substr(at + key.size() + 3));
}
size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(BatchReport, SvgScatterDrawsEscapedTooltipsWhereThePointsAre) {
  PlotSeries points{"designs <all>",
                    "#1f77b4",
                    3,
                    false,
                    {0.5, -5, 10, 1, 2, std::nan(""), INFINITY},
                    {0, 1, 2, 100, -100, 3, 4},
                    {"a<b&c", "left", "right", "top", "bottom", "nan_point", "inf_point"}};
  PlotSeries front{"front", "#d62728", 4.5, true, {1, 2, 3}, {3, 2, 1}, {"f1", "f2", "f3"}};
  const std::string svg = svg_scatter({PlotPanel{"T&T", "x<1", "y>2", {points, front}}}, 1);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u) << svg.substr(0, 40);
  EXPECT_EQ(svg.substr(std::max<size_t>(svg.size(), 7) - 7), "</svg>\n");
  EXPECT_EQ(count(svg, "<title>"), 8u) << "one tooltip per finite point";
  EXPECT_EQ(count(svg, "<circle"), 8u + 2u) << "the points and one legend mark per series";
  EXPECT_EQ(svg.find("nan_point"), std::string::npos);
  EXPECT_EQ(svg.find("inf_point"), std::string::npos);
  EXPECT_EQ(circles_of(svg, "a&lt;b&amp;c").size(), 1u);
  EXPECT_EQ(svg.find("a<b"), std::string::npos) << "raw name in the SVG";
  for (const std::string escaped : {"T&amp;T", "x&lt;1", "y&gt;2", "designs &lt;all&gt;"})
    EXPECT_NE(svg.find(escaped), std::string::npos) << escaped;
  for (const std::string raw : {"T&T", "x<1", "y>2", "<all>"}) EXPECT_EQ(svg.find(raw), std::string::npos) << raw;
  const auto one = [&](const std::string& name) {
    const std::vector<std::string> c = circles_of(svg, name);
    EXPECT_EQ(c.size(), 1u) << name;
    return c.empty() ? std::string() : c[0];
  };
  EXPECT_GT(attribute(one("right"), "cx"), attribute(one("left"), "cx")) << "larger x to the right";
  EXPECT_LT(attribute(one("top"), "cy"), attribute(one("bottom"), "cy")) << "larger y higher";
  EXPECT_LT(attribute(one("f1"), "cx"), attribute(one("f3"), "cx"));
  EXPECT_LT(attribute(one("f1"), "cy"), attribute(one("f3"), "cy"));
  EXPECT_EQ(count(svg, "<polyline"), 1u) << "the joined series";
  front.joined = false;
  EXPECT_EQ(count(svg_scatter({PlotPanel{"t", "x", "y", {points, front}}}), "<polyline"), 0u);
}

TEST(BatchReport, ReportFilesSummariseRankAndListTheFront) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-2, 3);
  std::vector<Pt> pts;
  for (int i = 0; i < 30; ++i) pts.push_back({"d" + std::to_string(i), u(rng), u(rng) * 1e4});
  std::vector<Pt> with_broken = pts;
  with_broken.push_back({"broken", 1, 2});
  HandBatch h = hand_batch(with_broken);
  h.result.designs.back().ok = false;  // failed: counted as an error, in no statistic or plot
  h.spec.objective = goal("a + b", true);
  h.spec.objective.best = 2;
  h.spec.pareto = {goal("a", true), goal("b", true)};
  const fs::path dir = fresh_dir("batch_report_files");
  const std::string stem = (dir / "B").string();
  const std::vector<std::string> written = write_batch_report(h.spec, h.result, stem);
  const std::vector<std::string> expected_files = {stem + ".summary.csv", stem + ".objective.svg", stem + ".pareto.svg",
                                                   stem + ".pareto.csv"};
  EXPECT_EQ(written, expected_files);
  for (const std::string& f : expected_files) ASSERT_TRUE(fs::exists(f)) << f;

  const std::string summary = read_file(stem + ".summary.csv");
  EXPECT_EQ(summary.rfind("column,designs,min,mean,max\n", 0), 0u) << summary;
  EXPECT_NE(summary.find("\nstatus ok,30,,,\n"), std::string::npos) << summary;
  EXPECT_NE(summary.find("\nstatus error,1,,,\n"), std::string::npos) << summary;
  double lo = pts[0].a, hi = pts[0].a, sum = 0;
  for (const Pt& p : pts) lo = std::min(lo, p.a), hi = std::max(hi, p.a), sum += p.a;
  const std::string a_line =  // 10 significant digits
      "\na,30," + fmt("%.10g", lo) + "," + fmt("%.10g", sum / 30) + "," + fmt("%.10g", hi) + "\n";
  EXPECT_NE(summary.find(a_line), std::string::npos) << "expected" << a_line << "in\n" << summary;
  EXPECT_NE(summary.find("\nb,30,"), std::string::npos) << summary;

  // objective.svg: both best designs by a + b are drawn in the colour of the "best 2" legend entry.
  std::vector<std::pair<double, std::string>> by_value;
  for (const Pt& p : pts) by_value.push_back({p.a + p.b, p.name});
  std::sort(by_value.rbegin(), by_value.rend());
  const std::string objective = read_file(stem + ".objective.svg");
  const size_t legend = objective.find(">best 2</text>");
  ASSERT_NE(legend, std::string::npos) << "no 'best 2' legend entry";
  const size_t fill = objective.rfind("fill=\"", legend);
  ASSERT_NE(fill, std::string::npos);
  const std::string best_fill = objective.substr(fill, objective.find('"', fill + 6) + 1 - fill);
  EXPECT_EQ(objective.find("broken"), std::string::npos) << "a failed design is not plotted";
  for (size_t k = 0; k < 5; ++k) {
    const std::vector<std::string> circles = circles_of(objective, by_value[k].second);
    EXPECT_EQ(circles.size(), 2u) << by_value[k].second << ": one point per varying override (a, b)";
    for (const std::string& c : circles)
      EXPECT_EQ(c.find(best_fill) != std::string::npos, k < 2) << by_value[k].second << ": " << c;
  }

  // pareto.csv and .svg: the front in order, every rankable design plotted.
  const BatchPareto pareto = pareto_front(h.spec, h.result);
  ASSERT_GE(pareto.front.size(), 2u);
  const auto rows = read_csv(stem + ".pareto.csv");
  ASSERT_EQ(rows.size(), pareto.front.size() + 1);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"design", "a", "b"}));
  for (size_t k = 0; k < pareto.front.size(); ++k) {
    ASSERT_EQ(rows[k + 1].size(), 3u);
    EXPECT_EQ(rows[k + 1][0], pareto.front[k].name);
    EXPECT_NEAR(std::stod(rows[k + 1][1]), pareto.front[k].x, 1e-9 * std::abs(pareto.front[k].x));
    EXPECT_NEAR(std::stod(rows[k + 1][2]), pareto.front[k].y, 1e-9 * std::abs(pareto.front[k].y));
  }
  const std::string pareto_svg = read_file(stem + ".pareto.svg");
  EXPECT_EQ(count(pareto_svg, "<title>"), 30u);
  EXPECT_EQ(count(pareto_svg, "<polyline"), 1u);

  // Without objective and pareto: the summary only.
  h.spec.objective = BatchObjective{};
  h.spec.pareto.clear();
  const std::string plain = (dir / "plain").string();
  EXPECT_EQ(write_batch_report(h.spec, h.result, plain), std::vector<std::string>{plain + ".summary.csv"});
  for (const std::string kind : {".objective.svg", ".pareto.svg", ".pareto.csv"})
    EXPECT_FALSE(fs::exists(plain + kind)) << kind;
}

TEST(BatchReport, ReadBatchTableGivesBackTheRowsOfTheRun) {
  const fs::path dir = batch_dir("batch_report_table");
  write_file(dir / "b.yaml",
             "scene: block.yaml\nworkers: 2\nsweep: {loads.pressure.value: [2000, 4000, 6000]}\n"
             "pareto: [{expression: uz_tip, goal: max}, {expression: pressure_cavity, goal: min}]\n");
  const BatchSpec spec = parse_batch((dir / "b.yaml").string());
  BatchRunOptions options;
  options.out_dir = (dir / "out").string();
  options.csv_path = (dir / "b.csv").string();
  const BatchResult result = run_batch(spec, options);
  const BatchResult table = read_batch_table(spec, options.csv_path);
  ASSERT_EQ(table.designs.size(), 3u);
  for (size_t k = 0; k < 3; ++k) {
    ASSERT_TRUE(result.designs[k].ok) << result.designs[k].error;
    EXPECT_EQ(table.designs[k].name, spec.designs[k].name);
    EXPECT_TRUE(table.designs[k].ok);
    const auto run_row = design_row(spec.designs[k], result.designs[k]);
    using Row = std::map<std::string, std::string>;
    EXPECT_EQ(Row(table.designs[k].row.begin(), table.designs[k].row.end()), Row(run_row.begin(), run_row.end()));
  }
  std::vector<std::string> from_run, from_table;
  for (const ParetoPoint& p : pareto_front(spec, result).front) from_run.push_back(p.name);
  for (const ParetoPoint& p : pareto_front(spec, table).front) from_table.push_back(p.name);
  EXPECT_EQ(from_run, from_table);
  EXPECT_FALSE(from_run.empty());
  ErrorKind kind = ErrorKind::Internal;
  try {
    (void)read_batch_table(spec, (dir / "no_such_table.csv").string());
  } catch (const Error& e) {
    kind = e.kind();
  }
  EXPECT_EQ(kind, ErrorKind::Io);
}

TEST(BatchReport, BadParetoIsAnErrorAtItsLine) {
  const fs::path dir = batch_dir("batch_report_bad_pareto");
  const std::string head = "scene: block.yaml\nworkers: 1\nsweep: {loads.pressure.value: [2000, 4000]}\n";
  const std::string max_uz = "{expression: uz_tip, goal: max}";
  for (const auto& [pareto, token, message] : std::vector<std::array<std::string, 3>>{
           {"pareto: [" + max_uz + "]", "[",
            "pareto: expected two objectives, [{expression, goal}, {expression, goal}], got 1"},
           {"pareto: [" + max_uz + ", " + max_uz + ", " + max_uz + "]", "[", "got 3"},
           {"pareto:\n  - " + max_uz + "\n  - {expression: 'uz_tip *', goal: min}", "'uz_tip *'",
            "pareto[1].expression: objective 'uz_tip *': expected"},
           {"pareto:\n  - " + max_uz + "\n  - {expression: uz_tip, goal: biggest}", "biggest", "biggest"}}) {
    const std::string text = head + pareto + "\n";
    write_file(dir / "b.yaml", text);
    const std::string error = batch_error_of([&] { (void)parse_batch((dir / "b.yaml").string()); });
    const std::string where = position_of(text.substr(head.size()), token);
    const std::string line = std::to_string(3 + std::stoi(where.substr(0, where.find(':'))));
    EXPECT_NE(error.find(message), std::string::npos) << pareto << " -> " << error;
    EXPECT_NE(error.find((dir / "b.yaml").string() + ":" + line + ":"), std::string::npos)
        << pareto << ": expected line " << line << " in " << error;
  }
}

#ifdef SOFTIK_CLI_PATH
TEST(BatchReport, CommandLinePrintsTheFrontAndWritesTheReport) {
  const fs::path dir = batch_dir("batch_report_cli");
  write_file(dir / "B.yaml",
             "scene: block.yaml\nworkers: 2\nsweep: {loads.pressure.value: [2000, 4000, 6000]}\n"
             "objective: {expression: uz_tip / pressure_cavity, goal: max, best: 2}\n"
             "pareto: [{expression: uz_tip, goal: max}, {expression: pressure_cavity, goal: min}]\n");
  const fs::path out = dir / "out", so = dir / "stdout.txt", se = dir / "stderr.txt";
  ASSERT_EQ(run_cli("batch " + (dir / "B.yaml").string() + " --out " + out.string() + " --quiet", se, so), 0)
      << read_file(se);
  const std::string printed = read_file(so);
  const size_t front = printed.find("\nPareto front of max uz_tip and min pressure_cavity: ");
  ASSERT_NE(front, std::string::npos) << printed;
  const size_t report = printed.find("\nreport:");
  ASSERT_NE(report, std::string::npos) << printed;
  const std::string report_line = printed.substr(report + 1, printed.find('\n', report + 1) - report - 1);
  for (const std::string kind : {"summary.csv", "objective.svg", "pareto.svg", "pareto.csv"}) {
    const std::string file = (out / ("B." + kind)).string();
    EXPECT_TRUE(fs::exists(file)) << file;
    EXPECT_NE(report_line.find(" " + file), std::string::npos) << report_line;
  }
  const auto rows = read_csv(out / "B.pareto.csv");
  ASSERT_GE(rows.size(), 2u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"design", "uz_tip", "pressure_cavity"}));
  EXPECT_NE(printed.substr(front, printed.find('\n', front + 1) - front).find(" " + rows[1][0]), std::string::npos)
      << "the front's first design is printed";
}
#endif

}  // namespace
}  // namespace softik

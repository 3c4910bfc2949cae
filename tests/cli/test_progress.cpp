// Progress of long runs (progress.hpp): the callback of run_scene sees k = 1..N for the load
// steps of a static scene (N growing when Newton cuts a step), the time steps of a dynamic one and
// the steps or goals of an inverse one; run_batch's sees k = designs finished, one call at a time;
// a throwing callback stops the run; the CLI draws the events on stderr (--progress) as throttled
// plain lines or a bar rewritten in place, and leaves stdout as it was.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "host/cli/progress_display.hpp"
#include "softik/batch.hpp"
#include "softik/progress.hpp"
#include "softik/scene.hpp"
#include "tests/scene_test_support.hpp"

namespace softik {
namespace {

/// kBlock with its cavity inflated to 6 kPa in `steps` load steps.
std::string static_scene(int steps) {
  return kBlock + "loads: {pressure: {name: cavity, surface: cavity0, value: 6000}}\nsolver: {load_steps: " +
         std::to_string(steps) + "}\noutputs: {vtu: false}\n";
}

/// Runs `yaml` with a callback that records every event.
std::vector<ProgressEvent> events_of(const std::string& yaml, const std::string& name,
                                     SceneRunResult* result = nullptr) {
  std::vector<ProgressEvent> events;
  SceneRunOptions options;
  options.out_dir = fresh_dir("progress_" + name).string();
  options.on_progress = [&](const ProgressEvent& e) { events.push_back(e); };
  const SceneRunResult r = run_scene(parse_scene_string(yaml, name + ".yaml"), options);
  if (result) *result = r;
  return events;
}

/// k = 1, 2, ..., N one event each, the last one flagged and with k == N; elapsed >= 0 and never
/// decreasing; the ETA known (>= 0) and 0 at the end; N never decreasing.
void expect_counts_to_the_end(const std::vector<ProgressEvent>& events, const std::string& what) {
  ASSERT_FALSE(events.empty()) << what;
  for (size_t i = 0; i < events.size(); ++i) {
    const ProgressEvent& e = events[i];
    EXPECT_EQ(e.what, what);
    EXPECT_EQ(e.k, static_cast<int>(i) + 1) << what << " event " << i;
    EXPECT_GE(e.total, e.k) << what << " event " << i;
    EXPECT_GE(e.elapsed, 0);
    EXPECT_GE(e.eta, 0) << what << " event " << i;
    EXPECT_EQ(e.last, i + 1 == events.size()) << what << " event " << i;
    if (i > 0) {
      EXPECT_GE(e.elapsed, events[i - 1].elapsed);
      EXPECT_GE(e.total, events[i - 1].total);
    }
  }
  EXPECT_EQ(events.back().k, events.back().total);
  EXPECT_EQ(events.back().eta, 0);
}

TEST(Progress, EtaIsTheMeanRateTimesTheItemsLeft) {
  EXPECT_DOUBLE_EQ(progress_eta(1, 4, 2.0), 6.0);
  EXPECT_DOUBLE_EQ(progress_eta(3, 4, 6.0), 2.0);
  EXPECT_EQ(progress_eta(4, 4, 6.0), 0);
  EXPECT_LT(progress_eta(0, 4, 1.0), 0);  // nothing done: unknown
  const ProgressEvent e = make_progress_event("time step", 2, 8, 1.0, "t = 0.2");
  EXPECT_EQ(e.what, "time step");
  EXPECT_DOUBLE_EQ(e.eta, 3.0);
  EXPECT_EQ(e.label, "t = 0.2");
  EXPECT_FALSE(e.last);
  EXPECT_TRUE(make_progress_event("design", 8, 8, 1.0).last);
}

TEST(Progress, StaticSceneReportsEveryLoadStep) {
  SceneRunResult r;
  const std::vector<ProgressEvent> events = events_of(static_scene(4), "static", &r);
  ASSERT_EQ(events.size(), 4u);
  expect_counts_to_the_end(events, "load step");
  for (const ProgressEvent& e : events) EXPECT_EQ(e.total, 4);  // no step was cut
  EXPECT_EQ(r.load_steps, 4);
  EXPECT_NE(events[1].label.find("load factor 0.5, "), std::string::npos) << events[1].label;
  EXPECT_NE(events[1].label.find("Newton iterations"), std::string::npos) << events[1].label;
}

TEST(Progress, AStaticStepCutRaisesTheTotal) {
  // One load step of 20 kPa with at most 5 Newton iterations does not converge: the step is cut
  // until it does, and the remaining increments (of the cut size) raise N.
  SceneRunResult r;
  const std::string yaml = kBlock +
                           "loads: {pressure: {surface: cavity0, value: 20000}}\n"
                           "solver: {load_steps: 1, max_iterations: 5}\noutputs: {vtu: false}\n";
  const std::vector<ProgressEvent> events = events_of(yaml, "cut", &r);
  ASSERT_GT(r.step_cuts, 0) << "the scene no longer needs a step cut; raise the pressure";
  expect_counts_to_the_end(events, "load step");
  EXPECT_EQ(events.back().total, r.load_steps);
  EXPECT_GT(events.front().total, 1);
}

TEST(Progress, DynamicSceneReportsEveryTimeStep) {
  const std::string yaml =
      R"(mesh: {generator: {type: box, size: [0.05, 0.05, 0.05], cells: [2, 2, 2], cell_type: hex8}}
formulation: linear
materials: {law: linear, young: 1.0e5, poisson: 0.3}
fixed: [{group: zmin}]
loads:
  gravity: {density: 1000}
dynamics: {dt: 0.01, duration: 0.07}
outputs: {vtu: false, every: 3}
)";
  const std::vector<ProgressEvent> events = events_of(yaml, "dynamic");
  ASSERT_EQ(events.size(), 7u);  // every step, not only the outputs' every 3
  expect_counts_to_the_end(events, "time step");
  for (const ProgressEvent& e : events) EXPECT_EQ(e.total, 7);
  EXPECT_EQ(events[2].label.rfind("t = 0.03, ", 0), 0u) << events[2].label;
}

std::string inverse_scene(const std::string& mode) {
  return kBlock + "outputs: {vtu: false}\ninverse:\n  mode: " + mode +
         (mode == "realtime" ? "\n  steps_per_target: 3" : "") + R"(
  actuators: [{type: pressure, name: cav, surface: cavity0, min_pressure: 0, max_pressure: 6000}]
  effectors:
    - {type: position, name: tip, point: [0.03, 0.006, 0.006], axes: [x], waypoints: [[0.0301, 0.006, 0.006], [0.0302, 0.006, 0.006]]}
)";
}

TEST(Progress, InverseSceneReportsStepsOrGoals) {
  const std::vector<ProgressEvent> steps = events_of(inverse_scene("realtime"), "inverse_rt");
  ASSERT_EQ(steps.size(), 6u);  // 2 goals x 3 steps
  expect_counts_to_the_end(steps, "inverse step");
  EXPECT_EQ(steps[2].label, "goal 1/2");
  EXPECT_EQ(steps[3].label, "goal 2/2");
  const std::vector<ProgressEvent> goals = events_of(inverse_scene("converged"), "inverse_conv");
  ASSERT_EQ(goals.size(), 2u);
  expect_counts_to_the_end(goals, "goal");
  EXPECT_EQ(goals[1].label.rfind("goal 2/2, ", 0), 0u) << goals[1].label;
}

TEST(Progress, AThrowingCallbackStopsTheRun) {
  SceneRunOptions options;
  const fs::path out = fresh_dir("progress_throw");
  options.out_dir = out.string();
  options.on_progress = [](const ProgressEvent& e) {
    if (e.k == 2) throw std::runtime_error("stop here");
  };
  EXPECT_THROW(run_scene(parse_scene_string(static_scene(4), "stop.yaml"), options), std::runtime_error);
  EXPECT_EQ(read_csv(out / "stop.csv").size(), 4u);  // header, rest state, steps 1 and 2
}

BatchSpec four_designs(const fs::path& dir) {
  write_file(dir / "block.yaml", static_scene(2));
  write_file(dir / "sweep.yaml", "scene: block.yaml\nsweep: {loads.pressure.value: [1000, 2000, 3000, 4000]}\n");
  return parse_batch((dir / "sweep.yaml").string());
}

/// A batch run into dir/out on `workers` workers.
BatchRunOptions out_options(const fs::path& dir, int workers) {
  BatchRunOptions options;
  options.out_dir = (dir / "out").string();
  options.workers = workers;
  return options;
}

TEST(Progress, BatchCountsFinishedDesignsOneCallAtATime) {
  const fs::path dir = fresh_dir("progress_batch");
  const BatchSpec spec = four_designs(dir);
  BatchRunOptions options = out_options(dir, 2);
  std::vector<ProgressEvent> events;
  std::atomic<int> inside{0};
  int overlaps = 0;
  options.on_progress = [&](const ProgressEvent& e) {
    if (inside.fetch_add(1) != 0) ++overlaps;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a second worker would get in now
    events.push_back(e);
    inside.fetch_sub(1);
  };
  const BatchResult result = run_batch(spec, options);
  EXPECT_EQ(overlaps, 0);
  ASSERT_EQ(events.size(), 4u);
  expect_counts_to_the_end(events, "design");
  std::set<std::string> labels;
  for (const ProgressEvent& e : events) {
    EXPECT_EQ(e.total, 4);
    labels.insert(e.label);
  }
  for (const DesignResult& d : result.designs) {
    EXPECT_TRUE(d.ok) << d.error;
    EXPECT_EQ(labels.count(d.name + ": ok"), 1u) << d.name;
  }
}

TEST(Progress, AThrowingBatchCallbackStartsNoFurtherDesign) {
  const fs::path dir = fresh_dir("progress_batch_throw");
  const BatchSpec spec = four_designs(dir);
  BatchRunOptions options = out_options(dir, 1);
  int calls = 0;
  options.on_progress = [&](const ProgressEvent&) {
    ++calls;
    throw std::runtime_error("cancel");
  };
  EXPECT_THROW(run_batch(spec, options), std::runtime_error);
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(fs::exists(dir / "out" / "sweep0" / "block.csv"));
  EXPECT_FALSE(fs::exists(dir / "out" / "sweep1"));
}

ProgressEvent event(int k, int total, double elapsed) {
  return make_progress_event("time step", k, total, elapsed, "t = " + std::to_string(k));
}

TEST(ProgressDisplay, LinesAreThrottledToOneASecondPlusTheFirstAndTheLast) {
  std::ostringstream out;
  {
    cli::ProgressDisplay display(out, cli::ProgressMode::Lines);
    for (int k = 1; k <= 10; ++k) display(event(k, 10, 0.3 * k));  // 0.3, 0.6, ..., 3.0 s
  }
  // Drawn: k = 1 (0.3 s), 5 (1.5 s), 9 (2.7 s) and the last, 10 (3.0 s).
  EXPECT_EQ(out.str(),
            "softik: time step 1/10  elapsed 0.3 s  ETA 2.7 s  t = 1\n"
            "softik: time step 5/10  elapsed 1.5 s  ETA 1.5 s  t = 5\n"
            "softik: time step 9/10  elapsed 2.7 s  ETA 0.3 s  t = 9\n"
            "softik: time step 10/10  elapsed 3.0 s  ETA 0.0 s  t = 10\n");
}

TEST(ProgressDisplay, TheBarIsOneLineRewrittenInPlaceAndEndedWithANewline) {
  std::ostringstream out;
  cli::ProgressDisplay display(out, cli::ProgressMode::Bar);
  display(make_progress_event("design", 1, 3, 1.0, "a-long-design-name: ok"));
  display(make_progress_event("design", 2, 3, 1.05, "b: ok"));  // within 0.1 s: not redrawn
  display(make_progress_event("design", 2, 3, 2.0, "b: ok"));
  EXPECT_EQ(out.str().find('\n'), std::string::npos) << out.str();
  display(make_progress_event("design", 3, 3, 3.0, "c: ok"));
  const std::string first = "design 1/3  elapsed 1.0 s  ETA 2.0 s  a-long-design-name: ok";
  const std::string second = "design 2/3  elapsed 2.0 s  ETA 1.0 s  b: ok";
  const std::string third = "design 3/3  elapsed 3.0 s  ETA 0.0 s  c: ok";
  // A shorter text is padded with spaces over the longer one before it.
  EXPECT_EQ(out.str(),
            "\r" + first + "\r" + second + std::string(first.size() - second.size(), ' ') + "\r" + third + "\n");
  display.finish();  // already ended: nothing more
  const std::string text = out.str();
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);
}

TEST(ProgressDisplay, TheBarNeverWrapsAndAnInterruptedBarIsEnded) {
  std::ostringstream out;
  {
    cli::ProgressDisplay display(out, cli::ProgressMode::Bar);
    display(make_progress_event("design", 1, 100, 1.0, std::string(200, 'x')));
  }  // the run stopped (an error): the display ends its line before the message
  const std::string text = out.str();
  ASSERT_EQ(text.front(), '\r');
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.size(), 1 + cli::ProgressDisplay::kBarWidth + 1);
  std::ostringstream narrow;
  cli::ProgressDisplay(narrow, cli::ProgressMode::Bar, 30)(make_progress_event("design", 1, 1, 1.0, "x"));
  EXPECT_EQ(narrow.str(), "\r" + std::string("design 1/1  elapsed 1.0 s  ETA 0.0 s  x").substr(0, 30) + "\n");
}

TEST(ProgressDisplay, ModesAndDurations) {
  cli::ProgressMode mode = cli::ProgressMode::None;
  EXPECT_TRUE(cli::parse_progress_mode("bar", mode));
  EXPECT_EQ(mode, cli::ProgressMode::Bar);
  EXPECT_TRUE(cli::parse_progress_mode("auto", mode));
  EXPECT_EQ(mode, cli::ProgressMode::Auto);
  EXPECT_FALSE(cli::parse_progress_mode("fancy", mode));
  EXPECT_EQ(mode, cli::ProgressMode::Auto);
  EXPECT_EQ(cli::format_duration(4.12), "4.1 s");
  EXPECT_EQ(cli::format_duration(185), "3 min 05 s");
  EXPECT_EQ(cli::format_duration(7620), "2 h 07 min");
  EXPECT_EQ(cli::progress_text(make_progress_event("design", 0, 5, 0.0)), "design 0/5  elapsed 0.0 s  ETA ?");
  std::ostringstream out;
  cli::ProgressDisplay none(out, cli::ProgressMode::None);
  EXPECT_FALSE(none.active());
  none(event(1, 1, 0));
  EXPECT_EQ(out.str(), "");
}

#ifdef SOFTIK_CLI_PATH

/// The run's summary with its wall times ("0.42 s") masked: what must not depend on --progress.
std::string masked(const std::string& text) { return std::regex_replace(text, std::regex("[0-9]+\\.[0-9]+ s"), "T s"); }

TEST(ProgressCli, PlainLinesOnStderrAndStdoutUnchanged) {
  const fs::path dir = fresh_dir("progress_cli");
  write_file(dir / "s.yaml", static_scene(3));
  const std::string run = "run " + (dir / "s.yaml").string() + " --out " + (dir / "out").string();
  const fs::path quiet_out = dir / "quiet.txt", err = dir / "err.txt", out = dir / "out.txt";
  ASSERT_EQ(run_cli(run + " --quiet", err, quiet_out), 0) << read_file(err);
  EXPECT_EQ(read_file(err), "");
  for (const char* mode : {"lines", "auto"}) {  // auto: stderr is a file here, not a terminal
    ASSERT_EQ(run_cli(run + " --progress " + std::string(mode), err, out), 0) << read_file(err);
    EXPECT_EQ(masked(read_file(out)), masked(read_file(quiet_out))) << mode;
    const std::string text = read_file(err);
    EXPECT_EQ(text.find('\r'), std::string::npos) << mode << ": " << text;
    // The first and the last step always (the steps between unless they come within a second).
    EXPECT_NE(text.find("\nsoftik: load step 1/3  elapsed "), std::string::npos) << mode << ": " << text;
    EXPECT_NE(text.find("\nsoftik: load step 3/3  elapsed "), std::string::npos) << mode << ": " << text;
    EXPECT_NE(text.find("ETA 0.0 s  load factor 1, "), std::string::npos) << mode << ": " << text;
    EXPECT_EQ(read_file(out).find("ETA"), std::string::npos) << read_file(out);
  }
  ASSERT_EQ(run_cli(run + " --progress=bar", err, out), 0) << read_file(err);
  EXPECT_EQ(masked(read_file(out)), masked(read_file(quiet_out)));
  const std::string bar = read_file(err);
  EXPECT_NE(bar.find("\rload step 1/3  elapsed "), std::string::npos) << bar;
  EXPECT_EQ(bar.find("softik: load step"), std::string::npos) << bar;
  EXPECT_EQ(bar.back(), '\n');
  ASSERT_EQ(run_cli(run + " --progress none", err, out), 0) << read_file(err);
  EXPECT_NE(read_file(err).find("softik: running "), std::string::npos) << read_file(err);
  EXPECT_EQ(read_file(err).find("load step"), std::string::npos) << read_file(err);
  EXPECT_EQ(run_cli(run + " --progress fancy", err, out), 1);
  EXPECT_NE(read_file(err).find("--progress must be auto, bar, lines or none, got 'fancy'"), std::string::npos)
      << read_file(err);
  EXPECT_EQ(run_cli(run + " --progress", err, out), 1);
  EXPECT_NE(read_file(err).find("--progress needs a mode: auto, bar, lines or none"), std::string::npos)
      << read_file(err);
}

TEST(ProgressCli, BatchLinesCountDesigns) {
  const fs::path dir = fresh_dir("progress_cli_batch");
  (void)four_designs(dir);
  const fs::path err = dir / "err.txt", out = dir / "out.txt";
  ASSERT_EQ(run_cli("batch " + (dir / "sweep.yaml").string() + " --out " + (dir / "out").string() +
                        " --workers 2 --progress lines",
                    err, out),
            0)
      << read_file(err);
  const std::string text = read_file(err);
  EXPECT_NE(text.find("softik: design 1/4  elapsed "), std::string::npos) << text;
  EXPECT_NE(text.find("softik: design 4/4  elapsed "), std::string::npos) << text;
  EXPECT_NE(read_file(out).find("4/4 designs ok"), std::string::npos) << read_file(out);
  EXPECT_EQ(read_file(out).find("design 1/4"), std::string::npos) << read_file(out);
}

#endif  // SOFTIK_CLI_PATH

}  // namespace
}  // namespace softik

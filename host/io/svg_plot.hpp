// Scatter and line plots as SVG, for batch reports (write_batch_report) and the load-displacement
// path of a continuation scene: panels of points, each with its name as a tooltip (<title>),
// series optionally joined by a line, axes with ticks at 1, 2 or 5 times a power of ten.
#pragma once

#include <string>
#include <vector>

namespace softik::io_detail {

struct PlotSeries {
  std::string label;    ///< in the legend
  std::string color;    ///< an SVG colour, e.g. "#1f77b4"
  double radius = 3;    ///< of each point's circle, px; 0: no circles (a line only, with `joined`)
  bool joined = false;  ///< also draw a line through the points in order (a Pareto front, a path)
  std::vector<double> x, y;
  std::vector<std::string> names;  ///< one per point: the tooltip
};

struct PlotPanel {
  std::string title, x_label, y_label;
  std::vector<PlotSeries> series;
};

/// The tick values of an axis covering [lo, hi]: about `target` round numbers (1, 2 or 5 times
/// a power of ten apart) from the first multiple >= lo to the last <= hi.
std::vector<double> nice_ticks(double lo, double hi, int target = 5);

/// One SVG document with the panels in a grid of `columns`, each `width` x `height` px.
std::string svg_scatter(const std::vector<PlotPanel>& panels, int columns = 2, int width = 420, int height = 320);

}  // namespace softik::io_detail

// Scatter plots as SVG for batch reports (write_batch_report): panels of points, each with its
// design's name as a tooltip (<title>), axes with ticks at 1, 2 or 5 times a power of ten.
#pragma once

#include <string>
#include <vector>

namespace softik::batch_detail {

struct PlotSeries {
  std::string label;   ///< in the legend
  std::string color;   ///< an SVG colour, e.g. "#1f77b4"
  double radius = 3;   ///< of each point's circle, px
  bool joined = false; ///< also draw a line through the points in order (a Pareto front)
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

}  // namespace softik::batch_detail

// SVG scatter and line plots (svg_plot.hpp).
#include "host/io/svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "host/io/xml_escape.hpp"

namespace softik::io_detail {
namespace {

using detail::xml_escape;

std::string label_of(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", std::abs(v) < 1e-300 ? 0.0 : v);
  return text;
}

/// [lo, hi] of the values, widened by 5% (or around a single value) so no point sits on a frame.
void range_of(const std::vector<const std::vector<double>*>& values, double& lo, double& hi) {
  lo = std::numeric_limits<double>::infinity();
  hi = -lo;
  for (const auto* v : values)
    for (double x : *v)
      if (std::isfinite(x)) {
        lo = std::min(lo, x);
        hi = std::max(hi, x);
      }
  if (!(lo <= hi)) {
    lo = 0;
    hi = 1;
  }
  const double span = hi - lo;
  const double pad = span > 0 ? 0.05 * span : (lo != 0 ? 0.05 * std::abs(lo) : 1.0);
  lo -= pad;
  hi += pad;
}

}  // namespace

std::vector<double> nice_ticks(double lo, double hi, int target) {
  std::vector<double> ticks;
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi) || target < 1) return ticks;
  const double raw = (hi - lo) / target;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  const double fraction = raw / power;
  const double step = (fraction < 1.5 ? 1 : fraction < 3.5 ? 2 : fraction < 7.5 ? 5 : 10) * power;
  for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + 1e-9 * step; k += 1) ticks.push_back(k * step);
  return ticks;
}

std::string svg_scatter(const std::vector<PlotPanel>& panels, int columns, int width, int height) {
  columns = std::max(1, std::min<int>(columns, static_cast<int>(std::max<size_t>(1, panels.size()))));
  const int rows = static_cast<int>((panels.size() + static_cast<size_t>(columns) - 1) / static_cast<size_t>(columns));
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << columns * width << "\" height=\""
      << std::max(1, rows) * height << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  const double left = 70, right = 15, top = 30, bottom = 45;
  for (size_t p = 0; p < panels.size(); ++p) {
    const PlotPanel& panel = panels[p];
    const double ox = static_cast<double>(p % static_cast<size_t>(columns)) * width;
    const double oy = static_cast<double>(p / static_cast<size_t>(columns)) * height;
    const double w = width - left - right, h = height - top - bottom;
    std::vector<const std::vector<double>*> xs, ys;
    for (const PlotSeries& s : panel.series) {
      xs.push_back(&s.x);
      ys.push_back(&s.y);
    }
    double x0, x1, y0, y1;
    range_of(xs, x0, x1);
    range_of(ys, y0, y1);
    auto px = [&](double x) { return ox + left + (x - x0) / (x1 - x0) * w; };
    auto py = [&](double y) { return oy + top + (y1 - y) / (y1 - y0) * h; };
    svg << "<g>\n<text x=\"" << ox + left + w / 2 << "\" y=\"" << oy + 18
        << "\" text-anchor=\"middle\" font-size=\"13\">" << xml_escape(panel.title) << "</text>\n";
    svg << "<rect x=\"" << ox + left << "\" y=\"" << oy + top << "\" width=\"" << w << "\" height=\"" << h
        << "\" fill=\"none\" stroke=\"#444\"/>\n";
    for (double t : nice_ticks(x0, x1))
      svg << "<line x1=\"" << px(t) << "\" y1=\"" << oy + top + h << "\" x2=\"" << px(t) << "\" y2=\""
          << oy + top + h + 4 << "\" stroke=\"#444\"/><text x=\"" << px(t) << "\" y=\"" << oy + top + h + 16
          << "\" text-anchor=\"middle\">" << label_of(t) << "</text>\n";
    for (double t : nice_ticks(y0, y1))
      svg << "<line x1=\"" << ox + left - 4 << "\" y1=\"" << py(t) << "\" x2=\"" << ox + left << "\" y2=\"" << py(t)
          << "\" stroke=\"#444\"/><text x=\"" << ox + left - 6 << "\" y=\"" << py(t) + 4 << "\" text-anchor=\"end\">"
          << label_of(t) << "</text>\n";
    svg << "<text x=\"" << ox + left + w / 2 << "\" y=\"" << oy + height - 8 << "\" text-anchor=\"middle\">"
        << xml_escape(panel.x_label) << "</text>\n";
    svg << "<text transform=\"translate(" << ox + 14 << "," << oy + top + h / 2
        << ") rotate(-90)\" text-anchor=\"middle\">" << xml_escape(panel.y_label) << "</text>\n";
    double legend_y = oy + top + 12;
    for (const PlotSeries& s : panel.series) {
      if (s.joined && s.x.size() > 1) {
        svg << "<polyline fill=\"none\" stroke=\"" << s.color << "\" stroke-width=\"1.5\" points=\"";
        for (size_t i = 0; i < s.x.size(); ++i) svg << (i ? " " : "") << px(s.x[i]) << "," << py(s.y[i]);
        svg << "\"/>\n";
      }
      for (size_t i = 0; s.radius > 0 && i < s.x.size() && i < s.y.size(); ++i) {
        if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
        svg << "<circle cx=\"" << px(s.x[i]) << "\" cy=\"" << py(s.y[i]) << "\" r=\"" << s.radius << "\" fill=\""
            << s.color << "\" fill-opacity=\"0.8\"><title>" << xml_escape(i < s.names.size() ? s.names[i] : "") << ": ("
            << label_of(s.x[i]) << ", " << label_of(s.y[i]) << ")</title></circle>\n";
      }
      if (!s.label.empty()) {
        svg << "<circle cx=\"" << ox + left + w - 110 << "\" cy=\"" << legend_y - 4 << "\" r=\"4\" fill=\"" << s.color
            << "\"/><text x=\"" << ox + left + w - 100 << "\" y=\"" << legend_y << "\">" << xml_escape(s.label)
            << "</text>\n";
        legend_y += 14;
      }
    }
    svg << "</g>\n";
  }
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace softik::io_detail

#include "demo/demo_svg.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <sys/utsname.h>
#include <thread>

namespace afxdp::tool {
namespace {

struct Tool {
  const char* name;
  const char* label;
  const char* color;
};
constexpr Tool tools[] = {{"afxdp", "afxdp", "#2171b5"},
                          {"xdpsock", "xdpsock", "#fd8d3c"},
                          {"dpdk", "DPDK testpmd", "#74c476"}};
constexpr int bar = 12, gap = 14, left = 80, panel_h = 180, label_h = 150, top = 100;

std::string escaped(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

// 1, 2 or 5 times a power of ten, at or above `value`.
double nice_top(double value) {
  if (value <= 0) return 1;
  const double power = std::pow(10.0, std::floor(std::log10(value)));
  for (const double step : {1.0, 2.0, 5.0}) {
    if (step * power >= value) return step * power;
  }
  return 10 * power;
}

using Groups = std::vector<std::pair<std::string, std::map<std::string, double>>>;

void panel(std::ostringstream& svg, const std::string& benchmark, const Groups& groups, int y0,
           int width) {
  const int base = y0 + panel_h;
  double high = 0;
  for (const auto& group : groups) {
    for (const auto& value : group.second) high = std::max(high, value.second);
  }
  high = nice_top(high);
  svg << "<text x=\"" << left << "\" y=\"" << y0 - 6 << "\" font-size=\"13\">" << benchmark
      << "</text>\n<text transform=\"translate(20," << y0 + panel_h / 2
      << ") rotate(-90)\" text-anchor=\"middle\">Mpps</text>\n";
  for (int k = 0; k <= 5; ++k) {
    const double y = base - panel_h * k / 5.0;
    svg << "<line x1=\"" << left << "\" x2=\"" << width - 20 << "\" y1=\"" << y << "\" y2=\"" << y
        << "\" stroke=\"#ddd\"/>\n<text x=\"" << left - 6 << "\" y=\"" << y + 4
        << "\" text-anchor=\"end\">" << high * k / 5 << "</text>\n";
  }
  const int group_w = static_cast<int>(std::size(tools)) * bar + gap;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const int x0 = left + 8 + static_cast<int>(g) * group_w;
    for (std::size_t i = 0; i < std::size(tools); ++i) {
      const auto value = groups[g].second.find(tools[i].name);
      if (value == groups[g].second.end()) continue;
      const double h = panel_h * value->second / high;
      svg << "<rect x=\"" << x0 + static_cast<int>(i) * bar << "\" y=\"" << base - h
          << "\" width=\"" << bar - 1 << "\" height=\"" << h << "\" fill=\"" << tools[i].color
          << "\"><title>" << groups[g].first << ", " << tools[i].label << ": " << value->second
          << " Mpps</title></rect>\n";
    }
    svg << "<text class=\"cell\" transform=\"translate(" << x0 + group_w / 2 << "," << base + 10
        << ") rotate(40)\" font-size=\"10\">" << groups[g].first << "</text>\n";
  }
  svg << "<line x1=\"" << left << "\" x2=\"" << width - 20 << "\" y1=\"" << base << "\" y2=\""
      << base << "\" stroke=\"black\"/>\n";
}

}  // namespace

std::string chart_cell_name(const DemoCell& cell) {
  const char* wait = cell.busy_poll ? "busy-poll" : (cell.poll ? "poll()" : "spin");
  return std::string(demo_name(cell.benchmark)) + " " + wait + " " + demo_name(cell.mode) + " " +
         std::to_string(cell.cores) + "c " + std::to_string(cell.queues) + "q";
}

std::string demo_svg(const std::vector<DemoCell>& cells, const std::string& note) {
  std::vector<std::pair<std::string, Groups>> panels;  // in the matrix's order
  for (const DemoCell& cell : cells) {
    if (!cell.measured) continue;
    const std::string benchmark = demo_name(cell.benchmark);
    auto found = std::find_if(panels.begin(), panels.end(),
                              [&](const auto& p) { return p.first == benchmark; });
    if (found == panels.end()) found = panels.insert(panels.end(), {benchmark, {}});
    const std::string name = chart_cell_name(cell);
    auto group = std::find_if(found->second.begin(), found->second.end(),
                              [&](const auto& g) { return g.first == name; });
    if (group == found->second.end()) group = found->second.insert(found->second.end(), {name, {}});
    group->second[demo_name(cell.tool)] = cell.mpps;
  }
  std::size_t widest = 1;
  for (const auto& p : panels) widest = std::max(widest, p.second.size());
  const int width = std::max(760, left + static_cast<int>(widest) * (3 * bar + gap) + 40);
  const int height = top + static_cast<int>(panels.size()) * (panel_h + label_h) + 20;
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"" << width
      << "\" height=\"" << height << "\" fill=\"white\"/>\n"
      << "<text x=\"10\" y=\"20\" font-size=\"14\">afxdp demo: Mpps per cell, higher is "
         "better</text>\n<text x=\"10\" y=\"38\">Machine: "
      << escaped(note) << "</text>\n";
  int shown = 0;  // the legend names the tools that ran
  for (std::size_t i = 0; i < std::size(tools); ++i) {
    const bool ran = std::any_of(cells.begin(), cells.end(), [&](const DemoCell& cell) {
      return cell.measured && std::string_view(demo_name(cell.tool)) == tools[i].name;
    });
    if (!ran) continue;
    const int x = left + shown++ * 120;
    svg << "<rect x=\"" << x << "\" y=\"63\" width=\"10\" height=\"10\" fill=\"" << tools[i].color
        << "\"/><text x=\"" << x + 14 << "\" y=\"72\">" << tools[i].label << "</text>\n";
  }
  for (std::size_t p = 0; p < panels.size(); ++p) {
    panel(svg, panels[p].first, panels[p].second, top + static_cast<int>(p) * (panel_h + label_h),
          width);
  }
  svg << "<text x=\"" << width / 2 << "\" y=\"" << height - 6
      << "\" text-anchor=\"middle\">cell: benchmark, wait, mode, cores (c), queues (q)</text>\n"
      << "</svg>\n";
  return svg.str();
}

std::string machine_note() {
  std::string model;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; model.empty() && std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) model = line.substr(line.find(':') + 2);
  }
  utsname names{};
  ::uname(&names);
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", &utc);
  return model + ", " + std::to_string(std::thread::hardware_concurrency()) + " CPUs, kernel " +
         names.release + ", " + date;
}

}  // namespace afxdp::tool

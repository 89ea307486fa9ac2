// Renders two reports, opens them in headless Chromium, and checks the page loads, the DOM holds every chart,
// the page is self-contained, and each chart's pixel box in the screenshot is not blank.
#include <catch2/catch.hpp>

#include <zlib.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

#include "reports/report.h"
#include "tests/browser/browser_util.h"

namespace fs = std::filesystem;
using rooftop::test::chromium_cmd;
using rooftop::test::shell;
using rooftop::test::slurp;

namespace {

struct Image {
  int width = 0, height = 0;
  std::vector<std::array<unsigned char, 3>> rgb;  // row-major
};

uint32_t be32(const unsigned char* p) { return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3]; }

// A small PNG decoder: 8-bit RGB or RGBA, not interlaced (what Chromium writes).
Image decode_png(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(f)), {});
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  REQUIRE(data.size() > 33);
  REQUIRE(data.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
  Image img;
  int channels = 0;
  std::string idat;
  for (size_t at = 8; at + 12 <= data.size();) {
    const uint32_t len = be32(p + at);
    const std::string type = data.substr(at + 4, 4);
    const unsigned char* body = p + at + 8;
    if (type == "IHDR") {
      img.width = int(be32(body));
      img.height = int(be32(body + 4));
      REQUIRE(int(body[8]) == 8);        // bit depth
      REQUIRE(int(body[12]) == 0);       // not interlaced
      channels = body[9] == 6 ? 4 : body[9] == 2 ? 3 : 0;
      REQUIRE(channels != 0);
    } else if (type == "IDAT") {
      idat.append(reinterpret_cast<const char*>(body), len);
    }
    at += 12 + len;
  }
  const size_t stride = size_t(img.width) * channels;
  std::vector<unsigned char> raw((stride + 1) * img.height);
  uLongf raw_len = raw.size();
  REQUIRE(uncompress(raw.data(), &raw_len, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) == Z_OK);
  REQUIRE(raw_len == raw.size());
  std::vector<unsigned char> prev(stride, 0), cur(stride);
  img.rgb.resize(size_t(img.width) * img.height);
  for (int y = 0; y < img.height; ++y) {
    const unsigned char filter = raw[y * (stride + 1)];
    const unsigned char* in = &raw[y * (stride + 1) + 1];
    for (size_t i = 0; i < stride; ++i) {
      const int a = i >= size_t(channels) ? cur[i - channels] : 0, b = prev[i], c = i >= size_t(channels) ? prev[i - channels] : 0;
      int pred = 0;
      switch (filter) {
        case 0: pred = 0; break;
        case 1: pred = a; break;
        case 2: pred = b; break;
        case 3: pred = (a + b) / 2; break;
        case 4: {
          const int pa = std::abs(b - c), pb = std::abs(a - c), pc = std::abs(a + b - 2 * c);
          pred = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default: FAIL("bad PNG filter " << int(filter));
      }
      cur[i] = static_cast<unsigned char>(in[i] + pred);
    }
    for (int x = 0; x < img.width; ++x)
      img.rgb[size_t(y) * img.width + x] = {cur[x * channels], cur[x * channels + 1], cur[x * channels + 2]};
    std::swap(prev, cur);
  }
  return img;
}

double non_white_fraction(const Image& img, int x0, int y0, int w, int h) {
  size_t n = 0, total = 0;
  for (int y = y0; y < std::min(img.height, y0 + h); ++y)
    for (int x = x0; x < std::min(img.width, x0 + w); ++x, ++total) {
      const auto& px = img.rgb[size_t(y) * img.width + x];
      if (px[0] < 240 || px[1] < 240 || px[2] < 240) ++n;
    }
  return total ? double(n) / double(total) : 0;
}

void check_report(const std::string& name, const std::string& args) {
  INFO("report " << name << ": " << args);
  REQUIRE(shell("command -v chromium > /dev/null") == 0);  // installed by scripts/setup.sh
  const fs::path dir = fs::temp_directory_path() / ("rooftop-browser-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path html = dir / (name + ".html"), png = dir / (name + ".png"), dom = dir / (name + ".dom");
  const std::string rooftop = std::string(ROOFTOP_BINARY_DIR) + "/rooftop";
  REQUIRE(shell(rooftop + " report " + args + " --format html -o " + html.string()) == 0);

  // Self-contained: no scripts, no links or sources to fetch; URLs only as text in the sources table.
  const std::string page = slurp(html);
  for (const char* bad : {"<script", "src=", "href=", "<link", "url(http", "@import", "<img", "<iframe"})
    CHECK(page.find(bad) == std::string::npos);
  const size_t sources = page.find("<section id=\"sources\">");
  REQUIRE(sources != std::string::npos);
  const size_t first_http = page.find("http");
  CHECK((first_http == std::string::npos || first_http > sources));

  // The DOM after loading holds every chart's <svg>.
  REQUIRE(shell(chromium_cmd(dir / "profile-dom") + " --dump-dom file://" + html.string() + " > " + dom.string() + " 2> /dev/null") == 0);
  const std::string d = slurp(dom);
  for (const char* id : {"chart-memory", "chart-roofline", "chart-field", "chart-batch-tokens", "chart-kv-context"}) CHECK(d.find(id) != std::string::npos);
  size_t svgs = 0;
  for (size_t at = 0; (at = d.find("<svg", at)) != std::string::npos; ++at) ++svgs;
  CHECK(svgs == 6);

  // Screenshot: each figure block's chart box has more than 1% non-white pixels.
  REQUIRE(shell(chromium_cmd(dir / "profile-shot") + " --screenshot=" + png.string() + " --window-size=1280,4000 file://" +
                html.string() + " > /dev/null 2>&1") == 0);
  const Image img = decode_png(png.string());
  REQUIRE(img.width == 1280);
  REQUIRE(img.height == 4000);
  using namespace rooftop::reports;
  for (int i = 0; i < kFigureCount; ++i) {
    const double f = non_white_fraction(img, kFigureLeftPx, kHeaderPx + i * kFigurePx, kChartWidthPx, kChartHeightPx);
    INFO("figure " << i << " non-white fraction " << f);
    CHECK(f > 0.01);
  }
  // The gap between figure blocks and the page margin right of the charts stay white (the layout is where we think).
  CHECK(non_white_fraction(img, kFigureLeftPx + kChartWidthPx + 20, kHeaderPx, 200, kFigureCount * kFigurePx) < 0.001);
  if (const char* keep = std::getenv("ROOFTOP_SHOTS_DIR")) fs::copy_file(png, fs::path(keep) / (name + ".png"), fs::copy_options::overwrite_existing);
  fs::remove_all(dir);
}

}  // namespace

TEST_CASE("gpt-oss-120b at mxfp4 on h100-sxm renders in Chromium", "[browser]") {
  check_report("gpt-oss-120b-h100-sxm", "--model gpt-oss-120b --hw h100-sxm --precision mxfp4");
}

TEST_CASE("llama-3.1-70b at fp8 on h200 renders in Chromium", "[browser]") {
  check_report("llama-3.1-70b-h200", "--model llama-3.1-70b --hw h200 --precision fp8");
}

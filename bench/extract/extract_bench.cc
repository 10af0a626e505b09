// Extraction throughput of pi-fusion's extractor over a corpus directory (make_corpus.mjs).
//
//   extract_bench CORPUS_DIR [MIN_SECONDS_PER_CASE]
//
// For each file and format it runs extract::Extract repeatedly for at least MIN_SECONDS (default
// 0.5) and prints one JSON object per line: {"tool", "format", "file", "bytes", "runs",
// "seconds"}. Two caps are measured: "pi-fusion" with no practical output cap (the full
// conversion, comparable with the JavaScript converters) and "pi-fusion-32k" with the 32 KiB
// cap the fetcher uses, where rendering stops early. Timing is wall-clock; nothing asserts on it.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "extract/extract.h"

namespace {

using pi_fusion::extract::Extract;
using pi_fusion::extract::ExtractOptions;
using pi_fusion::extract::Format;

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream data;
  data << in.rdbuf();
  return data.str();
}

// Runs until `min_seconds` have passed (at least twice, after one warm-up run).
void Measure(const char* tool, const std::string& file, const std::string& html, Format format,
             size_t cap, double min_seconds) {
  ExtractOptions options;
  options.format = format;
  options.max_output_bytes = cap;
  options.content_type = "text/html; charset=utf-8";
  size_t sink = 0;
  if (auto warm = Extract(html, options); warm.ok()) sink += warm->text.size();
  const auto start = std::chrono::steady_clock::now();
  double elapsed = 0;
  long runs = 0;
  while (runs < 2 || elapsed < min_seconds) {
    auto out = Extract(html, options);
    if (!out.ok()) {
      std::fprintf(stderr, "%s: %s\n", file.c_str(), out.status().ToString().c_str());
      return;
    }
    sink += out->text.size();
    ++runs;
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  std::printf(
      "{\"tool\":\"%s\",\"format\":\"%s\",\"file\":\"%s\",\"bytes\":%zu,\"runs\":%ld,"
      "\"seconds\":%.6f,\"output_bytes\":%zu}\n",
      tool, format == Format::kMarkdown ? "markdown" : "text", file.c_str(), html.size(), runs,
      elapsed, sink / static_cast<size_t>(runs + 1));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: extract_bench CORPUS_DIR [MIN_SECONDS_PER_CASE]\n");
    return 2;
  }
  const double min_seconds = argc > 2 ? std::atof(argv[2]) : 0.5;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(argv[1])) {
    if (entry.path().extension() == ".html") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  const size_t uncapped = std::numeric_limits<size_t>::max() / 2;
  for (const auto& path : files) {
    const std::string html = ReadFile(path);
    const std::string name = path.filename().string();
    for (const Format format : {Format::kMarkdown, Format::kText}) {
      Measure("pi-fusion", name, html, format, uncapped, min_seconds);
      Measure("pi-fusion-32k", name, html, format, 32 * 1024, min_seconds);
    }
  }
  return 0;
}

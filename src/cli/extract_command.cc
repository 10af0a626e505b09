// `pi-fusion extract [FILE|-] [--format text|markdown] [--content-type TYPE]
//                    [--max-output-bytes N]`: prints the text or Markdown extracted from an HTML,
// plain-text or Markdown document (docs/cli/extract.md). The same code runs in `pi-fusion fetch`.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "core/limits.h"
#include "extract/extract.h"

namespace pi_fusion::cli {
namespace {

struct ExtractArgs {
  std::string file = "-";
  std::string format = "markdown";
  std::string content_type;
  size_t max_output_bytes = kMaxExtractedTextBytes;  // the fetcher's cap
};

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Without --content-type a file's extension decides; everything else is taken for HTML.
std::string DefaultContentType(const std::string& file) {
  if (EndsWith(file, ".md") || EndsWith(file, ".markdown")) return "text/markdown";
  if (EndsWith(file, ".txt")) return "text/plain";
  return "text/html";
}

Result<std::string> ReadAll(const std::string& file) {
  const bool stdin_input = file == "-";
  std::FILE* f = stdin_input ? stdin : std::fopen(file.c_str(), "rb");
  if (f == nullptr) {
    return Status::Error("io_error", "cannot open " + file + ": " + std::strerror(errno));
  }
  std::string data;
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), f)) > 0) data.append(buffer, n);
  const bool failed = std::ferror(f) != 0;
  if (!stdin_input) std::fclose(f);
  if (failed) return Status::Error("io_error", "cannot read " + file);
  return data;
}

int Fail(const Status& status) {
  std::fprintf(stderr, "error: %s: %s\n", status.code().c_str(), status.message().c_str());
  return 1;
}

int RunExtract(const ExtractArgs& args) {
  const Result<std::string> body = ReadAll(args.file);
  if (!body.ok()) return Fail(body.status());
  extract::ExtractOptions options;
  options.format = args.format == "text" ? extract::Format::kText : extract::Format::kMarkdown;
  options.max_output_bytes = args.max_output_bytes;
  options.content_type =
      args.content_type.empty() ? DefaultContentType(args.file) : args.content_type;
  const Result<extract::ExtractOutput> out = extract::Extract(*body, options);
  if (!out.ok()) return Fail(out.status());
  if (!out->text.empty()) {
    std::fwrite(out->text.data(), 1, out->text.size(), stdout);
    std::fputc('\n', stdout);
  }
  if (std::fflush(stdout) != 0) return Fail(Status::Error("io_error", "cannot write output"));
  return 0;
}

}  // namespace

void AddExtractCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<ExtractArgs>();
  CLI::App* cmd = app.add_subcommand(
      "extract", "Print the text or Markdown of an HTML, plain-text or Markdown document");
  cmd->add_option("file", args->file, "Input file, or - for standard input")->capture_default_str();
  cmd->add_option("--format", args->format, "Output format")
      ->check(CLI::IsMember({"text", "markdown"}))
      ->capture_default_str();
  cmd->add_option("--content-type", args->content_type,
                  "Content-Type of the input, e.g. \"text/html; charset=windows-1252\" "
                  "(default: from the file extension, else text/html)");
  cmd->add_option("--max-output-bytes", args->max_output_bytes,
                  "Cap on the output, truncation marker included")
      ->check(CLI::Range(size_t{64}, size_t{1} << 30))
      ->capture_default_str();
  cmd->callback([args, exit_code] { *exit_code = RunExtract(*args); });
}

}  // namespace pi_fusion::cli

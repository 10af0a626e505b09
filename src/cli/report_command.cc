// `pi-fusion report <run> [--out FILE] [--cwd DIR]`: writes a run's self-contained HTML report and
// prints its path (docs/cli/report.md). The run is named as `show` names it (run_lookup.h); what
// the page holds is src/report's; this file parses arguments, writes the file and prints.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>

#include "cli/commands.h"
#include "cli/run_lookup.h"
#include "core/durable_file.h"
#include "core/error_codes.h"
#include "core/file_system.h"
#include "report/report_html.h"
#include "report/report_model.h"

namespace pi_fusion::cli {
namespace {

// Exit statuses of `report`; 2, a usage error or a name that is no run, is run_lookup.h's.
constexpr int kReportWritten = 0;     // written from a run whose every artifact verified
constexpr int kReportNotWritten = 1;  // the file could not be written
constexpr int kReportUnverified = 3;  // written, but something failed verification (it says what)

// Where reports go by default: beside the run store, never inside a run's own directory.
constexpr char kReportsDir[] = ".pi/fusion-reports";

struct ReportArgs {
  std::string run;
  std::string out;
  std::string cwd;
};

// The --out path as an absolute path, or the default one for `run_id`; invalid_arguments when
// --out names a directory or a file in a directory that does not exist.
Result<std::string> OutputPath(const ReportArgs& args, const std::string& project,
                               const std::string& run_id) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (args.out.empty()) {
    const fs::path dir = fs::path(project) / kReportsDir;
    if (Status made = CreateDirectories(PosixFileSystem(), dir.string()); !made.ok()) {
      return Status::Error(kInvalidArguments,
                           "cannot create " + dir.string() + ": " + made.message());
    }
    return (dir / (run_id + ".html")).string();
  }
  const fs::path out = fs::absolute(args.out, ec).lexically_normal();
  if (fs::is_directory(out, ec) || out.filename().empty()) {
    return Status::Error(kInvalidArguments,
                         "--out " + args.out + " is a directory; name the HTML file to write");
  }
  if (!fs::is_directory(out.parent_path(), ec)) {
    return Status::Error(kInvalidArguments, "--out " + args.out + ": the directory " +
                                                out.parent_path().string() + " does not exist");
  }
  return out.string();
}

int RunReportCommand(const ReportArgs& args) {
  const Result<std::string> project = ProjectDir(args.cwd);
  if (!project.ok()) return UsageError(project.status());
  const Result<std::string> found = FindRunDir(args.run, *project);
  if (!found.ok()) return UsageError(found.status());
  const report::ReportModel model = report::ReadReportModel(PosixFileSystem(), *found);
  const Result<std::string> out = OutputPath(args, *project, model.run_id);
  if (!out.ok()) return UsageError(out.status());
  if (Status written =
          WriteFileDurably(PosixFileSystem(), *out, report::RenderReportHtml(model), 0644);
      !written.ok()) {
    PrintLine(stderr, "error: cannot write the report: " + written.message());
    return kReportNotWritten;
  }
  PrintOneLine(stdout, *out);
  if (model.problems.empty()) return kReportWritten;
  PrintOneLine(stderr, "warning: " + model.run_id +
                           " does not verify; the report shows what failed and leaves out the "
                           "content of every artifact that did not verify");
  return kReportUnverified;
}

}  // namespace

void AddReportCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* report =
      app.add_subcommand("report", "Write a run's self-contained HTML report and print its path");
  report->add_option("run", args->run,
                     "A run id under --cwd (a prefix, or the short id shown in Pi, will do), or a "
                     "run directory");
  report->add_option("--out", args->out,
                     "The HTML file to write (default: <cwd>/.pi/fusion-reports/<run-id>.html)");
  report->add_option("--cwd", args->cwd, "Project directory (default: the current directory)");
  SetRunCallback(report, args->run, exit_code, [args] { return RunReportCommand(*args); });
}

}  // namespace pi_fusion::cli

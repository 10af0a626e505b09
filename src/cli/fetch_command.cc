// `pi-fusion fetch`: fetch one public http(s) URL (or a stream of them with --stdio) through the
// vetted fetcher and print the extracted text or a JSON result. See docs/cli/fetch.md.
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/fetch_extractor.h"
#include "cli/fetch_rlimits.h"
#include "core/error_codes.h"
#include "net/fetch_json.h"
#include "net/fetcher.h"
#include "net/http_transport.h"
#include "net/resolver.h"
#include "url/fetch_contract.h"

namespace pi_fusion::cli {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFetchFailed = 1;
constexpr int kExitUsage = 2;

struct FetchFlags {
  std::string url;
  std::string extract = "markdown";
  bool json = false;
  std::string dns_servers;
  bool stdio = false;
  long deadline_ms = 0;  // 0 = the spec's deadline; otherwise a shorter one
};

net::ExtractFormat FormatFromName(const std::string& name) {
  return name == "text" ? net::ExtractFormat::kText : net::ExtractFormat::kMarkdown;
}

std::vector<std::string> SplitCsv(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

std::string FetchToLine(net::Fetcher& fetcher, const std::string& target,
                        net::ExtractFormat format) {
  Result<net::FetchResult> result = fetcher.Fetch(target, format);
  return url::FetchAnswerLine(net::FetchAnswerOf(result, fetcher.trace()));
}

int RunStdio(net::Fetcher& fetcher) {
  for (std::string line; std::getline(std::cin, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    Result<url::FetchRequest> request = url::ParseFetchRequest(line);
    const std::string out =
        request.ok() ? FetchToLine(fetcher, request->url, FormatFromName(request->extract))
                     : url::FetchAnswerLine(net::FetchFailureOf(request.status()));
    std::cout << out << std::endl;  // flush: the caller reads line by line
  }
  return kExitOk;
}

int RunOnce(net::Fetcher& fetcher, const FetchFlags& flags) {
  Result<net::FetchResult> result = fetcher.Fetch(flags.url, FormatFromName(flags.extract));
  if (flags.json) {
    std::cout << url::FetchAnswerLine(net::FetchAnswerOf(result, fetcher.trace())) << std::endl;
  } else if (result.ok()) {
    std::cout << result->text;
    if (!result->text.empty() && result->text.back() != '\n') std::cout << '\n';
    std::cout.flush();
  } else {
    std::cerr << "error: " << result.status().code() << ": " << result.status().message() << "\n";
  }
  return result.ok() ? kExitOk : kExitFetchFailed;
}

int ReportError(const FetchFlags& flags, const Status& status, int exit_code) {
  if (flags.json) {
    std::cout << url::FetchAnswerLine(net::FetchFailureOf(status)) << std::endl;
  } else {
    std::cerr << "error: " << status.code() << ": " << status.message() << "\n";
  }
  return exit_code;
}

int UsageError(const FetchFlags& flags, const Status& status) {
  return ReportError(flags, status, kExitUsage);
}

int RunFetch(const FetchFlags& flags) {
  if (flags.stdio == !flags.url.empty()) {
    return UsageError(flags, Status::Error(kInvalidArgument,
                                           "give either a URL or --stdio, not both or neither"));
  }
  if (Status limited = ApplyFetchRlimits(); !limited.ok()) {
    return ReportError(flags, limited, kExitFetchFailed);
  }
  net::AresResolverOptions resolver_options;
  resolver_options.servers = SplitCsv(flags.dns_servers);
  auto resolver = net::NewAresResolver(resolver_options);
  if (!resolver.ok()) return UsageError(flags, resolver.status());
  std::unique_ptr<net::HttpTransport> transport = net::NewCurlTransport();
  net::FetchOptions options;
  if (flags.deadline_ms > 0) options.deadline = std::chrono::milliseconds(flags.deadline_ms);
  net::Fetcher fetcher(**resolver, *transport, SystemClock(), MakeFetchExtractor(), options);
  return flags.stdio ? RunStdio(fetcher) : RunOnce(fetcher, flags);
}

}  // namespace

void AddFetchCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<FetchFlags>();
  CLI::App* cmd = app.add_subcommand(
      "fetch", "Fetch a public http(s) URL and print its text or Markdown (docs/cli/fetch.md)");
  cmd->add_option("url", flags->url, "Absolute http(s) URL to fetch");
  cmd->add_option("--extract", flags->extract, "Output form: text or markdown (default)")
      ->check(CLI::IsMember({"text", "markdown"}));
  cmd->add_flag("--json", flags->json, "Print one JSON object instead of the text");
  cmd->add_option("--dns-servers", flags->dns_servers,
                  "Comma-separated DNS servers HOST:PORT (default: /etc/resolv.conf)");
  cmd->add_flag("--stdio", flags->stdio,
                "Read JSON-lines requests {url, extract?} from stdin, write one JSON result each");
  // Only ever shortens the deadline (a caller with less time left, or a test that expires it in
  // about a second); it cannot lengthen it past the spec's 90 s.
  cmd->add_option("--deadline-ms", flags->deadline_ms,
                  "A deadline shorter than the default 90 s, in milliseconds")
      ->check(CLI::Range(1L, static_cast<long>(net::kFetchDeadline.count())));
  cmd->callback([flags, exit_code] {
    try {
      *exit_code = RunFetch(*flags);
    } catch (const std::exception& e) {
      std::cerr << "error: internal_error: " << e.what() << "\n";
      *exit_code = kExitFetchFailed;
    }
  });
}

}  // namespace pi_fusion::cli

#include "url/fetch_contract.h"

#include <climits>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/closed_object.h"
#include "core/error_codes.h"
#include "core/json_text.h"
#include "core/utf8.h"

namespace pi_fusion::url {
namespace {

constexpr char kAnswer[] = "the fetcher's answer";
constexpr char kMalformedFailure[] = "the fetcher's error answer is malformed";

Status AnswerInvalid(const std::string& message) {
  return Status::Error(kFetchProcessFailed, message);
}

std::string UnknownKey(const std::string& key) {
  return std::string(kAnswer) + " has an unknown key \"" + TruncateUtf8(RepairUtf8(key), 64) + "\"";
}

nlohmann::ordered_json PageJson(const FetchedPage& page) {
  return {{"ok", true},
          {"url", page.url},
          {"final_url", page.final_url},
          {"http_status", page.http_status},
          {"content_type", page.content_type},
          {"response_bytes", page.response_bytes},
          {"content_sha256", page.content_sha256},
          {"extracted_bytes", page.extracted_bytes},
          {"truncated", page.truncated},
          {"text", page.text}};
}

nlohmann::ordered_json FailureJson(const FetchFailure& failure) {
  nlohmann::ordered_json out = {{"ok", false},
                                {"error", {{"code", failure.code}, {"message", failure.message}}}};
  if (failure.url) out["url"] = *failure.url;
  if (failure.final_url) out["final_url"] = *failure.final_url;
  if (failure.http_status) out["http_status"] = *failure.http_status;
  return out;
}

// Every field is required; they are looked up in the order the checks have always run, so the
// first missing or mistyped one is the one named.
Result<FetchAnswer> ReadPage(const nlohmann::json& object) {
  ClosedObjectReader reader(object);
  reader.Bool("ok");
  FetchedPage page;
  for (auto [key, field] : {std::pair{"url", &page.url},
                            {"final_url", &page.final_url},
                            {"content_type", &page.content_type},
                            {"content_sha256", &page.content_sha256},
                            {"text", &page.text}}) {
    *field = reader.String(key).value_or("");
  }
  page.http_status = static_cast<int>(reader.Int("http_status", 0, INT_MAX).value_or(0));
  page.response_bytes = reader.Uint("response_bytes").value_or(0);
  page.extracted_bytes = reader.Uint("extracted_bytes").value_or(0);
  page.truncated = reader.Bool("truncated").value_or(false);
  if (const std::optional<FieldProblem>& problem = reader.Finish()) {
    if (problem->kind == FieldProblem::Kind::kUnknownKey)
      return AnswerInvalid(UnknownKey(problem->key));
    return AnswerInvalid("answer lacks " + problem->key);
  }
  return FetchAnswer(std::move(page));
}

Result<FetchAnswer> ReadFailure(const nlohmann::json& object) {
  ClosedObjectReader reader(object);
  reader.Bool("ok");
  FetchFailure failure;
  if (const nlohmann::json* error = reader.Member("error", JsonShape::kObject)) {
    ClosedObjectReader fields(*error);
    failure.code = fields.String("code").value_or("");
    failure.message = fields.String("message").value_or("");
    if (fields.Finish()) reader.Fail(kMalformedFailure);
  }
  if (reader.Has("url")) failure.url = reader.String("url");
  if (reader.Has("final_url")) failure.final_url = reader.String("final_url");
  if (reader.Has("http_status")) {
    std::optional<int64_t> status = reader.Int("http_status", 0, INT_MAX);
    if (status) failure.http_status = static_cast<int>(*status);
  }
  if (const std::optional<FieldProblem>& problem = reader.Finish()) {
    if (problem->kind == FieldProblem::Kind::kUnknownKey)
      return AnswerInvalid(UnknownKey(problem->key));
    return AnswerInvalid(kMalformedFailure);
  }
  return FetchAnswer(std::move(failure));
}

}  // namespace

Result<FetchRequest> ParseFetchRequest(std::string_view line) {
  const nlohmann::json request = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!request.is_object()) return Status::Error(kInvalidRequest, "request is not a JSON object");
  for (const auto& [key, value] : request.items()) {
    if (key != "url" && key != "extract") {
      return Status::Error(kInvalidRequest, "unknown request field \"" + key + "\"");
    }
  }
  if (!request.contains("url") || !request["url"].is_string()) {
    return Status::Error(kInvalidRequest, "request needs a string \"url\"");
  }
  FetchRequest out;
  out.url = request["url"].get<std::string>();
  if (request.contains("extract")) {
    const nlohmann::json& extract = request["extract"];
    if (!extract.is_string() || (extract != "text" && extract != "markdown")) {
      return Status::Error(kInvalidRequest, "\"extract\" must be \"text\" or \"markdown\"");
    }
    out.extract = extract.get<std::string>();
  }
  return out;
}

std::string FetchAnswerLine(const FetchAnswer& answer) {
  const nlohmann::ordered_json value = std::holds_alternative<FetchedPage>(answer)
                                           ? PageJson(std::get<FetchedPage>(answer))
                                           : FailureJson(std::get<FetchFailure>(answer));
  return value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

Result<std::optional<FetchAnswer>> ParseFetchAnswer(std::string_view stdout_bytes) {
  // Whether there is an answer at all decides who explains a failure: the process or the answer.
  const nlohmann::json loose =
      nlohmann::json::parse(stdout_bytes, nullptr, /*allow_exceptions=*/false);
  if (!loose.is_object() || !loose.contains("ok") || !loose["ok"].is_boolean()) {
    return std::optional<FetchAnswer>();
  }
  Result<nlohmann::json> strict = ParseUniqueKeyJson(stdout_bytes, kAnswer, kFetchProcessFailed);
  if (!strict.ok()) return strict.status();
  Result<FetchAnswer> answer = loose["ok"].get<bool>() ? ReadPage(*strict) : ReadFailure(*strict);
  if (!answer.ok()) return answer.status();
  return std::optional<FetchAnswer>(std::move(answer).value());
}

}  // namespace pi_fusion::url

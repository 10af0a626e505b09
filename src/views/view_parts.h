// The small pieces the person's views and the agent's answers are built from: a JSON field's
// text, grouped digits, the short question of a header, the usage, request and estimate texts, the
// per-role usage lines, the shared-model note and an answer's collapsed preview.
//
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace pi_fusion::views {

// Collapsed answers show at most this many lines / bytes (cut at a line end).
inline constexpr size_t kPreviewMaxLines = 12;
inline constexpr size_t kPreviewMaxBytes = 1200;
// A short form of the question for headers.
inline constexpr size_t kQuestionMaxChars = 72;

// The string at `key` of a JSON object; "" when it is absent or not a string.
std::string StringAt(const nlohmann::json& object, const char* key);
// 14210 -> "14,210".
std::string Grouped(uint64_t n);

// The question cut to kQuestionMaxChars characters ("…" when cut), on one line.
std::string ShortQuestion(std::string_view description);
// "14,210 tokens · $0.0123" from a Pi Usage object ({} or null: "").
std::string UsageText(const nlohmann::json& usage);
// "8 model requests · " for a count (1: "1 model request · "), "" for anything else (a run
// recorded before requests were counted).
std::string RequestsPrefix(const nlohmann::json& model_requests);
// RequestsPrefix + UsageText: "8 model requests · 14,210 tokens · $0.0123"; "" without usage.
// With a completed run's `estimate` (result details; budget::EstimateSummaryJson), the bill is
// followed by what was estimated before the run: "… · $0.0008 · estimated $0.0011 expected (from
// earlier runs), $0.2447 worst case". Null or malformed: nothing is added.
std::string RequestsAndUsageText(const nlohmann::json& model_requests, const nlohmann::json& usage,
                                 const nlohmann::json& estimate = nullptr);
// "estimated $0.0011 expected (from earlier runs), $0.2447 worst case" (or "(a quarter of each
// output cap)", "(partly from earlier runs)"); "" for null or malformed.
std::string EstimateText(const nlohmann::json& estimate);
// "Candidate 1 (p/m): 2 model requests · 1,234 tokens · $0.0012" per row of
// store::UsageByRoleJson ("Evaluator", "Repair", "Merger" for the others).
std::vector<std::string> RoleUsageLines(const nlohmann::json& usage_by_role);
// config::SharedModelText of result details' `models` (`candidates`: three "provider/model"); ""
// when the candidates run on three models or the models cannot be read.
std::string SharedModelNote(const nlohmann::json& models);

// {preview, markdown, note}: the preview is the first lines of `markdown`, cut at a line end.
nlohmann::json AnswerView(const std::string& markdown, const std::string& note);

}  // namespace pi_fusion::views

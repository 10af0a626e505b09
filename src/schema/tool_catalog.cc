#include "schema/tool_catalog.h"

#include <cstdlib>
#include <map>

#include "schema/fusion_rules.h"

namespace pi_fusion::schema {
namespace {

constexpr char kBackground[] =
    " Runs as a tracked background task: the call returns a receipt with the task id and artifact "
    "directory at once; wait for the terminal notification (do not poll), then call "
    "bg_result({taskId}) once to get the verified answer (up to 49,152 bytes inline).";

constexpr char kWaitGuideline[] =
    "After a Fusion tool returns its receipt, do not poll bg_status or call bg_result early: "
    "continue other work or end your turn; the terminal notification arrives by itself, then call "
    "bg_result({taskId}) once.";

// Resuming reuses paid, verified answers, but it is the person's call (a slash command, no tool).
constexpr char kResumeGuideline[] =
    "When a failed or cancelled Fusion run says it is resumable, suggest /fusion-resume to the "
    "person rather than launching the run again yourself.";

std::vector<ToolSpec> BuildTools() {
  std::vector<ToolSpec> tools = {
      {"fusion_reason",
       "Fusion Reason",
       std::string("Answer a hard question with Fusion: three independent model candidates reason "
                   "in parallel over the current conversation (visible text only), a blind "
                   "evaluator compares their anonymized answers, and a merger writes one final "
                   "answer. No tools are used by the candidates.") +
           kBackground,
       Workflow::kReason,
       "fusion_reason: three independent candidates, a blind evaluator and a merger answer one "
       "hard "
       "question over the visible conversation (background task)",
       {"Use fusion_reason only for a hard question worth several model calls (design trade-offs, "
        "tricky reasoning); its candidates see the conversation's visible text, not tool results, "
        "and have no tools.",
        kWaitGuideline},
       "prompt"},
      {"fusion_investigate",
       "Fusion Investigate",
       std::string("Investigate the repository with Fusion: three candidates explore with "
                   "read-only file tools (read, grep, find, ls) from a clean task description, a "
                   "blind evaluator compares them and a merger writes the final answer. The "
                   "conversation is not passed along: put every needed fact in background.") +
           kBackground,
       Workflow::kInvestigate,
       "fusion_investigate: three read-only candidates (read, grep, find, ls) investigate this "
       "project from a self-contained task, then are evaluated blind and merged (background task)",
       {"Use fusion_investigate for repository questions that need independent, evidence-backed "
        "exploration; it does not see the conversation, so put every needed fact in background.",
        "While a fusion_investigate run is active, do not edit files in the project: its "
        "candidates read the live working tree.",
        kWaitGuideline},
       "objective"},
      {"fusion_research",
       "Fusion Research",
       std::string("Research with Fusion from caller-declared public URLs (targeted fetch, not web "
                   "search): three candidates read the repository and fetch only the declared "
                   "sources, a blind evaluator compares them and a merger writes the final "
                   "answer. Fetched pages are untrusted; never put secrets in URLs.") +
           kBackground,
       Workflow::kResearch,
       "fusion_research: three candidates read the project and fetch only the declared public "
       "URLs, then are evaluated blind and merged (background task)",
       {"Use fusion_research when an answer needs specific public web pages you can name; it "
        "fetches only the URLs in sources and never searches. Never put secrets in URLs.",
        kWaitGuideline},
       "objective",
       ApplySourceRules,
       nullptr,
       /*open_world=*/true},
      {"fusion_validate",
       "Fusion Validate",
       std::string("Review a change with Fusion: three read-only reviewers report findings with "
                   "severity, location and evidence against your acceptance criteria; a blind "
                   "evaluator accounts for every finding and a merger writes the validation "
                   "report. Advisory only: it never edits files or runs tests.") +
           kBackground,
       Workflow::kValidate,
       "fusion_validate: three read-only reviewers check a change against acceptance criteria; a "
       "blind evaluator accounts for every finding (background task)",
       {"Use fusion_validate for an advisory review of a finished change; it never edits files or "
        "runs tests, so report what verification you ran in verification.",
        kWaitGuideline},
       "objective",
       ApplyVerificationRules,
       kValidatePromptMigration},
      {"bg_result",
       "Background Result",
       "Get the result of a background task by id (or unambiguous prefix). For a completed Fusion "
       "run it re-verifies every artifact byte before returning the answer inline (up to 49,152 "
       "bytes; larger answers fail rather than truncate: use delivery \"artifact\"). For a running "
       "task it returns at once with state running; it never waits.",
       std::nullopt,
       "bg_result: the verified result of a finished background task",
       {"Call bg_result once per task, after its terminal notification; it never waits for a "
        "running task.",
        kResumeGuideline},
       "taskId"},
      {"bg_status",
       "Background Status",
       "List background tasks with their state (running, completed, failed, killed), or show one "
       "task by id. Returns at once.",
       std::nullopt,
       "bg_status: list background tasks and their states",
       {"Do not poll bg_status while a task runs; its terminal notification arrives by itself."},
       "taskId"},
      {"bg_kill",
       "Background Kill",
       "Cancel a running background task by id. Fusion runs stop every child process, record the "
       "cancellation durably and report it; waits up to 30 seconds for the run to settle.",
       std::nullopt,
       "bg_kill: cancel a running background task",
       {"Use bg_kill only when the user asks to stop a task or it is clearly no longer needed."},
       "taskId"},
  };
  return tools;
}

}  // namespace

nlohmann::json ToolAnnotations(const ToolSpec& tool) {
  const bool kill = tool.name == "bg_kill";
  return {{"readOnlyHint", !kill},
          {"destructiveHint", false},
          {"idempotentHint", !tool.workflow.has_value()},
          {"openWorldHint", tool.open_world}};
}

const std::vector<ToolSpec>& RegisteredTools() {
  static const std::vector<ToolSpec> tools = BuildTools();
  return tools;
}

const ToolSpec& FusionTool(Workflow workflow) {
  for (const ToolSpec& tool : RegisteredTools()) {
    if (tool.workflow == workflow) return tool;
  }
  std::abort();  // every workflow has its tool (tool_catalog_test)
}

std::string HeadlineOf(const ToolSpec& tool, const nlohmann::json& args) {
  if (!args.is_object()) return "";
  auto it = args.find(tool.headline);
  return it != args.end() && it->is_string() ? it->get<std::string>() : "";
}

const ToolSpec* FindTool(std::string_view name) {
  for (const ToolSpec& tool : RegisteredTools()) {
    if (tool.name == name) return &tool;
  }
  return nullptr;
}

std::vector<std::string> PackageToolNames() {
  std::vector<std::string> names;
  for (const ToolSpec& tool : RegisteredTools()) names.push_back(tool.name);
  names.insert(names.begin() + static_cast<long>(kAllWorkflows.size()), kRetiredToolName);
  return names;
}

const nlohmann::json* ToolParameters(std::string_view tool) {
  // Parsed once; the embedded bytes are the checked-in files, so a parse failure is a build bug
  // that the unit tests catch.
  static const std::map<std::string, nlohmann::json, std::less<>> parsed = [] {
    // Every registered tool, and the research candidates' fusion_web_fetch, which only children
    // register: a new workflow's tool row brings its schema along.
    std::vector<std::string> names = {"fusion_web_fetch"};
    for (const ToolSpec& tool : RegisteredTools()) names.push_back(tool.name);
    std::map<std::string, nlohmann::json, std::less<>> out;
    for (const std::string& name : names) {
      out[name] = nlohmann::json::parse(EmbeddedToolSchema(name + ".json"));
    }
    return out;
  }();
  auto it = parsed.find(tool);
  return it == parsed.end() ? nullptr : &it->second;
}

}  // namespace pi_fusion::schema

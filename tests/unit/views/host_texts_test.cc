// The exact words the host binding shows for the Fusion commands and for a failed tool call.
// The e2e suites see them through the real Pi; these pin them without one.
#include "views/host_texts.h"

#include <catch2/catch.hpp>

#include "core/error_codes.h"

using namespace pi_fusion;
using namespace pi_fusion::views;

TEST_CASE("command texts: descriptions, usage and mode errors", "[texts]") {
  CHECK(std::string(kFusionCommandDescription) ==
        "Answer a hard question with Fusion (three candidates, blind evaluator, merger) as a "
        "background task: /fusion <prompt>, /fusion @<panel> <prompt> for a named panel, or no "
        "argument to open an editor");
  CHECK(std::string(kFusionModelsCommandDescription) ==
        "Choose the models for Fusion's five slots (Candidate 1-3, Evaluator, Merger); TUI only");
  CHECK(std::string(kFusionUsageText) == "Usage: /fusion [@<panel>] <prompt>");
  CHECK(std::string(kFusionEditorTitle) == "Fusion prompt");
  CHECK(std::string(kModelsNeedTuiText) == "/fusion-models requires Pi TUI mode");
  CHECK(std::string(kModelsSelectorMissingText) ==
        "/fusion-models: the extension loader did not pass the selector's TUI module");
  CHECK(ModelsSavedText("/home/u/.pi/agent/fusion-models.json") ==
        "Saved Fusion's models to /home/u/.pi/agent/fusion-models.json");
  CHECK(ModelsNotSavedText("/home/u/.pi/agent/fusion-models.json") ==
        "Closed without saving: your changes to Fusion's models were discarded; "
        "/home/u/.pi/agent/fusion-models.json is unchanged");
}

TEST_CASE("tool error texts: message, then the code on its own line", "[texts]") {
  CHECK(ToolErrorText(Status::Error(kInvalidArguments, "prompt must not be blank")) ==
        "prompt must not be blank\n(error code: invalid_arguments)");
  CHECK(ErrorCodeLine(kInvalidArguments) == "\n(error code: invalid_arguments)");
  CHECK(std::string(kSessionShuttingDownText) == "the Pi session is shutting down");
  CHECK(InternalErrorText("fusion_reason") == "internal error while handling fusion_reason");
}

TEST_CASE("the run view's expand hint and the loader's misuse", "[texts]") {
  CHECK(std::string(kExpandHintText) == "to expand");
  CHECK(std::string(kRegisterNeedsPiText) ==
        "pi-fusion: register(pi, options) needs Pi's extension API");
}

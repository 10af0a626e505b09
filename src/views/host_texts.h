// The texts the host binding shows that belong to no run: the /fusion and /fusion-models command
// descriptions, usage and mode errors, the selector's notices, a failed tool call's text and the
// render hint. Spelled here so src/addon only converts values and dispatches, and unit tests pin
// the exact words. (A run's own texts: lifecycle_texts.h.)
//
// Constants and pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "pi_fusion/status.h"

namespace pi_fusion::views {

// The loader called register() without Pi's extension API (a broken loader, not a user error).
inline constexpr char kRegisterNeedsPiText[] =
    "pi-fusion: register(pi, options) needs Pi's extension API";

// registerCommand descriptions (Pi lists them in its command menu).
inline constexpr char kFusionCommandDescription[] =
    "Answer a hard question with Fusion (three candidates, blind evaluator, merger) as a "
    "background task: /fusion <prompt>, /fusion @<panel> <prompt> for a named panel, or no "
    "argument to open an editor";
inline constexpr char kFusionModelsCommandDescription[] =
    "Choose the models for Fusion's five slots (Candidate 1-3, Evaluator, Merger); TUI only";

inline constexpr char kFusionResumeCommandDescription[] =
    "Resume a failed, cancelled or host-ended Fusion run from its verified candidate answers as "
    "a new run: /fusion-resume <run id or prefix>, or no argument to pick one";
// The title of the picker /fusion-resume opens in the TUI.
inline constexpr char kResumePickerTitle[] = "Resume which Fusion run? (newest first)";

// /fusion without a prompt where no editor can be opened (print, json and RPC modes).
inline constexpr char kFusionUsageText[] = "Usage: /fusion [@<panel>] <prompt>";
// The title of the editor /fusion opens for its prompt in the TUI.
inline constexpr char kFusionEditorTitle[] = "Fusion prompt";

// /fusion-models outside the TUI: the selector is a TUI component.
inline constexpr char kModelsNeedTuiText[] = "/fusion-models requires Pi TUI mode";
// The loader did not hand the binding the selector's rendering module (an installation fault).
inline constexpr char kModelsSelectorMissingText[] =
    "/fusion-models: the extension loader did not pass the selector's TUI module";
// The selector saved fusion-models.json at `path`.
std::string ModelsSavedText(std::string_view path);
// The selector was closed with edits that were never saved.
std::string ModelsNotSavedText(std::string_view path);

// A fusion tool called while the session is shutting down (orchestration_failed).
inline constexpr char kSessionShuttingDownText[] = "the Pi session is shutting down";
// A library exception while handling `tool`; its own text may quote the model's arguments, so it
// is not repeated (orchestration_failed).
std::string InternalErrorText(std::string_view tool);

// A failed tool call's text for the model: the message, then the code on a line of its own.
std::string ToolErrorText(const Status& status);
// That last line, "\n(error code: <code>)", which every error text for the model ends with (a
// failed launch's too). Views drop it: the code is for the model, the rest for the person.
std::string ErrorCodeLine(std::string_view code);

// What a collapsed run view's key hint says its key does ("<key> to expand").
inline constexpr char kExpandHintText[] = "to expand";

}  // namespace pi_fusion::views

// `/fusion @<panel> <question>`: the named panel a person asks for in front of the question.
//
// Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace pi_fusion::run {

struct PanelArgument {
  std::string panel;   // empty: none named (the file's default panel, else its top-level cast)
  std::string prompt;  // the rest, trimmed; may be empty ("/fusion @fast" opens the editor)
};

// A first word "@<name>" whose name is a panel name (config::IsPanelName) names the panel; the
// question is what follows it. Anything else, such as "@src/main.cc explain this" (Pi's file
// mention), is all question.
PanelArgument SplitPanelArgument(std::string_view text);

}  // namespace pi_fusion::run

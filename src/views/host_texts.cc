#include "views/host_texts.h"

namespace pi_fusion::views {

std::string ModelsSavedText(std::string_view path) {
  return "Saved Fusion's models to " + std::string(path);
}

std::string ModelsNotSavedText(std::string_view path) {
  return "Closed without saving: your changes to Fusion's models were discarded; " +
         std::string(path) + " is unchanged";
}

std::string InternalErrorText(std::string_view tool) {
  return "internal error while handling " + std::string(tool);
}

std::string ToolErrorText(const Status& status) {
  return status.message() + ErrorCodeLine(status.code());
}

std::string ErrorCodeLine(std::string_view code) {
  return "\n(error code: " + std::string(code) + ")";
}

}  // namespace pi_fusion::views

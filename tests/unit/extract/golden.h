// Golden-file helpers for the extract tests. Expected outputs live in golden/ beside this file;
// set PI_FUSION_UPDATE_GOLDENS=1 to rewrite them from the current output (then review the diff).
#pragma once

#include <string>

namespace pi_fusion::extract::testing {

std::string GoldenDir();
std::string ReadFile(const std::string& path);
bool FileExists(const std::string& path);

// Compares `actual` plus a final newline with golden/<file> exactly, or rewrites the file when
// PI_FUSION_UPDATE_GOLDENS is set.
void CheckGolden(const std::string& file, const std::string& actual);

}  // namespace pi_fusion::extract::testing

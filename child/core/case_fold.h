// FoldName: a file name as a case-insensitive file system compares it, so that the walls can
// match protected names however a lookup spelled them.
//
// A project may live on a file system that finds `.env` when asked for `.ENV` (WSL2's /mnt/c,
// CIFS `nocase`, vfat/exFAT drives, ext4/f2fs casefold directories). The kernel then reports the
// opened path as it was spelled, so protected names are compared after folding both sides:
//   - Unicode full case folding (CaseFolding.txt status C and F, the generated table
//     case_fold_table.inc): `.ENV` -> `.env`, `ſ` (U+017F) -> `s`, Kelvin sign (U+212A) -> `k`,
//     `ß` -> `ss`, `ﬅ` -> `st`;
//   - dotless `ı` (U+0131) -> `i`, which Windows and exFAT upcase tables match to `I`;
//   - trailing dots and spaces dropped, which vfat and Windows ignore in a lookup (`.env.`).
// Not applied: Unicode normalization (ext4 casefold also equates NFC and NFD spellings); it
// changes no ASCII name, and every built-in protected name is ASCII.
//
// Bytes that are not valid UTF-8 are kept as they are. Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace pi_fusion::child {

std::string FoldName(std::string_view utf8);

}  // namespace pi_fusion::child

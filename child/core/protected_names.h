// The protected names: the one table of places a candidate's file tools never open, whatever
// directory they are in, and of the files they show only with secrets redacted.
//
// A row is a path of one or more components ("/"-separated). A project path is protected when
// its components, folded as case-insensitive file systems fold them (case_fold.h), hold the row's
// folded components consecutively at any depth: `.ssh` protects `.ssh`, `x/.SSH/id_rsa` and
// `.ſſh`; `.config/gh/hosts.yml` protects `home/.config/gh/hosts.yml`. Env files follow a rule
// (IsEnvFileName) rather than rows.
//
// The set is extensible, never shrinkable: rows added by the user's and the project's settings
// (protected_places.h) are matched the same way, after the built-in ones.
//
// Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pi_fusion::child {

struct ProtectedRow {
  std::string_view path;  // lower-case components, "/"-separated
  std::string_view what;  // whose secret it is, for the refusal text and the docs
};

// The built-in rows (docs/tools/fusion_investigate.md lists them for users).
const std::vector<ProtectedRow>& BuiltInProtectedRows();

// `.env`, `.env.*`, `.env-*`, `.env_*` and `*.env` (a folded name), except names ending in
// `.example`, `.sample` or `.template`, which are documentation.
bool IsEnvFileName(std::string_view folded);

// The non-empty "/"-separated components of `path`, as they are (views into it).
std::vector<std::string_view> PathComponents(std::string_view path);

// `path` ("/"-separated, no "." or ".." parts) as its folded components.
std::vector<std::string> FoldedComponents(std::string_view path);

// The first built-in row, env rule or `extra_rows` entry that `folded` (FoldedComponents) holds,
// as the text a refusal names; nullopt when none does.
std::optional<std::string> MatchProtectedName(const std::vector<std::string>& folded,
                                              const std::vector<std::string>& extra_rows);

// True when the file at `folded` is one whose URLs may carry credentials and which candidates
// read with every URL's userinfo redacted (RedactUrlUserinfo, secret_content.h): `.git/config`
// and every `config` or `config.worktree` under a `.git` directory, `.gitmodules`, `.hg/hgrc`.
bool IsRedactedFile(const std::vector<std::string>& folded);

// The built-in rows as ripgrep/fd exclusion globs ("**/<row>"), env files included by their
// plain name only: a walk then does not even enter them. The filter stays the wall.
std::vector<std::string> ProtectedGlobs();

}  // namespace pi_fusion::child

#include "child/core/protected_names.h"

#include "child/core/case_fold.h"

namespace pi_fusion::child {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// Whether `folded` holds the folded components of `row` consecutively.
bool Holds(const std::vector<std::string>& folded, const std::vector<std::string>& row) {
  if (row.empty() || row.size() > folded.size()) return false;
  for (size_t i = 0; i + row.size() <= folded.size(); ++i) {
    bool all = true;
    for (size_t k = 0; k < row.size() && all; ++k) all = folded[i + k] == row[k];
    if (all) return true;
  }
  return false;
}

}  // namespace

const std::vector<ProtectedRow>& BuiltInProtectedRows() {
  // Sources: each tool's documentation of where it keeps credentials, history or keys, and the
  // findings of an attack run against the candidates' walls (credentials readable off the list).
  static const std::vector<ProtectedRow> kRows = {
      // Pi itself: Fusion's run store (earlier runs, sibling answers) and Pi's agent directory.
      {".pi/fusion", "Fusion's run store"},
      {".pi/agent", "Pi's agent directory"},
      // SSH, GnuPG, cloud CLIs, Kubernetes, Docker.
      {".ssh", "SSH keys"},
      {".gnupg", "GnuPG keys"},
      {".aws", "AWS CLI credentials"},
      {".azure", "Azure CLI credentials"},
      {".config/gcloud", "Google Cloud SDK credentials"},
      {".kube", "Kubernetes credentials"},
      {".docker/config.json", "Docker registry credentials"},
      {".oci", "Oracle Cloud CLI credentials"},
      {".s3cfg", "s3cmd credentials"},
      {".boto", "boto credentials"},
      {".config/rclone/rclone.conf", "rclone credentials"},
      {".config/doctl", "DigitalOcean CLI credentials"},
      // Package registries and build tools.
      {".netrc", "netrc credentials"},
      {".npmrc", "npm credentials"},
      {".pypirc", "PyPI credentials"},
      {".cargo/credentials", "Cargo credentials"},
      {".cargo/credentials.toml", "Cargo credentials"},
      {".gem/credentials", "RubyGems credentials"},
      {".m2/settings.xml", "Maven credentials"},
      {".m2/settings-security.xml", "Maven credentials"},
      {".gradle/gradle.properties", "Gradle credentials"},
      {".terraformrc", "Terraform credentials"},
      {".terraform.d/credentials.tfrc.json", "Terraform credentials"},
      {".vault-token", "Vault token"},
      // Git, GitHub, forges.
      {".git-credentials", "git credential store"},
      {".config/git/credentials", "git credential store"},
      {".config/gh/hosts.yml", "GitHub CLI token"},
      {".config/hub", "hub token"},
      {".config/github-copilot", "GitHub Copilot token"},
      // Other coding agents.
      {".claude/.credentials.json", "Claude Code credentials"},
      {".codex/auth.json", "Codex CLI credentials"},
      {".gemini/oauth_creds.json", "Gemini CLI credentials"},
      // Environment files (plus the env-file rule, IsEnvFileName).
      {".envrc", "direnv environment"},
      // Databases.
      {".pgpass", "PostgreSQL passwords"},
      {".my.cnf", "MySQL credentials"},
      {".mylogin.cnf", "MySQL credentials"},
      // Keyrings and password stores.
      {".local/share/keyrings", "GNOME keyring"},
      {".local/share/kwalletd", "KDE wallet"},
      {".kde/share/apps/kwallet", "KDE wallet"},
      {".password-store", "pass password store"},
      {".config/op", "1Password CLI"},
      // Browsers: Firefox profiles (saved logins and their key).
      {"logins.json", "Firefox saved logins"},
      {"key4.db", "Firefox login key"},
      {"key3.db", "Firefox login key"},
      {"signons.sqlite", "Firefox saved logins"},
      // Private keys by their usual names (content is checked everywhere too).
      {"id_rsa", "an SSH private key"},
      {"id_dsa", "an SSH private key"},
      {"id_ecdsa", "an SSH private key"},
      {"id_ed25519", "an SSH private key"},
      // Shell and REPL histories (typed secrets).
      {".bash_history", "shell history"},
      {".zsh_history", "shell history"},
      {".histfile", "shell history"},
      {".local/share/fish/fish_history", "shell history"},
      {".python_history", "REPL history"},
      {".node_repl_history", "REPL history"},
      {".psql_history", "database client history"},
      {".mysql_history", "database client history"},
      {".sqlite_history", "database client history"},
  };
  return kRows;
}

bool IsEnvFileName(std::string_view name) {
  if (EndsWith(name, ".example") || EndsWith(name, ".sample") || EndsWith(name, ".template")) {
    return false;
  }
  return name == ".env" || StartsWith(name, ".env.") || StartsWith(name, ".env-") ||
         StartsWith(name, ".env_") || (name.size() > 4 && EndsWith(name, ".env"));
}

std::vector<std::string_view> PathComponents(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t i = 0;
  while (i <= path.size()) {
    size_t end = path.find('/', i);
    if (end == std::string_view::npos) end = path.size();
    if (end > i) parts.push_back(path.substr(i, end - i));
    i = end + 1;
  }
  return parts;
}

std::vector<std::string> FoldedComponents(std::string_view path) {
  std::vector<std::string> out;
  for (std::string_view part : PathComponents(path)) out.push_back(FoldName(part));
  return out;
}

std::optional<std::string> MatchProtectedName(const std::vector<std::string>& folded,
                                              const std::vector<std::string>& extra_rows) {
  // The built-in rows folded once (they are lower-case ASCII, so folding keeps them as written).
  static const std::vector<std::vector<std::string>> kFoldedRows = [] {
    std::vector<std::vector<std::string>> rows;
    for (const ProtectedRow& row : BuiltInProtectedRows())
      rows.push_back(FoldedComponents(row.path));
    return rows;
  }();
  const std::vector<ProtectedRow>& rows = BuiltInProtectedRows();
  for (size_t i = 0; i < rows.size(); ++i) {
    if (Holds(folded, kFoldedRows[i])) {
      return std::string(rows[i].path) + ": " + std::string(rows[i].what);
    }
  }
  for (const std::string& name : folded) {
    if (IsEnvFileName(name)) return name + ": an environment file";
  }
  for (const std::string& row : extra_rows) {
    if (Holds(folded, FoldedComponents(row))) return row + ": protected by a setting";
  }
  return std::nullopt;
}

bool IsRedactedFile(const std::vector<std::string>& folded) {
  if (folded.empty()) return false;
  const std::string& last = folded.back();
  if (last == ".gitmodules") return true;
  if (folded.size() >= 2 && folded[folded.size() - 2] == ".hg" && last == "hgrc") return true;
  if (last != "config" && last != "config.worktree") return false;
  for (size_t i = 0; i + 1 < folded.size(); ++i) {
    if (folded[i] == ".git") return true;
  }
  return false;
}

std::vector<std::string> ProtectedGlobs() {
  std::vector<std::string> globs;
  for (const ProtectedRow& row : BuiltInProtectedRows()) {
    globs.push_back("**/" + std::string(row.path));
  }
  globs.push_back("**/.env");
  return globs;
}

}  // namespace pi_fusion::child

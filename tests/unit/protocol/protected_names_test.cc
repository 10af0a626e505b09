// The pure half of the protected set: name folding, the credential table, key content, URL
// userinfo redaction, git objects, and the rows settings add.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "child/core/case_fold.h"
#include "child/core/protected_names.h"
#include "child/core/protected_places.h"
#include "child/core/secret_content.h"
#include "core/file_system.h"

namespace pi_fusion::child {
namespace {

std::optional<std::string> Match(std::string_view path, std::vector<std::string> extra = {}) {
  return MatchProtectedName(FoldedComponents(path), extra);
}

TEST_CASE("FoldName: full case folding as case-insensitive file systems fold names") {
  CHECK(FoldName(".ENV") == ".env");
  CHECK(FoldName(".SSH") == ".ssh");
  CHECK(FoldName(".\u017F\u017Fh") == ".ssh");                     // long s
  CHECK(FoldName(".\u212Aube") == ".kube");                        // Kelvin sign
  CHECK(FoldName("Stra\u00DFe") == "strasse");                     // sharp s folds to two letters
  CHECK(FoldName("\u1E9E") == "ss");                               // capital sharp s
  CHECK(FoldName("\uFB05") == "st");                               // ligature long s t
  CHECK(FoldName(".G\u0131t-Credentials") == ".git-credentials");  // dotless i (upcase tables)
  CHECK(FoldName("\u00C5") == "\u00E5");                           // non-ASCII stays non-ASCII
  CHECK(FoldName(".env.") == ".env");  // vfat and Windows ignore trailing dots
  CHECK(FoldName(".ssh  ") == ".ssh");
  CHECK(FoldName("src") == "src");
  CHECK(FoldName(std::string("a\xff\xfe", 3)) == std::string("a\xff\xfe", 3));  // not UTF-8: kept
  CHECK(FoldName("\xC0\xAE") == "\xC0\xAE");  // an overlong "." is not a dot
}

TEST_CASE("MatchProtectedName: every credential file of the table, at any depth, folded") {
  for (const char* p : {".ssh/id_rsa",
                        "x/.SSH/id_rsa",
                        ".\u017F\u017Fh/id_rsa",
                        ".AWS/credentials",
                        ".\u212Aube/config",
                        ".Git-Credentials",
                        ".DOCKER/config.json",
                        ".git-credentials",
                        ".envrc",
                        ".env-prod",
                        ".env_staging",
                        "prod.env",
                        "deploy/PROD.ENV",
                        ".env.local",
                        ".claude/.credentials.json",
                        "home/.codex/auth.json",
                        ".config/gh/hosts.yml",
                        ".cargo/credentials.toml",
                        ".cargo/credentials",
                        ".vault-token",
                        ".config/git/credentials",
                        ".local/share/keyrings/login.keyring",
                        ".mozilla/firefox/abc.default/logins.json",
                        "profile/key4.db",
                        ".pgpass",
                        ".my.cnf",
                        ".terraformrc",
                        ".bash_history",
                        ".zsh_history",
                        "config/id_rsa",
                        ".pypirc",
                        ".netrc",
                        ".npmrc",
                        ".gnupg/pubring.kbx",
                        ".config/gcloud/x",
                        ".m2/settings.xml",
                        ".gem/credentials",
                        ".password-store/a.gpg",
                        ".pi/agent/auth.json",
                        ".pi/fusion/x"}) {
    INFO(p);
    CHECK(Match(p));
  }
  for (const char* p : {"src/a.c", ".env.example", "prod.env.sample", ".env.template", "env",
                        "environment.ts", ".config/other", ".docker/other.json", "logins.js",
                        ".cargo/config.toml", ".pi/settings.json", ".ssh-notes", "README.md"}) {
    INFO(p);
    CHECK_FALSE(Match(p));
  }
  CHECK(*Match(".pgpass") == ".pgpass: PostgreSQL passwords");
}

TEST_CASE("MatchProtectedName: rows added by settings only add, folded like the table") {
  CHECK_FALSE(Match("secrets/prod.yaml"));
  CHECK(Match("secrets/prod.yaml", {"secrets"}));
  CHECK(Match("deploy/SECRETS/prod.yaml", {"secrets"}));
  CHECK(Match("a/vault/keys.txt", {"vault/keys.txt"}));
  CHECK_FALSE(Match("a/vault/other.txt", {"vault/keys.txt"}));
  CHECK(Match(".ssh/id", {"anything"}));  // the built-in rows still hold
}

TEST_CASE("ParseProtectedRows: names and relative paths; comments, blanks and escapes skipped") {
  const auto rows = ParseProtectedRows(
      "# ours\n secrets \n\nvault/keys.txt\r\n/etc/passwd\n../up\na/./b\nok/x\n#x\n");
  CHECK(rows == std::vector<std::string>{"secrets", "vault/keys.txt", "ok/x"});
}

TEST_CASE("IsRedactedFile: git and hg configs, whatever their case") {
  for (const char* p : {".git/config", "sub/.git/config", ".GIT/CONFIG", ".git/modules/m/config",
                        ".git/worktrees/w/config.worktree", ".gitmodules", ".hg/hgrc"}) {
    INFO(p);
    CHECK(IsRedactedFile(FoldedComponents(p)));
  }
  for (const char* p : {"config", "src/config", ".git/HEAD", ".gitignore", "hgrc"}) {
    INFO(p);
    CHECK_FALSE(IsRedactedFile(FoldedComponents(p)));
  }
}

TEST_CASE("HoldsPrivateKey: PEM, OpenSSH, PGP and PuTTY private keys, not public material") {
  const std::string begin = "-----BEGIN ";
  for (const std::string& head :
       {begin + "OPENSSH PRIVATE KEY-----\nb3Blbn...", begin + "RSA PRIVATE KEY-----\n",
        begin + "EC PRIVATE KEY-----\n", begin + "PRIVATE KEY-----\n",
        begin + "ENCRYPTED PRIVATE KEY-----\n", begin + "PGP PRIVATE KEY BLOCK-----\n",
        "\n\n  " + begin + "DSA PRIVATE KEY-----\n",
        "{\"type\": \"service_account\", \"private_key\": \"" + begin + "PRIVATE KEY-----\\nMII",
        std::string("PuTTY-User-Key-File-3: ssh-ed25519\n")}) {
    INFO(head);
    CHECK(HoldsPrivateKey(head));
  }
  for (const std::string& head :
       {begin + "PUBLIC KEY-----\n", begin + "CERTIFICATE-----\n",
        std::string("ssh-ed25519 AAAA user@host\n"), std::string("the private key is elsewhere"),
        begin + "… PRIVATE KEY-----", std::string("# BEGIN PRIVATE KEY handling")}) {
    INFO(head);
    CHECK_FALSE(HoldsPrivateKey(head));
  }
}

TEST_CASE("RedactUrlUserinfo: the userinfo of every URL, nothing else") {
  CHECK(RedactUrlUserinfo("url = https://user:TOKEN@github.com/o/r.git") ==
        "url = https://***@github.com/o/r.git");
  CHECK(RedactUrlUserinfo("a https://ghp_x@h/p b ssh://git:pw@h2:22/r c") ==
        "a https://***@h/p b ssh://***@h2:22/r c");
  CHECK(RedactUrlUserinfo("https://u:p@ss@host/x") == "https://***@host/x");
  CHECK(RedactUrlUserinfo("[url \"https://tok@h/\"]\n\tinsteadOf = https://h/") ==
        "[url \"https://***@h/\"]\n\tinsteadOf = https://h/");
  CHECK(RedactUrlUserinfo("https://host/path@v1") == "https://host/path@v1");
  CHECK(RedactUrlUserinfo("git@github.com:o/r.git") == "git@github.com:o/r.git");
  CHECK(RedactUrlUserinfo("mail me@x.org ://@") == "mail me@x.org ://@");
  CHECK(RedactUrlUserinfo("") == "");
}

TEST_CASE("LooksLikeGitObject: zlib streams and git's binary formats only") {
  CHECK(LooksLikeGitObject(std::string("\x78\x01\x2b\x29", 4)));
  CHECK(LooksLikeGitObject(std::string("\x78\x9c\x2b\x29", 4)));
  CHECK(LooksLikeGitObject("PACK\0\0\0\2"));
  CHECK(LooksLikeGitObject(std::string("\377tOc\0\0\0\2", 8)));
  CHECK_FALSE(LooksLikeGitObject("AWS_SECRET=abc"));
  CHECK_FALSE(LooksLikeGitObject("x"));
}

TEST_CASE("ResolveWallPlaces: every way Pi learns a session directory, and the added rows") {
  namespace fs = std::filesystem;
  std::string pattern = (fs::temp_directory_path() / "places-XXXXXX").string();
  const std::string root = ::mkdtemp(pattern.data());
  const std::string project = root + "/project", agent = root + "/agent", home = root + "/home";
  fs::create_directories(project + "/.pi");
  fs::create_directories(agent);
  std::ofstream(project + "/.pi/settings.json") << R"({"sessionDir": ".pi/sessions"})";
  std::ofstream(agent + "/settings.json") << R"({"sessionDir": "~/pi-sessions"})";
  std::ofstream(agent + "/fusion-protected") << "# mine\nsecrets\n";
  std::ofstream(project + "/.pi/fusion-protected") << "vault/keys.txt\n../escape\n";
  const EnvLookup lookup = [](std::string_view name) -> std::optional<std::string> {
    if (name == "PI_FUSION_SESSION_DIR") return std::string("/parent/sessions");
    if (name == "PI_CODING_AGENT_SESSION_DIR") return std::string("~/env-sessions");
    return std::nullopt;
  };
  const WallPlaces places = ResolveWallPlaces(lookup, PosixFileSystem(), project, agent, home);
  CHECK(places.agent_dir == agent);
  CHECK(places.home == home);
  CHECK(places.session_dirs == std::vector<std::string>{"/parent/sessions", home + "/env-sessions",
                                                        project + "/.pi/sessions",
                                                        home + "/pi-sessions",
                                                        agent + "/sessions"});
  CHECK(places.extra_rows == std::vector<std::string>{"secrets", "vault/keys.txt"});
  fs::remove_all(root);
}

}  // namespace
}  // namespace pi_fusion::child

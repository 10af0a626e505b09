// The /fusion-models selector state machine, driven key by key against a real config file in a
// temp dir.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/selector.h"
#include "core/file_system.h"
#include "temp_dir.h"

namespace pi_fusion::config {
namespace {

ModelInfo Local(std::string provider, std::string id, int64_t window = 65536) {
  ModelInfo m;
  m.provider = std::move(provider);
  m.id = std::move(id);
  m.name = m.id;
  m.api = "openai-completions";
  m.base_url = "http://127.0.0.1:8080/v1";
  m.context_window = window;
  return m;
}

ModelInfo OpenAiKey() {
  ModelInfo m = Local("openai", "gpt-4o");
  m.name = "GPT-4o";
  m.base_url = "https://api.openai.com/v1";
  return m;
}

// Deliberately unsorted: the list sorts by provider/model.
RegistrySnapshot Registry(bool with_current = true) {
  RegistrySnapshot r;
  r.models = {Local("scripted", "scripted-b"), OpenAiKey(), Local("scripted", "scripted-a"),
              Local("alpha", "tiny", 0)};
  if (with_current) r.current = Local("scripted", "scripted-a");
  r.thinking_level = "high";
  return r;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void Spit(const std::string& path, const std::string& bytes) { std::ofstream(path) << bytes; }

std::vector<std::string> Texts(const Selector& selector) {
  std::vector<std::string> out;
  for (const SelectorLine& line : selector.Render()) out.push_back(line.text);
  return out;
}

bool Shows(const Selector& selector, std::string_view needle) {
  const std::vector<std::string> texts = Texts(selector);
  return std::any_of(texts.begin(), texts.end(),
                     [&](const std::string& t) { return t.find(needle) != std::string::npos; });
}

// The model rows of the list view, in order, without the cursor marker or details.
std::vector<std::string> ListRows(const Selector& selector) {
  std::vector<std::string> rows;
  const std::vector<std::string> texts = Texts(selector);
  for (size_t i = 2; i < texts.size() && !texts[i].empty(); ++i) {
    if (texts[i].rfind("  ↑", 0) == 0 || texts[i].rfind("  ↓", 0) == 0) continue;
    const std::string row = texts[i].substr(2);
    rows.push_back(row.substr(0, row.find("  ")));
  }
  return rows;
}

void Type(Selector& selector, std::string_view text) {
  selector.HandleKey(SelectorKey::kText, text);
}

struct Fixture {
  TempDir dir;
  ConfigStore store{dir.path() + "/agent", PosixFileSystem(), SystemClock()};
};

TEST_CASE("Selector: five slots, the absolute path and $current for a missing file") {
  Fixture f;
  Selector selector(f.store, Registry());
  const std::vector<std::string> texts = Texts(selector);
  CHECK(texts[0] == "Fusion models: " + f.dir.path() + "/agent/fusion-models.json");
  CHECK(Shows(selector, "> Candidate 1  $current (scripted/scripted-a)"));
  for (const char* label : {"  Candidate 2", "  Candidate 3", "  Evaluator", "  Merger"}) {
    CHECK(Shows(selector, std::string(label)));
  }
  CHECK(Shows(selector, "s save and close"));
  CHECK(selector.outcome() == SelectorOutcome::kOpen);
}

TEST_CASE("Selector: Esc and q close without writing") {
  Fixture f;
  for (bool escape : {true, false}) {
    Selector selector(f.store, Registry());
    selector.HandleKey(SelectorKey::kEnter);
    Type(selector, "scripted-b");
    selector.HandleKey(SelectorKey::kEnter);  // a pick in the working copy only
    CHECK(selector.config().candidates[0] != "$current");
    CHECK(selector.HasUnsavedChanges());
    if (escape) {
      CHECK(selector.HandleKey(SelectorKey::kEscape) == SelectorOutcome::kClosed);
    } else {
      Type(selector, "q");
      CHECK(selector.outcome() == SelectorOutcome::kClosed);
    }
    CHECK_FALSE(std::filesystem::exists(f.store.path()));
    CHECK_FALSE(std::filesystem::exists(f.dir.path() + "/agent"));
  }
}

TEST_CASE("Selector: the list order is $current, available sorted, then configured-unavailable") {
  Fixture f;
  ModelsConfig config;
  config.candidates[1] = "gone/model-x";
  config.merger = "alpha/tiny";
  REQUIRE(f.store.Save(config, f.store.Load()->revision).ok());
  Selector selector(f.store, Registry());
  CHECK(Shows(selector, "unavailable: gone/model-x is not available in Pi's model registry"));
  selector.HandleKey(SelectorKey::kEnter);
  CHECK(ListRows(selector) == std::vector<std::string>{"$current", "alpha/tiny", "openai/gpt-4o",
                                                       "scripted/scripted-a", "scripted/scripted-b",
                                                       "gone/model-x"});
  CHECK(Shows(selector, "  gone/model-x  [unavailable]"));
  CHECK(Shows(selector, "  openai/gpt-4o  GPT-4o  [refused]"));
  CHECK(Shows(selector, "  alpha/tiny  [refused]"));
}

TEST_CASE("Selector: picking a model and s writes a valid v1 file") {
  Fixture f;
  Selector selector(f.store, Registry());
  selector.HandleKey(SelectorKey::kDown);   // Candidate 2
  selector.HandleKey(SelectorKey::kEnter);  // list, cursor on $current
  Type(selector, "scripted-b");
  CHECK(ListRows(selector) == std::vector<std::string>{"scripted/scripted-b"});
  selector.HandleKey(SelectorKey::kEnter);
  CHECK(Shows(selector, "> Candidate 2  scripted/scripted-b"));
  CHECK(selector.HandleKey(SelectorKey::kText, "s") == SelectorOutcome::kSaved);
  ModelsConfig expected;
  expected.candidates[1] = "scripted/scripted-b";
  CHECK(Slurp(f.store.path()) == *SerializeModelsConfig(expected));
  REQUIRE(f.store.Load().ok());
  CHECK(f.store.Load()->config == expected);
  // A closed selector ignores further keys.
  CHECK(selector.HandleKey(SelectorKey::kText, "q") == SelectorOutcome::kSaved);
}

TEST_CASE("Selector: saving the top-level cast keeps the file's named panels") {
  Fixture f;
  ModelsConfig config;
  Panel fast{{"scripted/scripted-b", "scripted/scripted-b", "scripted/scripted-b"},
             "scripted/scripted-a",
             "scripted/scripted-a",
             {"low", std::nullopt, "high"},
             std::nullopt};
  config.panels["fast"] = fast;
  config.default_panel = "fast";
  REQUIRE(f.store.Save(config, f.store.Load()->revision).ok());
  Selector selector(f.store, Registry());
  selector.HandleKey(SelectorKey::kDown);   // Candidate 2
  selector.HandleKey(SelectorKey::kEnter);  // list, cursor on $current
  Type(selector, "scripted-b");
  selector.HandleKey(SelectorKey::kEnter);
  CHECK(selector.HandleKey(SelectorKey::kText, "s") == SelectorOutcome::kSaved);
  ModelsConfig expected = config;
  expected.candidates[1] = "scripted/scripted-b";
  REQUIRE(f.store.Load().ok());
  CHECK(f.store.Load()->config == expected);
  CHECK(Slurp(f.store.path()).find("fusion-models.v3") != std::string::npos);
}

TEST_CASE("Selector: a refused or unavailable model cannot be picked") {
  Fixture f;
  ModelsConfig config;
  config.evaluator = "gone/model-x";
  REQUIRE(f.store.Save(config, f.store.Load()->revision).ok());
  const std::string before = Slurp(f.store.path());
  Selector selector(f.store, Registry());
  selector.HandleKey(SelectorKey::kEnter);
  Type(selector, "GPT");  // filter is case-insensitive and matches the name too
  CHECK(ListRows(selector) == std::vector<std::string>{"openai/gpt-4o"});
  CHECK(Shows(selector, "openai/gpt-4o uses an OpenAI API key (metered;"));
  selector.HandleKey(SelectorKey::kEnter);
  CHECK(Shows(selector, "Cannot pick openai/gpt-4o: it uses an OpenAI API key"));
  CHECK(Shows(selector, "Filter: GPT_"));  // still in the list
  selector.HandleKey(SelectorKey::kEscape);
  CHECK(selector.config().candidates[0] == "$current");
  selector.HandleKey(SelectorKey::kEnter);
  Type(selector, "model-x");
  selector.HandleKey(SelectorKey::kEnter);
  CHECK(Shows(selector, "Cannot pick gone/model-x: it is not available"));
  selector.HandleKey(SelectorKey::kEscape);
  CHECK(selector.config().candidates[0] == "$current");
  Type(selector, "q");
  CHECK(Slurp(f.store.path()) == before);
}

TEST_CASE("Selector: filter editing, Backspace by code point, control text ignored") {
  Fixture f;
  Selector selector(f.store, Registry());
  selector.HandleKey(SelectorKey::kEnter);
  Type(selector, "zz\xC3\xA9");
  CHECK(Shows(selector, "(no model matches the filter)"));
  selector.HandleKey(SelectorKey::kBackspace);
  CHECK(Shows(selector, "Filter: zz_"));
  selector.HandleKey(SelectorKey::kBackspace);
  selector.HandleKey(SelectorKey::kBackspace);
  Type(selector, "\x1b[A");
  CHECK(Shows(selector, "Filter: _"));
  CHECK(ListRows(selector).size() == 5);
  selector.HandleKey(SelectorKey::kEnter);  // the cursor starts on the slot's choice: $current
  CHECK(selector.config().candidates[0] == "$current");
}

TEST_CASE("Selector: r resets the focused slot to $current") {
  Fixture f;
  ModelsConfig config;
  config.merger = "scripted/scripted-b";
  REQUIRE(f.store.Save(config, f.store.Load()->revision).ok());
  Selector selector(f.store, Registry());
  selector.HandleKey(SelectorKey::kUp);  // wraps to the last policy row, Keep warm
  CHECK(Shows(selector, "> Keep warm    off: every candidate starts a new Pi process"));
  // Stall, Cost cap, Grace, Quorum, Merger
  for (int i = 0; i < 5; ++i) selector.HandleKey(SelectorKey::kUp);
  CHECK(Shows(selector, "> Merger       scripted/scripted-b"));
  Type(selector, "r");
  CHECK(selector.config().merger == "$current");
  CHECK(Shows(selector, "Merger reset to $current."));
}

TEST_CASE("Selector: topology notes") {
  Fixture f;
  Selector selector(f.store, Registry());
  CHECK(Shows(selector, "Five slots, one model: no diversity (scripted/scripted-a)."));
  CHECK(Shows(selector,
              "All three candidates run on one model (scripted/scripted-a), so their "
              "agreement is weaker evidence"));
  CHECK(Shows(selector,
              "Evaluator uses the same model as Candidates 1, 2, 3 (scripted/scripted-a): "
              "self-preference risk."));
  // Candidate 2 explicitly on the current model still counts as the same model.
  selector.HandleKey(SelectorKey::kDown);
  selector.HandleKey(SelectorKey::kDown);
  selector.HandleKey(SelectorKey::kEnter);
  Type(selector, "scripted-b");
  selector.HandleKey(SelectorKey::kEnter);  // Candidate 3 = scripted-b
  CHECK_FALSE(Shows(selector, "Five slots, one model"));
  CHECK_FALSE(Shows(selector, "All three candidates run on one model"));
  CHECK(Shows(selector,
              "Candidates 1 and 2 run on one model (scripted/scripted-a), so their agreement"));
  CHECK(Shows(selector, "Merger uses the same model as Candidates 1, 2 (scripted/scripted-a)"));
  for (int i = 0; i < 2; ++i) selector.HandleKey(SelectorKey::kDown);  // Merger
  selector.HandleKey(SelectorKey::kEnter);
  Type(selector, "scripted-b");
  selector.HandleKey(SelectorKey::kEnter);
  CHECK(Shows(selector, "Merger uses the same model as Candidate 3 (scripted/scripted-b)"));
  selector.HandleKey(SelectorKey::kUp);  // Evaluator
  selector.HandleKey(SelectorKey::kEnter);
  Type(selector, "alpha");  // refused: cannot be picked, so no note changes
  selector.HandleKey(SelectorKey::kEnter);
  selector.HandleKey(SelectorKey::kEscape);
  CHECK(Shows(selector, "Evaluator uses the same model as Candidates 1, 2"));
}

TEST_CASE("Selector: a file changed behind the selector is not overwritten") {
  Fixture f;
  Selector selector(f.store, Registry());
  ModelsConfig theirs;
  theirs.evaluator = "scripted/scripted-b";
  REQUIRE(f.store.Save(theirs, f.store.Load()->revision).ok());
  const std::string on_disk = Slurp(f.store.path());
  selector.HandleKey(SelectorKey::kEnter);
  Type(selector, "scripted-b");
  selector.HandleKey(SelectorKey::kEnter);
  CHECK(selector.config().candidates[0] == "scripted/scripted-b");
  CHECK(selector.HandleKey(SelectorKey::kText, "s") == SelectorOutcome::kOpen);
  CHECK(Shows(selector, "Conflict, nothing was written: Cannot save " + f.store.path() +
                            ": the file changed since /fusion-models loaded it"));
  CHECK(Slurp(f.store.path()) == on_disk);
}

TEST_CASE("Selector: an invalid file is replaced only after confirmation") {
  Fixture f;
  std::filesystem::create_directories(f.dir.path() + "/agent");
  Spit(f.store.path(), "{\"schema_version\": 3}");
  Selector selector(f.store, Registry());
  CHECK(Shows(selector, "Invalid " + f.store.path() + ":"));
  CHECK(Shows(selector, "Saving replaces this file (you will be asked to confirm)."));
  Type(selector, "s");
  CHECK(Texts(selector)[0] == "Fusion models: replace the invalid file " + f.store.path() + "?");
  Type(selector, "n");
  CHECK(Slurp(f.store.path()) == "{\"schema_version\": 3}");
  Type(selector, "s");
  selector.HandleKey(SelectorKey::kEscape);  // back to the slots, still open
  CHECK(selector.outcome() == SelectorOutcome::kOpen);
  Type(selector, "s");
  SECTION("confirmed") {
    Type(selector, "y");
    CHECK(selector.outcome() == SelectorOutcome::kSaved);
    CHECK(Slurp(f.store.path()) == *SerializeModelsConfig(ModelsConfig{}));
  }
  SECTION("confirmed, but the file changed meanwhile") {
    Spit(f.store.path(), "still broken");
    Type(selector, "y");
    CHECK(selector.outcome() == SelectorOutcome::kOpen);
    CHECK(Shows(selector, "Conflict, nothing was written"));
    CHECK(Slurp(f.store.path()) == "still broken");
  }
}

// Focuses the policy row `index` (0 Quorum, 1 Grace, 2 Cost cap, 3 Stall) from Candidate 1.
void FocusPolicyRow(Selector& selector, size_t index) {
  for (size_t i = 0; i < kAllSlots.size() + index; ++i) selector.HandleKey(SelectorKey::kDown);
}

// In the input view whose line starts `prompt`: clears what is typed, types `text`, applies it.
void EnterNumber(Selector& selector, const std::string& prompt, std::string_view text) {
  while (!Shows(selector, prompt + "_")) selector.HandleKey(SelectorKey::kBackspace);
  for (char c : text) Type(selector, std::string(1, c));
  selector.HandleKey(SelectorKey::kEnter);
}

TEST_CASE("Selector: the policy rows show the defaults after the slots") {
  Fixture f;
  Selector selector(f.store, Registry());
  const std::vector<std::string> texts = Texts(selector);
  const auto at = [&](std::string_view prefix) {
    return std::find_if(texts.begin(), texts.end(),
                        [&](const std::string& t) { return t.rfind(prefix, 0) == 0; }) -
           texts.begin();
  };
  CHECK(at("  Merger") < at("Policy:"));
  CHECK(at("Policy:") < at("  Quorum       3 of 3: every candidate must answer"));
  CHECK(Shows(selector,
              "  Grace        default rule: the larger of 15 s and half the second "
              "answer's time (used with quorum 2 only)"));
  CHECK(Shows(selector, "  Cost cap     none"));
  CHECK(Shows(selector,
              "  Stall        default rule: 600 s without output, tool call or model-stream "
              "progress stops a child"));
  CHECK(Shows(selector, "  Keep warm    off: every candidate starts a new Pi process"));
  CHECK(Shows(selector, "Enter choose a model or change the policy row"));
}

TEST_CASE("Selector: keep warm shows its memory, saves v3, and r turns it off") {
  Fixture f;
  Selector selector(f.store, Registry());
  FocusPolicyRow(selector, 4);
  selector.HandleKey(SelectorKey::kEnter);
  CHECK(Texts(selector)[0] == "Fusion models: how long candidates stay warm after a run");
  CHECK(Shows(selector, "Keep warm (seconds): _"));
  for (std::string_view bad : {"-1", "86401", "x"}) {
    INFO(bad);
    EnterNumber(selector, "Keep warm (seconds): ", bad);
    CHECK(Shows(selector, "Not applied: Keep warm must be a number of seconds from 0 to 86400"));
    CHECK(selector.config().policy.keep_warm_seconds == 0);
  }
  EnterNumber(selector, "Keep warm (seconds): ", "300");
  CHECK(selector.config().policy.keep_warm_seconds == 300.0);
  CHECK(Shows(selector,
              "> Keep warm    300 s after a run: up to 3 candidate processes stay ready, about "
              "150 MB of memory each (450 MB)"));
  Type(selector, "s");
  REQUIRE(selector.outcome() == SelectorOutcome::kSaved);
  CHECK(Slurp(f.store.path()).find("\"keep_warm_seconds\": 300") != std::string::npos);

  Selector again(f.store, Registry());
  FocusPolicyRow(again, 4);
  Type(again, "r");
  CHECK(Shows(again, "Keep warm turned off."));
  CHECK(again.config().policy.IsDefault());
}

TEST_CASE("Selector: a typed stall bound in range saves v3; r brings the default rule back") {
  Fixture f;
  Selector selector(f.store, Registry());
  FocusPolicyRow(selector, 3);
  selector.HandleKey(SelectorKey::kEnter);
  CHECK(Texts(selector)[0] == "Fusion models: the stall bound in seconds");
  CHECK(Shows(selector, "Stall (seconds): _"));
  for (std::string_view bad : {"0", "3001", "-5", "x"}) {
    INFO(bad);
    EnterNumber(selector, "Stall (seconds): ", bad);
    CHECK(Shows(selector,
                "Not applied: Stall must be a number of seconds above 0 and at most "
                "3000 such as 600, or empty for the default rule"));
    CHECK_FALSE(selector.config().policy.stall_seconds);
  }
  while (!Shows(selector, "Stall (seconds): _")) selector.HandleKey(SelectorKey::kBackspace);
  Type(selector, "1");
  Type(selector, "2");
  Type(selector, "0");
  selector.HandleKey(SelectorKey::kEnter);
  CHECK(selector.config().policy.stall_seconds == 120.0);
  CHECK(Shows(selector, "> Stall        120 s without output"));
  Type(selector, "s");
  REQUIRE(selector.outcome() == SelectorOutcome::kSaved);
  CHECK(Slurp(f.store.path()).find("pi-background-tasks.fusion-models.v3") != std::string::npos);
  CHECK(Slurp(f.store.path()).find("\"stall_seconds\": 120") != std::string::npos);

  Selector again(f.store, Registry());
  CHECK(Shows(again, "  Stall        120 s without output"));
  FocusPolicyRow(again, 3);
  Type(again, "r");
  CHECK(Shows(again, "Stall reset to the default rule."));
  CHECK(again.config().policy.IsDefault());
  Type(again, "s");
  REQUIRE(again.outcome() == SelectorOutcome::kSaved);
  CHECK(Slurp(f.store.path()) == *SerializeModelsConfig(ModelsConfig{}));
}

TEST_CASE("Selector: Enter switches the quorum; typed grace and cost cap; save writes v2") {
  Fixture f;
  Selector selector(f.store, Registry());
  FocusPolicyRow(selector, 0);
  selector.HandleKey(SelectorKey::kEnter);
  CHECK(selector.config().policy.quorum == 2);
  CHECK(Shows(selector, "> Quorum       2 of 3: two verified answers suffice"));
  CHECK(Shows(selector,
              "  Grace        default rule: the larger of 15 s and half the second "
              "answer's time"));
  CHECK_FALSE(Shows(selector, "used with quorum 2 only"));
  CHECK(selector.HasUnsavedChanges());

  selector.HandleKey(SelectorKey::kDown);  // Grace
  selector.HandleKey(SelectorKey::kEnter);
  CHECK(Texts(selector)[0] == "Fusion models: the grace window in seconds");
  CHECK(Shows(selector, "Grace (seconds): _"));
  Type(selector, "2");
  Type(selector, "x");
  selector.HandleKey(SelectorKey::kEnter);  // "2x" is refused, nothing changes
  CHECK(Shows(selector,
              "Not applied: Grace must be a number of seconds >= 0 such as 20 or 2.5, "
              "or empty for the default rule (found \"2x\")."));
  CHECK_FALSE(selector.config().policy.grace_seconds);
  CHECK(Shows(selector, "Grace (seconds): 2x_"));
  selector.HandleKey(SelectorKey::kBackspace);
  Type(selector, "0");
  selector.HandleKey(SelectorKey::kEnter);
  CHECK(selector.config().policy.grace_seconds == 20.0);
  CHECK(Shows(selector, "> Grace        20 s"));

  selector.HandleKey(SelectorKey::kDown);  // Cost cap
  selector.HandleKey(SelectorKey::kEnter);
  for (std::string_view bad : {"0", "-1", "1e3", "1.2.3", "$", "inf", " 5"}) {
    INFO(bad);
    while (Shows(selector, "US dollars): ") && !Shows(selector, "US dollars): _")) {
      selector.HandleKey(SelectorKey::kBackspace);
    }
    for (char c : bad) Type(selector, std::string(1, c));
    selector.HandleKey(SelectorKey::kEnter);
    CHECK(Shows(selector, "Not applied: Cost cap must be an amount in US dollars above 0"));
    CHECK_FALSE(selector.config().policy.max_cost_usd);
  }
  selector.HandleKey(SelectorKey::kEscape);  // back, unchanged
  CHECK(Shows(selector, "> Cost cap     none"));
  selector.HandleKey(SelectorKey::kEnter);
  CHECK(Shows(selector, "Cost cap (US dollars): _"));  // Esc dropped the typed text
  Type(selector, "$0.50");
  selector.HandleKey(SelectorKey::kEnter);
  CHECK(selector.config().policy.max_cost_usd == 0.5);
  CHECK(Shows(selector, "> Cost cap     $0.5 per run"));

  Type(selector, "s");
  REQUIRE(selector.outcome() == SelectorOutcome::kSaved);
  const Result<LoadedConfig> loaded = f.store.Load();
  REQUIRE(loaded.ok());
  CHECK(loaded->config.policy.quorum == 2);
  CHECK(loaded->config.policy.grace_seconds == 20.0);
  CHECK(loaded->config.policy.max_cost_usd == 0.5);
  CHECK(Slurp(f.store.path()).find("pi-background-tasks.fusion-models.v2") != std::string::npos);

  // Reopened: the saved values; the input starts from the value; r resets each row; v1 again.
  Selector again(f.store, Registry());
  CHECK(Shows(again, "  Quorum       2 of 3"));
  CHECK(Shows(again, "  Grace        20 s"));
  CHECK(Shows(again, "  Cost cap     $0.5 per run"));
  FocusPolicyRow(again, 1);
  again.HandleKey(SelectorKey::kEnter);
  CHECK(Shows(again, "Grace (seconds): 20_"));
  for (int i = 0; i < 2; ++i) again.HandleKey(SelectorKey::kBackspace);
  again.HandleKey(SelectorKey::kEnter);  // empty: the default rule
  CHECK_FALSE(again.config().policy.grace_seconds);
  again.HandleKey(SelectorKey::kUp);  // Quorum
  Type(again, "r");
  CHECK(Shows(again, "Quorum reset to 3."));
  for (int i = 0; i < 2; ++i) again.HandleKey(SelectorKey::kDown);  // Cost cap
  Type(again, "r");
  CHECK(Shows(again, "Cost cap removed."));
  CHECK(again.config().policy.IsDefault());
  Type(again, "s");
  REQUIRE(again.outcome() == SelectorOutcome::kSaved);
  CHECK(Slurp(f.store.path()) == *SerializeModelsConfig(ModelsConfig{}));
}

TEST_CASE("Selector: no current model") {
  Fixture f;
  Selector selector(f.store, Registry(/*with_current=*/false));
  CHECK(Shows(selector, "> Candidate 1  $current (none now)"));
  CHECK(Shows(selector, "the session has no current model now"));
  CHECK(Shows(selector, "Five slots, one model: no diversity ($current)."));
}

TEST_CASE("Selector: the list window follows the cursor") {
  Fixture f;
  RegistrySnapshot registry = Registry();
  for (int i = 0; i < 20; ++i) {
    registry.models.push_back(
        Local("many", "m" + std::string(i < 10 ? "0" : "") + std::to_string(i)));
  }
  Selector selector(f.store, registry);
  selector.HandleKey(SelectorKey::kEnter);
  CHECK(ListRows(selector).size() == kSelectorListRows);
  CHECK(Shows(selector, "  ↓ 13 more"));
  for (int i = 0; i < 15; ++i) selector.HandleKey(SelectorKey::kDown);
  CHECK(Shows(selector, "  ↑ 4 more"));
  CHECK(Shows(selector, "> many/m13"));
  selector.HandleKey(SelectorKey::kEnter);
  CHECK(selector.config().candidates[0] == "many/m13");
}

// Types `text` one character at a time, as the terminal sends it.
void TypeEach(Selector& selector, std::string_view text) {
  for (char c : text) Type(selector, std::string(1, c));
}

TEST_CASE("Selector: panels are created from the cast, renamed, set default and saved as v3") {
  Fixture f;
  ModelsConfig config;
  config.candidates[0] = "scripted/scripted-b";
  REQUIRE(f.store.Save(config, f.store.Load()->revision).ok());
  Selector selector(f.store, Registry());
  CHECK(Shows(selector, "Editing the top-level cast (what runs use: no default panel)"));
  Type(selector, "p");
  CHECK(Texts(selector)[0] == "Fusion models: panels in " + f.store.path());
  CHECK(Shows(selector, "> (top-level cast)  (default)"));
  CHECK(Shows(selector, "(no named panels yet: n creates one)"));
  Type(selector, "r");  // the top-level row has no name
  CHECK(Shows(selector, "The top-level cast has no name; choose a panel first."));

  Type(selector, "n");
  CHECK(Shows(selector, "Panel name: _"));
  TypeEach(selector, "Fast");
  selector.HandleKey(SelectorKey::kEnter);
  CHECK(Shows(selector,
              "Not applied: \"Fast\" is not a panel name: a name is 1 to 32 lower-case "
              "letters, digits or '-', starting with a letter or digit "
              "(^[a-z0-9][a-z0-9-]{0,31}$)."));
  CHECK(selector.config().panels.empty());
  for (int i = 0; i < 4; ++i) selector.HandleKey(SelectorKey::kBackspace);
  TypeEach(selector, "fast");
  selector.HandleKey(SelectorKey::kEnter);
  CHECK(Shows(selector, "Panel fast created from the top-level cast."));
  CHECK(Shows(selector, "> fast  scripted/scripted-b, $current, $current · evaluator $current"));
  REQUIRE(selector.config().panels.contains("fast"));
  CHECK(selector.config().panels.at("fast").candidates[0] == "scripted/scripted-b");

  // A second panel; a taken name is refused.
  Type(selector, "n");
  TypeEach(selector, "fast");
  selector.HandleKey(SelectorKey::kEnter);
  CHECK(
      Shows(selector, "Not applied: a panel named \"fast\" exists already; choose another name."));
  selector.HandleKey(SelectorKey::kEscape);
  CHECK(selector.config().panels.size() == 1);

  // Rename follows the default.
  Type(selector, "d");
  CHECK(Shows(selector, "Default panel: fast."));
  CHECK(Shows(selector, "> fast  (default)"));
  Type(selector, "r");
  CHECK(Shows(selector, "Panel name: fast_"));
  for (int i = 0; i < 4; ++i) selector.HandleKey(SelectorKey::kBackspace);
  TypeEach(selector, "quick-1");
  selector.HandleKey(SelectorKey::kEnter);
  CHECK(Shows(selector, "Panel fast renamed to quick-1."));
  CHECK(selector.config().default_panel == "quick-1");
  CHECK_FALSE(selector.config().panels.contains("fast"));

  Type(selector, "s");
  REQUIRE(selector.outcome() == SelectorOutcome::kSaved);
  const Result<LoadedConfig> loaded = f.store.Load();
  REQUIRE(loaded.ok());
  CHECK(loaded->config.default_panel == "quick-1");
  CHECK(loaded->config.panels.at("quick-1").candidates[0] == "scripted/scripted-b");
  CHECK(Slurp(f.store.path()).find("pi-background-tasks.fusion-models.v3") != std::string::npos);
}

TEST_CASE("Selector: a panel's cast and thinking are edited in the slots view") {
  Fixture f;
  ModelsConfig config;
  config.panels["deep"] =
      Panel{{"$current", "$current", "$current"}, "$current", "$current", {}, std::nullopt};
  REQUIRE(f.store.Save(config, f.store.Load()->revision).ok());
  Selector selector(f.store, Registry());
  Type(selector, "p");
  selector.HandleKey(SelectorKey::kDown);
  selector.HandleKey(SelectorKey::kEnter);
  CHECK(Shows(selector, "Editing panel deep"));
  CHECK(Shows(selector, "> Candidate 1  $current (scripted/scripted-a)  · thinking inherit"));
  CHECK(Shows(selector, "Policy: the file's top-level policy"));
  CHECK_FALSE(Shows(selector, "Quorum"));
  selector.HandleKey(SelectorKey::kUp);  // wraps over the five slots only: Merger
  CHECK(Shows(selector, "> Merger"));
  selector.HandleKey(SelectorKey::kEnter);
  Type(selector, "scripted-b");
  selector.HandleKey(SelectorKey::kEnter);
  Type(selector, "t");
  CHECK(Shows(selector, "> Merger       scripted/scripted-b  · thinking off"));
  Type(selector, "t");
  CHECK(selector.config().panels.at("deep").thinking.merger == "minimal");
  for (int i = 0; i < 5; ++i) Type(selector, "t");  // past xhigh: inherit again
  CHECK_FALSE(selector.config().panels.at("deep").thinking.merger);
  Type(selector, "t");
  selector.HandleKey(SelectorKey::kDown);  // Candidate 1: the candidates' level
  for (int i = 0; i < 5; ++i) Type(selector, "t");
  CHECK(selector.config().panels.at("deep").thinking.candidates == "high");
  CHECK(selector.config().merger == "$current");  // the top-level cast is untouched
  Type(selector, "s");
  REQUIRE(selector.outcome() == SelectorOutcome::kSaved);
  const Panel saved = f.store.Load()->config.panels.at("deep");
  CHECK(saved.merger == "scripted/scripted-b");
  CHECK(saved.thinking.merger == "off");
  CHECK(saved.thinking.candidates == "high");
  CHECK_FALSE(saved.thinking.evaluator);
}

TEST_CASE("Selector: deleting the default panel clears default_panel; a copy keeps its levels") {
  Fixture f;
  ModelsConfig config;
  config.panels["fast"] = Panel{{"scripted/scripted-b", "$current", "$current"},
                                "$current",
                                "$current",
                                {"low", std::nullopt, std::nullopt},
                                std::nullopt};
  config.default_panel = "fast";
  REQUIRE(f.store.Save(config, f.store.Load()->revision).ok());
  Selector selector(f.store, Registry());
  CHECK(Shows(selector, "Editing the top-level cast (runs use the default panel fast)"));
  Type(selector, "p");
  selector.HandleKey(SelectorKey::kDown);
  selector.HandleKey(SelectorKey::kEnter);  // edit fast, then copy it
  Type(selector, "p");
  Type(selector, "n");
  TypeEach(selector, "fast-copy");
  selector.HandleKey(SelectorKey::kEnter);
  CHECK(Shows(selector, "Panel fast-copy created from panel fast."));
  CHECK(selector.config().panels.at("fast-copy") == config.panels.at("fast"));
  selector.HandleKey(SelectorKey::kUp);  // fast (sorted before fast-copy)
  CHECK(Shows(selector, "> fast  (default)"));
  Type(selector, "x");
  CHECK(
      Shows(selector, "Panel fast deleted; runs use the top-level cast again (no default panel)."));
  CHECK_FALSE(selector.config().default_panel);
  CHECK(Shows(selector, "  (top-level cast)  (default)"));
  CHECK(Shows(selector, "> fast-copy"));
  Type(selector, "d");
  Type(selector, "d");
  CHECK(Shows(selector, "No default panel: runs without @<panel> use the top-level cast."));
  selector.HandleKey(SelectorKey::kEscape);  // the panel edited before is gone: the top level
  CHECK(Shows(selector, "Editing the top-level cast"));
  Type(selector, "s");
  REQUIRE(selector.outcome() == SelectorOutcome::kSaved);
  const ModelsConfig saved = f.store.Load()->config;
  CHECK(saved.panels.size() == 1);
  CHECK(saved.panels.contains("fast-copy"));
  CHECK_FALSE(saved.default_panel);
}

}  // namespace
}  // namespace pi_fusion::config

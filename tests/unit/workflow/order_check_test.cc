// The order check's input, output contract and stability rule (src/workflow/order_check.h).
#include "workflow/order_check.h"

#include <catch2/catch.hpp>

#include "json_schema_check.h"
#include "store/manifest.h"
#include "workflow/clean_task.h"
#include "workflow/stage_prompts.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::workflow {
namespace {

using nlohmann::json;
using pi_fusion::testing::CheckAgainstSchema;
using pi_fusion::testing::LoadArtifactSchema;

CanonicalDocument Input() {
  auto request = schema::NormalizeFusionCall(
      "fusion_investigate",
      {{"objective", "o"}, {"background", json::array()}, {"deliverable", "d"}});
  REQUIRE(request.ok());
  auto input = BuildCleanTaskInput("/r", request.value());
  REQUIRE(input.ok());
  return input.value();
}

std::vector<AnonymousCandidate> Candidates() {
  return {{"A", "answer of a"}, {"B", "answer of b"}, {"C", "answer of c"}};
}

// Two conflicts of the evaluation, under its letters.
json Conflicts() {
  return json::array({{{"topic", "which flag"},
                       {"positions",
                        {{{"candidate_id", "C"}, {"position", "use -O2"}},
                         {{"candidate_id", "A"}, {"position", "use -O3"}}}},
                       {"resolution", "A is right"}},
                      {{"topic", "which linker"},
                       {"positions",
                        {{{"candidate_id", "A"}, {"position", "lld"}},
                         {{"candidate_id", "B"}, {"position", "gold"}}}},
                       {"resolution", "B is right"}}});
}

std::string Output(const std::string& first, const std::string& second,
                   const std::string& first_topic = "which flag") {
  return json({{"schema_version", kOrderCheckSchema},
               {"verdicts",
                {{{"topic", first_topic}, {"favoured", first}},
                 {{"topic", "which linker"}, {"favoured", second}}}}})
      .dump();
}

TEST_CASE("OrderCheck: two relabellings, each unlike the evaluation's and each other") {
  const std::vector<Relabelling> three = OrderCheckRelabellings(3);
  REQUIRE(three.size() == kOrderCheckPasses);
  CHECK(three[0].letters != std::vector<std::string>{"A", "B", "C"});
  CHECK(three[1].letters != std::vector<std::string>{"A", "B", "C"});
  CHECK(three[0].letters != three[1].letters);
  for (const Relabelling& r : three) {
    for (std::string_view id : kCandidateIds) {
      CHECK(r.To(id) != std::string(id));  // every candidate under another letter
      CHECK(r.From(r.To(id)) == std::string(id));
    }
  }
  const std::vector<Relabelling> two = OrderCheckRelabellings(2);
  REQUIRE(two.size() == 2);
  CHECK(two[0].letters != two[1].letters);
  CHECK(two[1].To("A") == "B");
}

TEST_CASE("OrderCheck: the input is relabelled, in letter order, and carries no resolution") {
  const Relabelling r = OrderCheckRelabellings(3)[0];  // A->B, B->C, C->A
  Result<CanonicalDocument> input = BuildOrderCheckInput(Input(), Candidates(), Conflicts(), r);
  REQUIRE(input.ok());
  const json& v = input->value;
  CHECK(CheckAgainstSchema(LoadArtifactSchema("fusion-order-check-input.v1.json"), v).empty());
  CHECK(v["schema_version"] == kOrderCheckInputSchema);
  REQUIRE(v["candidates"].size() == 3);
  CHECK(v["candidates"][0] == json({{"candidate_id", "A"}, {"response", "answer of c"}}));
  CHECK(v["candidates"][1] == json({{"candidate_id", "B"}, {"response", "answer of a"}}));
  CHECK(v["candidates"][2] == json({{"candidate_id", "C"}, {"response", "answer of b"}}));
  // Conflict 0: C (-> A) "use -O2", A (-> B) "use -O3", in letter order.
  CHECK(v["conflicts"][0] == json({{"topic", "which flag"},
                                   {"positions",
                                    {{{"candidate_id", "A"}, {"position", "use -O2"}},
                                     {{"candidate_id", "B"}, {"position", "use -O3"}}}}}));
  CHECK(input->bytes.find("resolution") == std::string::npos);
  CHECK(input->bytes.find("A is right") == std::string::npos);

  Result<CanonicalDocument> repair =
      BuildOrderCheckRepairInput(*input, "not json", {{"$", "not JSON", ""}});
  REQUIRE(repair.ok());
  CHECK(repair->value["schema_version"] == kOrderCheckRepairInputSchema);
  CHECK(repair->value["original_input"] == v);
  CHECK(repair->value["validation_errors"] == json::array({"$: not JSON"}));
  // The repair input's id is pinned by its schema in schemas/artifacts/, and the input conforms.
  const json repair_schema = LoadArtifactSchema("fusion-order-check-repair-input.v1.json");
  CHECK(repair_schema["$id"] == kOrderCheckRepairInputSchema);
  CHECK(CheckAgainstSchema(repair_schema, repair->value).empty());
  CHECK(LoadArtifactSchema("fusion-order-check-input.v1.json")["$id"] == kOrderCheckInputSchema);
  CHECK(LoadArtifactSchema("fusion-order-check.v1.json")["$id"] == kOrderCheckSchema);
}

TEST_CASE("OrderCheck: the output contract") {
  const Relabelling r = OrderCheckRelabellings(3)[0];  // A->B, B->C, C->A
  Result<CanonicalDocument> input = BuildOrderCheckInput(Input(), Candidates(), Conflicts(), r);
  REQUIRE(input.ok());

  SECTION("a valid answer maps back to the evaluation's letters") {
    OrderCheckCheck ok = ValidateOrderCheck(Output("B", "none"), input->value, r);
    REQUIRE(ok.ok());
    REQUIRE(ok.verdicts->favoured.size() == 2);
    CHECK(ok.verdicts->favoured[0] == std::optional<std::string>("A"));  // B is the evaluation's A
    CHECK_FALSE(ok.verdicts->favoured[1].has_value());
  }
  SECTION("one verdict per conflict") {
    const std::string one = json({{"schema_version", kOrderCheckSchema},
                                  {"verdicts", {{{"topic", "which flag"}, {"favoured", "A"}}}}})
                                .dump();
    OrderCheckCheck bad = ValidateOrderCheck(one, input->value, r);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.errors.back().path == "$.verdicts");
    CHECK_THAT(bad.errors.back().message, Catch::Contains("exactly one verdict per conflict (2)"));
  }
  SECTION("the same order: each verdict names its conflict's topic") {
    OrderCheckCheck bad = ValidateOrderCheck(Output("A", "B", "which linker"), input->value, r);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.errors[0].path == "$.verdicts[0].topic");
    CHECK_THAT(bad.errors[0].message, Catch::Contains("\"which flag\""));
    CHECK(bad.errors[0].Record().find("which") == std::string::npos);  // no model text recorded
  }
  SECTION("favoured is a known id or none") {
    OrderCheckCheck bad = ValidateOrderCheck(Output("D", "B"), input->value, r);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.errors[0].path == "$.verdicts[0].favoured");
    CHECK(bad.errors[0].message == "must be one of A, B, C, or \"none\"");
  }
  SECTION("closed objects: an extra key is rejected") {
    json extra = json::parse(Output("A", "B"));
    extra["verdicts"][1]["confidence"] = "high";
    OrderCheckCheck bad = ValidateOrderCheck(extra.dump(), input->value, r);
    REQUIRE_FALSE(bad.ok());
    CHECK_THAT(bad.errors[0].ToString(), Catch::Contains("confidence"));
    json top = json::parse(Output("A", "B"));
    top["note"] = "x";
    CHECK_FALSE(ValidateOrderCheck(top.dump(), input->value, r).ok());
  }
  SECTION("strict JSON and the schema id") {
    CHECK_FALSE(ValidateOrderCheck("```json\n" + Output("A", "B") + "\n```", input->value, r).ok());
    CHECK_FALSE(ValidateOrderCheck(Output("A", "B") + " ok", input->value, r).ok());
    json wrong = json::parse(Output("A", "B"));
    wrong["schema_version"] = "pi-background-tasks.fusion-order-check.v2";
    CHECK_FALSE(ValidateOrderCheck(wrong.dump(), input->value, r).ok());
  }
}

TEST_CASE("OrderCheck: a conflict is stable when both passes favour one candidate") {
  const std::vector<Relabelling> r = OrderCheckRelabellings(3);
  std::vector<OrderCheckVerdicts> passes;
  // A checker that always favours whoever is labelled A: pass 1's A is the evaluation's C,
  // pass 2's A its B. One that favours by content: the evaluation's B both times (C, then A).
  for (size_t i = 0; i < r.size(); ++i) {
    Result<CanonicalDocument> input =
        BuildOrderCheckInput(Input(), Candidates(), Conflicts(), r[i]);
    REQUIRE(input.ok());
    OrderCheckCheck check = ValidateOrderCheck(Output("A", r[i].To("B")), input->value, r[i]);
    REQUIRE(check.ok());
    passes.push_back(*check.verdicts);
  }
  const std::vector<ConflictOrder> judged = JudgeOrder(Conflicts(), passes);
  REQUIRE(judged.size() == 2);
  CHECK(judged[0].topic == "which flag");
  CHECK(judged[0].favoured == std::vector<std::optional<std::string>>{"C", "B"});
  CHECK_FALSE(judged[0].stable);
  CHECK(judged[1].favoured == std::vector<std::optional<std::string>>{"B", "B"});
  CHECK(judged[1].stable);
  CHECK(OrderSensitiveCount(judged) == 1);
  CHECK(OrderSensitiveLine(1, 2) == "order-sensitive: 1 of 2 conflicts");
  CHECK(OrderSensitiveLine(0, 2).empty());

  // "none" twice is stable; "none" once is not.
  const std::vector<ConflictOrder> nones =
      JudgeOrder(Conflicts(), {{{std::nullopt, std::nullopt}}, {{std::nullopt, "A"}}});
  CHECK(nones[0].stable);
  CHECK_FALSE(nones[1].stable);

  // Mapped to slots: the evaluation's map puts A on slot 2, B on 3, C on 1.
  const AnonymousMap map{{"C", "A", "B"}};
  const json record = OrderCheckRecord(judged, map);
  CHECK(record == json({{"passes", 2},
                        {"order_sensitive", 1},
                        {"conflicts",
                         {{{"favoured_slots", {1, 3}}, {"stable", false}},
                          {{"favoured_slots", {3, 3}}, {"stable", true}}}}}));
  CHECK(store::IsOrderCheckRecord(record));
  CHECK(CheckAgainstSchema(LoadArtifactSchema("fusion-result.v6.json")["properties"]["order_check"],
                           record)
            .empty());
  json lying = record;
  lying["order_sensitive"] = 0;
  CHECK_FALSE(store::IsOrderCheckRecord(lying));
  lying = record;
  lying["conflicts"][1]["stable"] = false;
  CHECK_FALSE(store::IsOrderCheckRecord(lying));
  CHECK(store::IsOrderCheckRecord(OrderCheckRecord(nones, map)));
  CHECK(OrderCheckRecord(nones, map)["conflicts"][0]["favoured_slots"] == json({nullptr, nullptr}));

  const json notes = MergeOrderNotes(judged);
  CHECK(notes ==
        json::array(
            {{{"topic", "which flag"},
              {"instruction", "order-sensitive: present both positions, do not pick one"}},
             {{"topic", "which linker"},
              {"instruction", "stable: the evaluation's resolution held under reordering"}}}));
}

TEST_CASE("OrderCheck: the prompt names no slot, model or evaluation letter map") {
  const std::string prompt = OrderCheckSystemPrompt();
  CHECK_THAT(prompt, Catch::Contains("pi-background-tasks.fusion-order-check.v1"));
  CHECK_THAT(prompt, !Catch::Contains("slot "));
  CHECK_THAT(prompt, !Catch::Contains("evaluation"));
  CHECK_THAT(OrderCheckRepairSystemPrompt(), Catch::StartsWith(prompt));
}

}  // namespace
}  // namespace pi_fusion::workflow

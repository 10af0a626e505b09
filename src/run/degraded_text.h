// A degraded run said loudly (issue "quorum with grace", item 3): a quorum-2 run that answered
// from two candidates is completed, and every view says so before the answer with the one
// sentence built here from the `degraded` record of its result details or manifest
// (store/manifest.h DegradedRecord): the TUI block, bg_result's text (the line after its header),
// print mode's stderr, json mode's entry, and the run's progress note when it happens.
//
// Pure; thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace pi_fusion::run {

// "Degraded: answered from 2 of 3 candidates; candidate 3 (p/m) failed (child_exit_failed)." or
// "…; candidate 3 (p/m) was cut after a grace of 15 s." The model is shown with its terminal
// controls neutralized. "" when `degraded` is not such a record (a run that used all three).
std::string DegradedSentence(const nlohmann::json& degraded);

// What a degraded run's status adds in the run lists (`pi-fusion runs`, bg_status): "degraded (2
// of 3 candidates)"; "" when `degraded` is not such a record.
std::string DegradedStatus(const nlohmann::json& degraded);

// What a completed run's answer lacks, as its row in a run list says it (TaskInfo::answer_note):
// DegradedStatus of `degraded`, then run/source_failures.h's SourceWarningStatus of
// `source_report`, joined by "; "; "" when neither has anything to say.
std::string AnswerNote(const nlohmann::json& degraded, const nlohmann::json& source_report);

}  // namespace pi_fusion::run

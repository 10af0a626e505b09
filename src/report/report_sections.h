// The report's sections that show what the models wrote about each other: the question, the
// evaluation (agreements, conflicts with every candidate's position and the resolution, the
// synthesis plan, the assessments), validate's findings accounting, and the citation check.
// Model text is rendered from Markdown (markdown_html.h) or escaped (html_text.h), never placed
// raw. Pure functions; thread-safe.
#pragma once

#include <string>

#include "report/report_model.h"

namespace pi_fusion::report {

std::string QuestionSection(const ReportModel& model);
std::string EvaluationSection(const ReportModel& model);
// Empty when the run recorded no citation check.
std::string CitationsSection(const ReportModel& model);

// "A (candidate 2)": the letter the evaluator saw and the slot it stands for.
std::string LetterLabel(const ReportModel& model, const std::string& letter);

}  // namespace pi_fusion::report

#include "protocol/record_rules.h"

#include <algorithm>

#include "pi_fusion/sha256.h"
#include "protocol/constants.h"
#include "protocol/usage.h"

namespace pi_fusion::protocol {
namespace {

constexpr std::string_view kAnthropicApi = "anthropic-messages";

Status EventInvalid(const std::string& message) {
  return Status::Error(std::string(kChildEventInvalid), message);
}

std::string Ord(const MetadataRecord& record) {
  return "metadata record " + std::to_string(record.ordinal);
}

Status CheckIdentity(const std::vector<MetadataRecord>& records, const VerifyRequest& req) {
  for (size_t i = 0; i < records.size(); ++i) {
    const MetadataRecord& r = records[i];
    if (r.ordinal != static_cast<int64_t>(i + 1)) {
      return EventInvalid("metadata ordinals are not 1, 2, 3, ...: found " +
                          std::to_string(r.ordinal) + " at position " + std::to_string(i + 1));
    }
    if (r.route.provider != req.provider || r.route.model != req.model) {
      return EventInvalid(Ord(r) + " is from " + r.route.provider + "/" + r.route.model +
                          ", the child was launched for " + req.provider + "/" + req.model);
    }
    if (r.route.api != records.front().route.api) {
      return EventInvalid(Ord(r) + " changes api to " + r.route.api);
    }
  }
  return Status::Ok();
}

Status CheckCacheStream(const std::vector<MetadataRecord>& records) {
  int64_t last_request = 0;
  for (const MetadataRecord& r : records) {
    if (!r.cache) continue;
    if (r.cache->provider_request_ordinal <= last_request) {
      return EventInvalid(Ord(r) + " has a provider request ordinal that does not increase");
    }
    last_request = r.cache->provider_request_ordinal;
    if (Status s = CheckCacheObservation(*r.cache, r); !s.ok()) return s;
  }
  return Status::Ok();
}

bool IsRetryMarkerShape(const MetadataRecord& r) {
  return r.text.blocks.empty() && r.text.printed_bytes == 0 &&
         r.text.printed_sha256 == Sha256Ref("") && r.text.answer_json_bytes == 0 &&
         r.tool_calls == 0 && IsZeroUsage(r.usage);
}

// Every record before the final one, against the settlement's accounts.
Status CheckNonFinal(const std::vector<MetadataRecord>& records, const SettlementFrame& s) {
  std::vector<int64_t> errors;
  for (size_t i = 0; i + 1 < records.size(); ++i) {
    const MetadataRecord& r = records[i];
    if (r.stop_reason == "toolUse") continue;
    if (r.stop_reason == "error") {
      if (!IsRetryMarkerShape(r)) {
        return EventInvalid(Ord(r) + " is an error record carrying text, tool calls or usage");
      }
      errors.push_back(r.ordinal);
      continue;
    }
    if (r.stop_reason == "stop") {
      if (s.oversized_original_ordinal != r.ordinal) {
        return EventInvalid(Ord(r) +
                            " is a non-final stop the settlement does not bind as the "
                            "oversized original");
      }
      continue;
    }
    return EventInvalid(Ord(r) + " has stop reason " + r.stop_reason);
  }
  if (errors != s.retry_marker_ordinals) {
    return EventInvalid("settlement retry-marker ordinals do not match the error records");
  }
  return Status::Ok();
}

Result<OversizedOriginal> CheckOversized(const std::vector<MetadataRecord>& records,
                                         const SettlementFrame& s, const VerifyRequest& req) {
  const int64_t ordinal = *s.oversized_original_ordinal;
  if (ordinal >= static_cast<int64_t>(records.size())) {
    return EventInvalid("settlement names the final record as the oversized original");
  }
  const MetadataRecord& original = records[ordinal - 1];
  if (original.stop_reason != "stop") return EventInvalid("the oversized original is not a stop");
  if (original.text.answer_json_bytes <= kCandidateOutputMaxBytes) {
    return EventInvalid("the oversized original fits the candidate cap");
  }
  for (size_t i = ordinal; i + 1 < records.size(); ++i) {
    if (records[i].stop_reason != "error") {
      return EventInvalid("the oversized original is not immediately followed by its replacement");
    }
  }
  if (!req.oversized_original) return EventInvalid("the oversized original file is missing");
  const std::string& file = *req.oversized_original;
  if (file.size() != original.text.printed_bytes ||
      Sha256Ref(file) != original.text.printed_sha256) {
    return EventInvalid("the oversized original file does not match its metadata record");
  }
  return OversizedOriginal{ordinal, file.size(), original.text.printed_sha256,
                           original.text.answer_json_bytes};
}

}  // namespace

Status CheckCacheObservation(const CacheObservation& o, const MetadataRecord& r) {
  auto invalid = [&](const std::string& why) {
    return Status::Error(std::string(kChildCachePolicyInvalid),
                         Ord(r) + " cache observation " + why);
  };
  if (o.api != r.route.api) return invalid("names another api");
  if (o.source == "default" && o.requested_retention != "short") {
    return invalid("requests " + o.requested_retention + " by default (Pi's default is short)");
  }
  const bool quiet = o.breakpoints == 0 && o.breakpoints_removed == 0 && !o.long_fallback;
  if (o.api != kAnthropicApi) {
    if (o.effective_retention != "unmanaged" || !quiet || o.source == "payload") {
      return invalid("describes cache markers of an unmanaged api");
    }
    return Status::Ok();
  }
  if (o.effective_retention == "unmanaged") return invalid("calls an anthropic payload unmanaged");
  if (o.source == "payload") {
    // A payload without markers (call-level `none`, e.g. compaction) is left exactly as it was.
    if (o.effective_retention != "none" || !quiet) return invalid("alters a no-marker payload");
    return Status::Ok();
  }
  if (o.long_fallback && o.requested_retention != "long") {
    return invalid("reports a long-retention fallback for " + o.requested_retention);
  }
  const std::string expected = o.long_fallback ? "short" : o.requested_retention;
  if (o.effective_retention != expected) {
    return invalid("has effective retention " + o.effective_retention + ", expected " + expected);
  }
  if ((o.effective_retention == "none") != (o.breakpoints == 0)) {
    return invalid("disagrees with its breakpoint count");
  }
  return Status::Ok();
}

Status CheckStdout(const MetadataRecord& final_record, std::string_view out) {
  const TextDigest& text = final_record.text;
  if (out.size() != text.printed_bytes || Sha256Ref(out) != text.printed_sha256) {
    return EventInvalid("stdout (" + std::to_string(out.size()) +
                        " bytes) is not the text the final metadata record hashes (" +
                        std::to_string(text.printed_bytes) + " bytes)");
  }
  size_t pos = 0;
  for (size_t i = 0; i < text.blocks.size(); ++i) {
    const TextBlockDigest& block = text.blocks[i];
    if (pos + block.bytes + 1 > out.size() || out[pos + block.bytes] != '\n' ||
        Sha256Ref(out.substr(pos, block.bytes)) != block.sha256) {
      return EventInvalid("stdout text block " + std::to_string(i + 1) +
                          " does not match the final metadata record");
    }
    pos += block.bytes + 1;
  }
  if (pos != out.size()) return EventInvalid("stdout has bytes outside the recorded text blocks");
  if (AnswerJsonBytes(AnswerFromPrinted(out)) != text.answer_json_bytes) {
    return EventInvalid("the final record's answer_json_bytes does not match stdout");
  }
  return Status::Ok();
}

RecordCheck CheckRecords(const std::vector<MetadataRecord>& records, const SettlementFrame& s,
                         const VerifyRequest& req) {
  RecordCheck check;
  auto fail = [&](Status status) {
    check.status = std::move(status);
    return check;
  };
  if (records.empty()) return fail(EventInvalid("the child finalized no assistant message"));
  if (Status st = CheckIdentity(records, req); !st.ok()) return fail(st);
  if (Status st = CheckCacheStream(records); !st.ok()) return fail(st);
  const MetadataRecord& final_record = records.back();
  if (final_record.stop_reason != "stop") {
    return fail(EventInvalid("the final metadata record has stop reason " +
                             final_record.stop_reason + ", not stop"));
  }
  if (Status st = CheckNonFinal(records, s); !st.ok()) return fail(st);
  if (s.oversized_original_ordinal) {
    Result<OversizedOriginal> oversized = CheckOversized(records, s, req);
    if (!oversized.ok()) return fail(oversized.status());
    check.oversized = *oversized;
    if (final_record.text.answer_json_bytes > kCandidateOutputMaxBytes) {
      return fail(Status::Error(std::string(kChildOutputCap),
                                "the compressed replacement is still " +
                                    std::to_string(final_record.text.answer_json_bytes) +
                                    " JSON-rendered bytes (cap " +
                                    std::to_string(kCandidateOutputMaxBytes) + ")"));
    }
  } else if (req.oversized_original) {
    return fail(EventInvalid("an oversized original file exists but the settlement names none"));
  }
  if (Status st = CheckStdout(final_record, req.stdout_bytes); !st.ok()) return fail(st);
  check.answer = std::string(AnswerFromPrinted(req.stdout_bytes));
  check.answer_json_bytes = final_record.text.answer_json_bytes;
  return check;
}

}  // namespace pi_fusion::protocol

#include "pi_fusion/sha256.h"

#include <openssl/evp.h>

#include <array>

namespace pi_fusion {

std::string Sha256Hex(std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int len = 0;
  // EVP_Digest with a fetched-once algorithm is thread-safe; a failure here means libcrypto is
  // unusable, which no caller can recover from.
  if (EVP_Digest(data.data(), data.size(), digest.data(), &len, EVP_sha256(), nullptr) != 1) {
    return std::string(64, '0');
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(len * 2);
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 0xf]);
  }
  return out;
}

std::string Sha256Ref(std::string_view data) { return "sha256:" + Sha256Hex(data); }

}  // namespace pi_fusion

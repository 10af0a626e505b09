// Secrets found by what a file holds rather than by its name: private keys wherever they are,
// and the userinfo of URLs in files that candidates read redacted (protected_names.h
// IsRedactedFile). Pure; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pi_fusion::child {

// How many first bytes of a file HoldsPrivateKey looks at.
inline constexpr size_t kSecretHeadBytes = 64 * 1024;

// True when `head` (a file's first bytes) holds the first line of a private key: a PEM or
// OpenSSH armor line `-----BEGIN <words> PRIVATE KEY-----` (RSA, EC, DSA, OPENSSH, ENCRYPTED,
// PKCS#8, and PGP's `PRIVATE KEY BLOCK`), also inside JSON such as a cloud service-account key,
// or a PuTTY key file's first line. Public keys and certificates are not private keys.
bool HoldsPrivateKey(std::string_view head);

// `text` with the userinfo of every URL (`scheme://user:password@host`) replaced by `***`:
// `https://user:TOKEN@host/x` -> `https://***@host/x`. A URL without userinfo is unchanged.
std::string RedactUrlUserinfo(std::string_view text);

// True when a file whose first bytes are `head` is what git keeps under `.git/objects`: a loose
// object (a zlib stream), a pack, a pack index, reverse index or bitmap, a multi-pack index or a
// commit graph. Hard links are normal there (`git clone --local`), so such a file may be read
// though it has other names (file_wall.h, hard links).
bool LooksLikeGitObject(std::string_view head);

}  // namespace pi_fusion::child

#include "pi_fusion/sha256.h"

#include <catch2/catch.hpp>

TEST_CASE("Sha256: known vectors", "[core]") {
  CHECK(pi_fusion::Sha256Hex("") ==
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(pi_fusion::Sha256Ref("abc") ==
        "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

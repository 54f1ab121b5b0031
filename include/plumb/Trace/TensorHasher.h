//===- include/plumb/Trace/TensorHasher.h - Fast canonical tensor hash -*- C++ -*-===//
//
// Part of Plumb. The canonical tensor hash of tensor_hash.h (the same bytes,
// the same digest as plumb_rt_tensor_hash), computed with the CPU's SHA
// instructions where it has them (x86 SHA-NI; about five times the portable
// code's speed), because traces hash every node's output and that must stay
// a small fraction of a run. Elsewhere it is plumb_rt_tensor_hash.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_TRACE_TENSORHASHER_H
#define PLUMB_TRACE_TENSORHASHER_H

#include "plumb/Interpreter/Tensor.h"
#include "plumb/Support/Merkle.h"

#include <cstddef>
#include <cstdint>

namespace plumb {
namespace trace {

/// The SHA-256 implementations, fastest last: portable C++, x86 SHA-NI
/// (our own), and OpenSSL's libcrypto where Plumb was built with it (it
/// picks the CPU's SHA instructions on x86 and Arm).
enum class Sha256Impl { Portable, ShaNi, OpenSSL };

/// The implementation in use: the fastest available unless selected.
Sha256Impl sha256Impl();
/// Selects an implementation; false (and no change) where it is not
/// available. Not thread-safe: call it while nothing hashes.
bool selectSha256(Sha256Impl impl);
const char *sha256ImplName(Sha256Impl impl);

/// SHA-256 with the selected implementation.
class Sha256 {
public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256 &) = delete;
  Sha256 &operator=(const Sha256 &) = delete;
  void update(const void *data, size_t n);
  Digest finish();

private:
  void *evp = nullptr; // OpenSSL's context, when that is in use
  uint32_t state[8];
  uint64_t bytes = 0;
  uint8_t buffer[64];
  size_t used = 0;
  void blocks(const uint8_t *p, size_t count);
};

/// The canonical tensor hash (tensor_hash.h) of a dense row-major tensor.
Digest tensorHash(int32_t dtype, int32_t rank, const int64_t *shape,
                  const void *data);
Digest tensorHash(const exec::Tensor &t);

} // namespace trace
} // namespace plumb

#endif // PLUMB_TRACE_TENSORHASHER_H

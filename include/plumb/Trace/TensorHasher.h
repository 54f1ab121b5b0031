//===- include/plumb/Trace/TensorHasher.h - Fast canonical tensor hash -*- C++ -*-===//
//
// Part of Plumb. The tensor hashes of traces (docs/trace.md), computed with
// the CPU's SHA instructions where it has them (x86 SHA-NI or OpenSSL;
// about five times the portable code's speed), because traces hash every
// node's output and that must stay a small fraction of a run.
//
// Trace tensor hash (version 2, "plumb-tensor-v2"): the canonical element
// bytes of tensor_hash.h (little-endian, NaN as 0x7FC00000, bools 0/1) are
// cut into chunks of kChunkBytes (the last one shorter; none for an empty
// tensor); each chunk's digest is SHA-256(chunk bytes); the chunk root is
// the Merkle root (Support/Merkle.h: leaf = SHA-256(0x00 || digest), inner
// = SHA-256(0x01 || l || r), RFC 6962 splits) over the chunk digests; and
//
//   H(t) = SHA-256("plumb-tensor-v2" || dtype u8 || rank u8 || dims u64le
//                  || chunk root)
//
// Chunks are independent, so one tensor is hashed on many threads, and a
// referee can check one chunk with a Merkle proof (docs/dispute.md). The
// plain SHA-256 of the whole encoding (plumb_rt_tensor_hash, "v1") stays the
// hash of `plumb run`'s printed outputs and of constants in graph hashes.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_TRACE_TENSORHASHER_H
#define PLUMB_TRACE_TENSORHASHER_H

#include "plumb/Interpreter/Tensor.h"
#include "plumb/Support/Merkle.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace plumb {
namespace trace {

/// The SHA-256 implementations: portable C++, x86 SHA-NI (our own), and
/// OpenSSL's libcrypto where Plumb was built with it (it picks the CPU's SHA
/// instructions on x86 and Arm). The default is our SHA-NI code where the
/// CPU has it (as fast on chunks, cheaper per small message), else OpenSSL,
/// else portable.
enum class Sha256Impl { Portable, ShaNi, OpenSSL };

/// The implementation in use: the fastest available unless selected.
Sha256Impl sha256Impl();
/// Selects an implementation; false (and no change) where it is not
/// available. Not thread-safe: call it while nothing hashes.
bool selectSha256(Sha256Impl impl);
const char *sha256ImplName(Sha256Impl impl);

/// Whether chunk batches (chunkDigestBatch) hash up to kHashLanes full
/// chunks at once with a 16-lane AVX-512 SHA-256 (x86 with AVX-512F/BW:
/// about twice SHA-NI's speed on one core). On by default where available;
/// false (and no change) when asked for where it is not. Not thread-safe.
bool multiLaneSha256();
bool selectMultiLaneSha256(bool on);

/// SHA-256 with the selected implementation.
class Sha256 {
public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256 &) = delete;
  Sha256 &operator=(const Sha256 &) = delete;
  void update(const void *data, size_t n);
  Digest finish();
  /// Starts a new digest with the same context (cheaper than a new object).
  void reset();

private:
  void *evp = nullptr; // OpenSSL's context, when that is in use
  uint32_t state[8];
  uint64_t bytes = 0;
  uint8_t buffer[64];
  size_t used = 0;
  void blocks(const uint8_t *p, size_t count);
};

/// Chunk size of the trace tensor hash, in bytes of the canonical encoding
/// (a multiple of every element size: chunks never split an element).
constexpr size_t kChunkBytes = 16384;

/// Number of elements of a dense shape.
int64_t numElementsOf(int32_t rank, const int64_t *shape);
/// Bytes per element of a dtype code (1 f32, 2 i64, 3 i32, 4 bool).
size_t elemBytesOf(int32_t dtype);
/// Number of chunks of a tensor of `numElements` elements.
size_t numChunks(int32_t dtype, int64_t numElements);
/// First element and element count of chunk `c`.
void chunkRange(int32_t dtype, int64_t numElements, size_t c, int64_t &first,
                int64_t &count);

/// Writes the canonical encoding of `count` elements starting at element
/// `first` of `data` into `out` (count * elemBytesOf(dtype) bytes).
void encodeElements(int32_t dtype, const void *data, int64_t first,
                    int64_t count, uint8_t *out);
/// SHA-256 of the canonical encoding of chunk `c` of `data` (a tensor of
/// `numElements` elements).
Digest chunkDigest(int32_t dtype, const void *data, int64_t numElements,
                   size_t c);
/// The same with a reusable context (reset first).
Digest chunkDigestWith(Sha256 &h, int32_t dtype, const void *data,
                       int64_t numElements, size_t c);
/// One chunk of a batch: chunk `chunk` of a tensor and where its digest goes.
struct ChunkTask {
  int32_t dtype = 1;
  const void *data = nullptr;
  int64_t numElements = 0;
  size_t chunk = 0;
  Digest *out = nullptr;
};
/// Lanes of the multi-lane SHA-256 (the most useful batch size).
constexpr size_t kHashLanes = 16;
/// The digests of a batch of chunks (any tensors, any order): identical to
/// chunkDigestWith on each, faster when many are full-size (multi-lane).
void chunkDigestBatch(Sha256 &h, const ChunkTask *tasks, size_t n);

/// SHA-256 of an already canonical byte string (a chunk on the wire).
Digest chunkDigestOfBytes(const void *bytes, size_t n);
/// The Merkle root over chunk digests (the same tree as merkleRoot, with the
/// fast SHA-256).
Digest chunkRoot(const std::vector<Digest> &chunkDigests);
/// merkleVerify (Support/Merkle.h) with the fast SHA-256: the referee
/// checks many proofs.
bool merkleVerifyFast(const Digest &root, size_t size, size_t index,
                      const Digest &item, const std::vector<Digest> &proof);
/// merkleFold (Support/Merkle.h) with the fast SHA-256: the referee
/// recomputes a party's subtree hash from the frontier it sent.
bool merkleFoldFast(size_t lo, size_t hi, unsigned depth,
                    const std::vector<Digest> &values, Digest &out);
/// The tensor hash from its header and chunk root.
Digest tensorHashFromRoot(int32_t dtype, int32_t rank, const int64_t *shape,
                          const Digest &chunkRoot);

/// The trace tensor hash of a dense row-major tensor (one thread).
Digest tensorHash(int32_t dtype, int32_t rank, const int64_t *shape,
                  const void *data);
Digest tensorHash(const exec::Tensor &t);
/// Every chunk digest of a tensor (one thread).
std::vector<Digest> chunkDigests(const exec::Tensor &t);
std::vector<Digest> chunkDigests(int32_t dtype, int64_t numElements,
                                 const void *data);

} // namespace trace
} // namespace plumb

#endif // PLUMB_TRACE_TENSORHASHER_H

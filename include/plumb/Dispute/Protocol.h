//===- include/plumb/Dispute/Protocol.h - Dispute messages ----*- C++ -*-===//
//
// Part of Plumb. The messages of the refereed-delegation protocol
// (docs/dispute.md): one JSON object per line, every one carrying
// "protocol": "plumb-dispute" and "version": 4, and the channels that carry
// them between a referee and a party (a child process speaking on its
// stdin/stdout, or an in-process party for tests).
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_DISPUTE_PROTOCOL_H
#define PLUMB_DISPUTE_PROTOCOL_H

#include "plumb/Interpreter/Tensor.h"
#include "plumb/Support/Merkle.h"

#include "llvm/Support/JSON.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace plumb {
namespace dispute {

constexpr const char *kProtocolName = "plumb-dispute";
constexpr int64_t kProtocolVersion = 4;
/// The longest message line a referee reads (the JSON part of a message;
/// tensor data follows it as counted bytes). The largest real ones, chunk
/// lists with their proofs, are tens of kilobytes; a party sending more
/// loses, so that no party can make the referee buffer without bound.
constexpr size_t kMaxMessageBytes = size_t(16) << 20;

/// A new message of `type` with the protocol header.
llvm::json::Object makeMessage(llvm::StringRef type);
/// One line of the wire format (no newline).
std::string serialize(const llvm::json::Object &msg);
/// Parses a line and checks the header; `type` receives the message type.
bool parseMessage(const std::string &line, llvm::json::Object &out,
                  std::string &type, std::string &err);

llvm::json::Array digestsToJson(llvm::ArrayRef<Digest> ds);
/// Reads a JSON array of 64-hex-digit strings.
bool digestsFromJson(const llvm::json::Value *v, std::vector<Digest> &out);
bool digestFromJson(const llvm::json::Object &o, llvm::StringRef key,
                    Digest &out);

/// A tensor on the wire: a JSON header (dtype name, shape, "bytes") in the
/// message, and its little-endian element bytes (bools one byte 0/1) in the
/// message's binary attachment, which follows the message's line.
llvm::json::Object tensorHeader(const exec::Tensor &t);
/// Reads a header: dtype, shape, and the byte count they imply.
bool parseTensorHeader(const llvm::json::Object &o, exec::ElemType &type,
                       std::vector<int64_t> &shape, size_t &bytes,
                       std::string &err);

/// What a referee reads a party through. Counts bytes both ways (each line
/// plus its newline).
class Channel {
public:
  virtual ~Channel();
  virtual bool send(const std::string &line, std::string &err) = 0;
  /// Waits at most `timeoutMs` for one line.
  virtual bool receive(std::string &line, int timeoutMs, std::string &err) = 0;
  /// Waits until `deadline` for one line (a request sent `timeoutMs`
  /// before it, while the referee read another party's answer); an answer
  /// already there is taken even after the deadline. A timeout reports
  /// `timeoutMs`.
  virtual bool receiveBy(std::string &line,
                         std::chrono::steady_clock::time_point deadline,
                         int timeoutMs, std::string &err);
  /// Waits at most `timeoutMs` for the `n` bytes of an attachment that
  /// follow the last line, into `out`.
  virtual bool receiveBytes(char *out, size_t n, int timeoutMs,
                            std::string &err) = 0;
  uint64_t bytesSent = 0;
  uint64_t bytesReceived = 0;
};

/// A party running as a child process, speaking on its stdin/stdout.
class ProcessChannel : public Channel {
public:
  /// Starts `argv[0]` with `argv` (no shell); stderr is inherited.
  static std::unique_ptr<ProcessChannel>
  spawn(const std::vector<std::string> &argv, std::string &err);
  ~ProcessChannel() override;
  bool send(const std::string &line, std::string &err) override;
  bool receive(std::string &line, int timeoutMs, std::string &err) override;
  bool receiveBy(std::string &line,
                 std::chrono::steady_clock::time_point deadline, int timeoutMs,
                 std::string &err) override;
  bool receiveBytes(char *out, size_t n, int timeoutMs,
                    std::string &err) override;

private:
  ProcessChannel() = default;
  /// Reads more from the party into `pending`; false at the deadline or on
  /// end of input.
  bool fill(std::chrono::steady_clock::time_point deadline, int timeoutMs,
            std::string &err);
  int pid = -1;
  int toChild = -1;
  int fromChild = -1;
  std::string pending; // bytes read past the last line
  bool eof = false;
};

/// Anything that answers protocol messages (a trace party).
class Responder {
public:
  virtual ~Responder();
  /// Handles one request line: the answer's line and its attachment (raw
  /// bytes sent right after the line; may be empty). False means "no
  /// answer" (silence).
  virtual bool respond(const std::string &request, std::string &reply,
                       std::string &attachment) = 0;
};

/// An in-process party (tests): each send is answered at once.
class LocalChannel : public Channel {
public:
  explicit LocalChannel(Responder &r) : responder(r) {}
  bool send(const std::string &line, std::string &err) override;
  bool receive(std::string &line, int timeoutMs, std::string &err) override;
  bool receiveBytes(char *out, size_t n, int timeoutMs,
                    std::string &err) override;

private:
  Responder &responder;
  std::vector<std::string> replies;
  std::string bytes; // attachments not read yet
};

} // namespace dispute
} // namespace plumb

#endif // PLUMB_DISPUTE_PROTOCOL_H

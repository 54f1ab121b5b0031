//===- test/fuzz/ScriptChannel.h - A party that says a script ---*- C++ -*-===//
//
// Part of Plumb. The referee fuzz target's parties (fuzz_referee_msg.cpp)
// and its regression tests: a dispute::Channel whose answers are a fixed
// byte stream, lines and attachments in order, whatever was asked.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_TEST_FUZZ_SCRIPTCHANNEL_H
#define PLUMB_TEST_FUZZ_SCRIPTCHANNEL_H

#include "plumb/Dispute/Protocol.h"

#include <cstring>
#include <string>

namespace plumb {
namespace fuzz {

/// A party that says `script`, line by line and attachment by attachment.
class ScriptChannel : public dispute::Channel {
public:
  explicit ScriptChannel(std::string s) : script(std::move(s)) {}
  bool send(const std::string &line, std::string &) override {
    bytesSent += line.size() + 1;
    return true;
  }
  bool receive(std::string &line, int timeoutMs, std::string &err) override {
    size_t nl = script.find('\n', pos);
    if (nl == std::string::npos) {
      err = "no answer within " + std::to_string(timeoutMs) + " ms";
      return false;
    }
    if (nl - pos > dispute::kMaxMessageBytes) {
      err = "sent a message longer than the limit of one protocol message";
      return false;
    }
    line = script.substr(pos, nl - pos);
    bytesReceived += line.size() + 1;
    pos = nl + 1;
    return true;
  }
  bool receiveBytes(char *out, size_t n, int timeoutMs,
                    std::string &err) override {
    if (script.size() - pos < n) {
      err = "no answer within " + std::to_string(timeoutMs) + " ms";
      return false;
    }
    std::memcpy(out, script.data() + pos, n);
    pos += n;
    bytesReceived += n;
    return true;
  }

private:
  std::string script;
  size_t pos = 0;
};

} // namespace fuzz
} // namespace plumb

#endif // PLUMB_TEST_FUZZ_SCRIPTCHANNEL_H

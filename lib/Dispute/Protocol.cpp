//===- lib/Dispute/Protocol.cpp - Dispute messages and channels -----------===//
//
// Part of Plumb. See include/plumb/Dispute/Protocol.h and docs/dispute.md.
//
//===----------------------------------------------------------------------===//
#include "plumb/Dispute/Protocol.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

namespace plumb {
namespace dispute {

llvm::json::Object makeMessage(llvm::StringRef type) {
  return llvm::json::Object{{"protocol", kProtocolName},
                            {"version", kProtocolVersion},
                            {"type", type.str()}};
}

std::string serialize(const llvm::json::Object &msg) {
  // As llvm::json prints a Value holding the object (keys sorted), without
  // copying the object into one.
  std::vector<const llvm::json::Object::value_type *> entries;
  entries.reserve(msg.size());
  for (const auto &e : msg)
    entries.push_back(&e);
  llvm::sort(entries, [](const auto *a, const auto *b) {
    return a->first < b->first;
  });
  std::string s;
  s.reserve(256);
  llvm::raw_string_ostream os(s);
  llvm::json::OStream j(os);
  j.object([&] {
    for (const auto *e : entries)
      j.attribute(e->first, e->second);
  });
  os.flush();
  return s;
}

bool parseMessage(const std::string &line, llvm::json::Object &out,
                  std::string &type, std::string &err) {
  auto v = llvm::json::parse(line);
  if (!v) {
    err = "not JSON: " + llvm::toString(v.takeError());
    return false;
  }
  llvm::json::Object *o = v->getAsObject();
  if (!o) {
    err = "a message must be a JSON object";
    return false;
  }
  auto proto = o->getString("protocol");
  auto version = o->getInteger("version");
  auto t = o->getString("type");
  if (!proto || *proto != kProtocolName) {
    err = "not a plumb-dispute message";
    return false;
  }
  if (!version || *version != kProtocolVersion) {
    err = "unsupported protocol version " +
          (version ? std::to_string(*version) : std::string("(missing)"));
    return false;
  }
  if (!t) {
    err = "the message has no 'type'";
    return false;
  }
  type = t->str();
  out = std::move(*o);
  return true;
}

llvm::json::Array digestsToJson(llvm::ArrayRef<Digest> ds) {
  llvm::json::Array a;
  for (const Digest &d : ds)
    a.push_back(toHex(d));
  return a;
}

bool digestsFromJson(const llvm::json::Value *v, std::vector<Digest> &out) {
  out.clear();
  const llvm::json::Array *a = v ? v->getAsArray() : nullptr;
  if (!a)
    return false;
  out.resize(a->size());
  size_t i = 0;
  for (const llvm::json::Value &e : *a) {
    auto s = e.getAsString();
    if (!s || !fromHex(s->data(), s->size(), out[i++])) {
      out.clear(); // nothing half-parsed
      return false;
    }
  }
  return true;
}

bool digestFromJson(const llvm::json::Object &o, llvm::StringRef key,
                    Digest &out) {
  auto s = o.getString(key);
  return s && fromHex(s->data(), s->size(), out);
}

llvm::json::Object tensorHeader(const exec::Tensor &t) {
  llvm::json::Array shape;
  for (int64_t d : t.shape)
    shape.push_back(d);
  return llvm::json::Object{{"dtype", exec::elemTypeName(t.type)},
                            {"shape", std::move(shape)},
                            {"bytes", (int64_t)t.byteSize()}};
}

bool parseTensorHeader(const llvm::json::Object &o, exec::ElemType &type,
                       std::vector<int64_t> &shape, size_t &bytes,
                       std::string &err) {
  auto dtype = o.getString("dtype");
  const llvm::json::Array *dims = o.getArray("shape");
  auto count = o.getInteger("bytes");
  if (!dtype || !dims || !count) {
    err = "a tensor needs 'dtype', 'shape' and 'bytes'";
    return false;
  }
  bool known = false;
  for (exec::ElemType t : {exec::ElemType::F32, exec::ElemType::I64,
                           exec::ElemType::I32, exec::ElemType::Bool})
    if (*dtype == exec::elemTypeName(t))
      type = t, known = true;
  if (!known) {
    err = "unknown dtype '" + dtype->str() + "'";
    return false;
  }
  shape.clear();
  int64_t n = 1;
  const int64_t limit = int64_t(1) << 40;
  for (const llvm::json::Value &d : *dims) {
    auto v = d.getAsInteger();
    if (!v || *v < 0 || *v > limit || (*v && n > limit / *v)) {
      err = "a tensor dimension is not a sane non-negative integer";
      return false;
    }
    shape.push_back(*v);
    n *= *v;
  }
  bytes = (size_t)n * exec::elemSize(type);
  if (*count < 0 || (size_t)*count != bytes) {
    err = "'bytes' is " + std::to_string(*count) + " but a " + dtype->str() +
          " tensor of " + std::to_string(n) + " elements has " +
          std::to_string(bytes);
    return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Channels
//===----------------------------------------------------------------------===//

Channel::~Channel() = default;

bool Channel::receiveBy(std::string &line,
                        std::chrono::steady_clock::time_point deadline,
                        int timeoutMs, std::string &err) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                  deadline - std::chrono::steady_clock::now())
                  .count();
  if (!receive(line, (int)std::max<int64_t>(left, 0), err)) {
    if (err.rfind("no answer within", 0) == 0)
      err = "no answer within " + std::to_string(timeoutMs) + " ms";
    return false;
  }
  return true;
}
Responder::~Responder() = default;

std::unique_ptr<ProcessChannel>
ProcessChannel::spawn(const std::vector<std::string> &argv, std::string &err) {
  // A party that dies must fail its write, not kill the referee.
  std::signal(SIGPIPE, SIG_IGN);
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0) {
    err = std::string("pipe: ") + std::strerror(errno);
    return nullptr;
  }
  if (pipe2(out, O_CLOEXEC) != 0) {
    err = std::string("pipe: ") + std::strerror(errno);
    close(in[0]), close(in[1]);
    return nullptr;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0].c_str(), &fa, nullptr, args.data(),
                       environ);
  posix_spawn_file_actions_destroy(&fa);
  close(in[0]);
  close(out[1]);
  if (rc != 0) {
    err = "cannot start '" + argv[0] + "': " + std::strerror(rc);
    close(in[1]), close(out[0]);
    return nullptr;
  }
  std::unique_ptr<ProcessChannel> ch(new ProcessChannel());
  ch->pid = pid;
  ch->toChild = in[1];
  ch->fromChild = out[0];
  return ch;
}

ProcessChannel::~ProcessChannel() {
  if (toChild >= 0)
    close(toChild); // the party sees end of input and exits
  if (fromChild >= 0)
    close(fromChild);
  if (pid <= 0)
    return;
  for (int i = 0; i < 100; ++i) {
    int status;
    if (waitpid(pid, &status, WNOHANG) == pid)
      return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid, SIGKILL);
  int status;
  waitpid(pid, &status, 0);
}

bool ProcessChannel::send(const std::string &line, std::string &err) {
  std::string buf = line + "\n";
  size_t done = 0;
  while (done < buf.size()) {
    ssize_t w = write(toChild, buf.data() + done, buf.size() - done);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      err = std::string("the party stopped reading: ") + std::strerror(errno);
      return false;
    }
    done += (size_t)w;
  }
  bytesSent += buf.size();
  return true;
}

bool ProcessChannel::fill(std::chrono::steady_clock::time_point deadline,
                          int timeoutMs, std::string &err) {
  while (true) {
    if (eof) {
      err = "the party closed the connection";
      return false;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    // Past the deadline, one last look: an answer already in the pipe
    // (sent while the referee read the other party) still counts.
    pollfd p{fromChild, POLLIN, 0};
    int r = poll(&p, 1, (int)std::max<int64_t>(left, 0));
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0) {
      err = std::string("poll: ") + std::strerror(errno);
      return false;
    }
    if (r == 0) {
      if (left <= 0) {
        err = "no answer within " + std::to_string(timeoutMs) + " ms";
        return false;
      }
      continue;
    }
    char buf[1 << 16];
    ssize_t got = read(fromChild, buf, sizeof(buf));
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0) {
      eof = true;
      continue;
    }
    pending.append(buf, (size_t)got);
    return true;
  }
}

bool ProcessChannel::receive(std::string &line, int timeoutMs,
                             std::string &err) {
  return receiveBy(line,
                   std::chrono::steady_clock::now() +
                       std::chrono::milliseconds(timeoutMs),
                   timeoutMs, err);
}

bool ProcessChannel::receiveBy(std::string &line,
                               std::chrono::steady_clock::time_point deadline,
                               int timeoutMs, std::string &err) {
  size_t scanned = 0;
  while (true) {
    size_t nl = pending.find('\n', scanned);
    if (nl != std::string::npos) {
      line = pending.substr(0, nl);
      pending.erase(0, nl + 1);
      bytesReceived += nl + 1;
      return true;
    }
    scanned = pending.size();
    if (scanned > kMaxMessageBytes) {
      err = "sent a message longer than " +
            std::to_string(kMaxMessageBytes >> 20) +
            " MiB, the limit of one protocol message";
      return false;
    }
    if (!fill(deadline, timeoutMs, err))
      return false;
  }
}

bool ProcessChannel::receiveBytes(char *out, size_t n, int timeoutMs,
                                  std::string &err) {
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(timeoutMs);
  size_t done = std::min(n, pending.size());
  std::memcpy(out, pending.data(), done);
  pending.erase(0, done);
  while (done < n) {
    // Large attachments: read straight into place.
    pollfd p{fromChild, POLLIN, 0};
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (eof || left <= 0) {
      err = eof ? "the party closed the connection"
                : "no answer within " + std::to_string(timeoutMs) + " ms";
      bytesReceived += done;
      return false;
    }
    int r = poll(&p, 1, (int)left);
    if (r <= 0) {
      if (r < 0 && errno != EINTR) {
        err = std::string("poll: ") + std::strerror(errno);
        bytesReceived += done;
        return false;
      }
      continue;
    }
    ssize_t got = read(fromChild, out + done, n - done);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      eof = true;
    else
      done += (size_t)got;
  }
  bytesReceived += n;
  return true;
}

bool LocalChannel::send(const std::string &line, std::string &err) {
  bytesSent += line.size() + 1;
  std::string reply, attachment;
  if (responder.respond(line, reply, attachment)) {
    replies.push_back(reply);
    bytes += attachment;
  }
  return true;
}

bool LocalChannel::receive(std::string &line, int timeoutMs, std::string &err) {
  if (replies.empty()) {
    err = "no answer within " + std::to_string(timeoutMs) + " ms";
    return false;
  }
  line = replies.front();
  replies.erase(replies.begin());
  bytesReceived += line.size() + 1;
  return true;
}

bool LocalChannel::receiveBytes(char *out, size_t n, int timeoutMs,
                                std::string &err) {
  if (bytes.size() < n) {
    err = "no answer within " + std::to_string(timeoutMs) + " ms";
    return false;
  }
  std::memcpy(out, bytes.data(), n);
  bytes.erase(0, n);
  bytesReceived += n;
  return true;
}

} // namespace dispute
} // namespace plumb

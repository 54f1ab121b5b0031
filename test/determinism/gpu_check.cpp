//===- test/determinism/gpu_check.cpp - CPU vs CUDA twin bit check -*- C++ -*-===//
//
// Part of Plumb. Runs every case of cases.h on the CPU kernels and on the
// CUDA twin (plumb_cuda.h), hashes both outputs (SHA-256 of the bytes) and
// prints a table: kernel, shape, tree, cpu hash, gpu hash, match, times.
// Linked against plumb_runtime_cuda it tests the real GPU
// (plumb-gpu-check); linked against runtime/cuda/host_emulation.cpp it runs the twin's
// launchers and per-element code on the host (plumb-gpu-check-emu).
//
// Exit status: 0 every compared case matches, 1 a mismatch (or a device
// error), 3 no GPU found (the CPU half still ran and is printed).
// Usage: plumb-gpu-check [--filter S] [--reps N] [--threads N] [--all]
//   --all  also list the cases without a device kernel (LSTM/GRU)
//
//===----------------------------------------------------------------------===//
#include "cases.h"
#include "plumb_cuda.h"

#include "plumb/runtime/cast.h"
#include "plumb/runtime/elementwise.h"
#include "plumb/runtime/threads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

using namespace plumbdet;

namespace {

struct Dev {
  void *p = nullptr;
  size_t bytes = 0;
  int err = 0;
  explicit Dev(size_t b) : bytes(b) {
    err |= plumb_cuda_alloc(&p, b);
    if (!err)
      err |= plumb_cuda_memset(p, 0xA5, b); // poison: unwritten outputs show
  }
  template <typename T> explicit Dev(const std::vector<T> &v) : Dev(v.size() * sizeof(T)) {
    if (!err && !v.empty())
      err |= plumb_cuda_upload(p, v.data(), bytes);
  }
  ~Dev() {
    if (p)
      plumb_cuda_free(p);
  }
  Dev(const Dev &) = delete;
  Dev &operator=(const Dev &) = delete;
  float *f() const { return static_cast<float *>(p); }
  template <typename T> std::vector<T> get() const {
    std::vector<T> v(bytes / sizeof(T));
    if (!v.empty())
      plumb_cuda_download(v.data(), p, bytes);
    return v;
  }
};

int mathUnaryOp(int64_t fn) {
  switch (fn) {
  case MathExp: return PLUMB_RT_EXP;
  case MathLog: return PLUMB_RT_LOG;
  case MathTanh: return PLUMB_RT_TANH;
  case MathSigmoid: return PLUMB_RT_SIGMOID;
  case MathErf: return PLUMB_RT_ERF;
  case MathSqrt: return PLUMB_RT_SQRT;
  case MathReciprocal: return PLUMB_RT_RECIPROCAL;
  case MathGelu: return PLUMB_RT_GELU;
  case MathGeluTanh: return PLUMB_RT_GELU_TANH;
  default: return -1;
  }
}

bool deviceSupports(const Case &c) {
  // ScatterND and TopK have no CUDA twin yet (kernels.def: 0; CUDA runs them
  // on the host).
  return c.kind != Kind::Lstm && c.kind != Kind::Gru &&
         c.kind != Kind::ScatterNd && c.kind != Kind::TopK &&
         c.kind != Kind::Rnn; // RNN: no CUDA twin, as LSTM / GRU
}

/// Runs one case on the device. `launch` is called `reps` times (the result
/// of the last call is kept; launches are idempotent); *ms gets the fastest.
Output runDevice(const Case &c, int reps, double *ms) {
  Output o;
  std::vector<Dev *> keep;
  auto in = [&](size_t i) {
    Dev *d = new Dev(c.in[i]);
    keep.push_back(d);
    o.status |= d->err;
    return d->f();
  };
  auto outBuf = [&](size_t bytes) {
    Dev *d = new Dev(bytes);
    keep.push_back(d);
    o.status |= d->err;
    return d;
  };
  cudaStream_t s = nullptr;
  std::vector<Dev *> outs;
  std::vector<int> outKind; // 0 f32, 1 i64, 2 i32, 3 u8
  auto addOut = [&](size_t n, int kind) {
    static const size_t sz[] = {4, 8, 4, 1};
    Dev *d = outBuf(n * sz[kind]);
    outs.push_back(d);
    outKind.push_back(kind);
    return d->p;
  };
  std::function<int()> launch;
  switch (c.kind) {
  case Kind::Gemm: {
    int64_t M = c.p[0], N = c.p[1], K = c.p[2];
    bool ta = c.p[3], tb = c.p[4];
    int cRank = (int)c.p[5];
    const float *A = in(0), *B = in(1);
    const float *C = cRank ? in(2) : nullptr;
    int64_t c_rs = 0, c_cs = 0;
    if (cRank == 1)
      c_cs = c.p[6] == 1 ? 0 : 1;
    else if (cRank == 2) {
      c_rs = c.p[6] == 1 ? 0 : c.p[7];
      c_cs = c.p[7] == 1 ? 0 : 1;
    }
    float *Y = (float *)addOut((size_t)(M * N), 0);
    float alpha = c.f[0], beta = c.f[1];
    int64_t block = c.block;
    launch = [=] {
      return plumb_cuda_gemm_strided(M, N, K, alpha, A, ta ? 1 : K, ta ? M : 1,
                                     B, tb ? 1 : N, tb ? K : 1, beta, C, c_rs,
                                     c_cs, Y, N, block, s);
    };
    break;
  }
  case Kind::MatMul: {
    int64_t Bt = c.p[0], M = c.p[1], N = c.p[2], K = c.p[3];
    const float *A = in(0), *B = in(1);
    float *Y = (float *)addOut((size_t)(Bt * M * N), 0);
    int64_t abs_ = c.p[4] ? 0 : M * K, bbs = c.p[5] ? 0 : K * N, block = c.block;
    launch = [=] {
      return plumb_cuda_matmul_batched(Bt, M, N, K, A, abs_, B, bbs, Y, block, s);
    };
    break;
  }
  case Kind::Conv2d:
  case Kind::Conv1d:
  case Kind::ConvT2d:
  case Kind::ConvT1d: {
    plumb_conv2d_params p = {c.p[CN],  c.p[CCin],   c.p[CH],  c.p[CW],
                             c.p[CCout], c.p[CKH],  c.p[CKW], c.p[COH],
                             c.p[COW], c.p[CGroup], c.p[CSH], c.p[CSW],
                             c.p[CDH], c.p[CDW],    c.p[CPT], c.p[CPL],
                             c.p[CPB], c.p[CPR]};
    const float *X = in(0), *W = in(1);
    const float *bias = c.p[CHasBias] ? in(2) : nullptr;
    float *Y = (float *)addOut((size_t)(p.N * p.Cout * p.OH * p.OW), 0);
    int64_t block = c.block;
    Kind k = c.kind;
    launch = [=] {
      if (k == Kind::Conv2d)
        return plumb_cuda_conv2d(&p, X, W, bias, Y, block, s);
      if (k == Kind::ConvT2d)
        return plumb_cuda_conv_transpose2d(&p, X, W, bias, Y, block, s);
      if (k == Kind::Conv1d)
        return plumb_cuda_conv1d(p.N, p.Cin, p.W, p.Cout, p.KW, p.group,
                                 p.stride_w, p.dilation_w, p.pad_left,
                                 p.pad_right, X, W, bias, Y, block, s);
      return plumb_cuda_conv_transpose1d(p.N, p.Cin, p.W, p.Cout, p.KW, p.OW,
                                         p.group, p.stride_w, p.dilation_w,
                                         p.pad_left, p.pad_right, X, W, bias,
                                         Y, block, s);
    };
    break;
  }
  case Kind::ConvTNd: {
    plumb_convnd_params p = convNdParams(c);
    const float *X = in(0), *W = in(1);
    const float *bias = c.p[4] ? in(2) : nullptr;
    int64_t n = p.N * p.Cout;
    for (int64_t j = 0; j < p.spatial; ++j)
      n *= p.out[j];
    float *Y = (float *)addOut((size_t)n, 0);
    int64_t block = c.block;
    launch = [=] {
      return plumb_cuda_conv_transpose_nd(&p, X, W, bias, Y, block, s);
    };
    break;
  }
  case Kind::ConvNd: {
    plumb_convnd_params p = convNdParams(c);
    const float *X = in(0), *W = in(1);
    const float *bias = c.p[4] ? in(2) : nullptr;
    int64_t n = p.N * p.Cout;
    for (int64_t j = 0; j < p.spatial; ++j)
      n *= p.out[j];
    float *Y = (float *)addOut((size_t)n, 0);
    int64_t block = c.block;
    launch = [=] { return plumb_cuda_conv_nd(&p, X, W, bias, Y, block, s); };
    break;
  }
  case Kind::Math: {
    const float *x = in(0);
    int64_t n = (int64_t)c.in[0].size();
    float *y = (float *)addOut((size_t)n, 0);
    int op = mathUnaryOp(c.p[0]);
    if (op >= 0) {
      launch = [=] { return plumb_cuda_unary_f32(op, x, y, n, 0.0f, 0.0f, s); };
    } else if (c.p[0] == MathPow) {
      const float *e = in(1);
      launch = [=] {
        int64_t sh[1] = {n};
        return plumb_cuda_binary_f32(PLUMB_RT_POW, x, sh, 1, e, sh, 1, y, sh, 1, s);
      };
    } else { // pow_scalar: rank-0 exponent
      std::vector<float> ev = {c.f[0]};
      Dev *ed = new Dev(ev);
      keep.push_back(ed);
      const float *e = ed->f();
      launch = [=] {
        int64_t sh[1] = {n};
        return plumb_cuda_binary_f32(PLUMB_RT_POW, x, sh, 1, e, nullptr, 0, y,
                                     sh, 1, s);
      };
    }
    break;
  }
  case Kind::Unary: {
    const float *x = in(0);
    int64_t n = (int64_t)c.in[0].size();
    float *y = (float *)addOut((size_t)n, 0);
    int32_t op = (int32_t)c.p[0];
    float a = c.f[0], b = c.f[1];
    launch = [=] { return plumb_cuda_unary_f32(op, x, y, n, a, b, s); };
    break;
  }
  case Kind::Binary: {
    std::vector<int64_t> os = broadcastShape(c.ia, c.ib);
    const float *a = in(0), *b = in(1);
    int32_t op = (int32_t)c.p[0];
    void *y = addOut((size_t)numel(os), isComparisonOp(op) ? 3 : 0);
    std::vector<int64_t> as = c.ia, bs = c.ib;
    launch = [=] {
      return plumb_cuda_binary_f32(op, a, as.data(), (int32_t)as.size(), b,
                                   bs.data(), (int32_t)bs.size(), y, os.data(),
                                   (int32_t)os.size(), s);
    };
    break;
  }
  case Kind::Reduce: {
    int64_t outN = numel(c.ia);
    for (int64_t a : c.ib)
      outN /= c.ia[(size_t)a];
    const float *x = in(0);
    float *y = (float *)addOut((size_t)outN, 0);
    std::vector<int64_t> sh = c.ia, ax = c.ib;
    int32_t op = (int32_t)c.p[0];
    int64_t block = c.block;
    launch = [=] {
      return plumb_cuda_reduce_f32(op, x, sh.data(), (int32_t)sh.size(),
                                   ax.data(), (int32_t)ax.size(), y, block, s);
    };
    break;
  }
  case Kind::ArgMax: {
    const float *x = in(0);
    int64_t *y = (int64_t *)addOut((size_t)(numel(c.ia) / c.ia[(size_t)c.p[0]]), 1);
    std::vector<int64_t> sh = c.ia;
    int32_t axis = (int32_t)c.p[0], mn = (int32_t)c.p[1], last = (int32_t)c.p[2];
    launch = [=] {
      return plumb_cuda_argmax_f32(x, sh.data(), (int32_t)sh.size(), axis, mn,
                                   last, y, s);
    };
    break;
  }
  case Kind::Softmax: {
    const float *x = in(0);
    float *y = (float *)addOut(c.in[0].size(), 0);
    int64_t a = c.p[0], b = c.p[1], cc = c.p[2], block = c.block;
    int32_t lg = (int32_t)c.p[3];
    launch = [=] { return plumb_cuda_softmax_f32(x, y, a, b, cc, lg, block, s); };
    break;
  }
  case Kind::MaxPool:
  case Kind::AvgPool: {
    int32_t sd = (int32_t)c.p[2];
    std::vector<int64_t> inS(3), outS(3), k(3), st(3), pads(6), dil(3);
    for (int d = 0; d < sd; ++d) {
      inS[d] = c.p[3 + d];
      outS[d] = c.p[6 + d];
      k[d] = c.p[9 + d];
      st[d] = c.p[12 + d];
      pads[d] = c.p[15 + d];
      pads[sd + d] = c.p[18 + d];
      dil[d] = c.p[21 + d];
    }
    int64_t total = c.p[0] * c.p[1];
    for (int d = 0; d < sd; ++d)
      total *= outS[d];
    const float *x = in(0);
    float *y = (float *)addOut((size_t)total, 0);
    int64_t n = c.p[0], ch = c.p[1], flag = c.p[24];
    if (c.kind == Kind::MaxPool) {
      int64_t *idx = (int64_t *)addOut(flag ? (size_t)total : 0, 1);
      launch = [=] {
        return plumb_cuda_maxpool_f32(x, n, ch, sd, inS.data(), outS.data(),
                                      k.data(), st.data(), pads.data(),
                                      dil.data(), y, flag ? idx : nullptr, s);
      };
    } else {
      launch = [=] {
        return plumb_cuda_avgpool_f32(x, n, ch, sd, inS.data(), outS.data(),
                                      k.data(), st.data(), pads.data(),
                                      dil.data(), (int32_t)flag, y, s);
      };
    }
    break;
  }
  case Kind::GlobalPool: {
    const float *x = in(0);
    float *y = (float *)addOut((size_t)c.p[0], 0);
    int64_t nc = c.p[0], sp = c.p[1], block = c.block < 0 ? 0 : c.block;
    int32_t mx = (int32_t)c.p[2];
    launch = [=] { return plumb_cuda_global_pool_f32(x, nc, sp, mx, y, block, s); };
    break;
  }
  case Kind::BatchNorm: {
    const float *x = in(0), *sc = in(1), *bi = in(2), *mu = in(3), *va = in(4);
    float *y = (float *)addOut(c.in[0].size(), 0);
    int64_t n = c.p[0], ch = c.p[1], sp = c.p[2];
    float eps = c.f[0];
    launch = [=] {
      return plumb_cuda_batchnorm_f32(x, n, ch, sp, sc, bi, mu, va, eps, y, s);
    };
    break;
  }
  case Kind::LayerNorm: {
    const float *x = in(0), *sc = in(1);
    const float *bi = c.p[2] ? in(2) : nullptr;
    float *y = (float *)addOut(c.in[0].size(), 0);
    float *mean = (float *)addOut((size_t)c.p[0], 0);
    float *inv = (float *)addOut((size_t)c.p[0], 0);
    int64_t outer = c.p[0], d = c.p[1], block = c.block;
    float eps = c.f[0];
    launch = [=] {
      return plumb_cuda_layernorm_f32(x, outer, d, sc, bi, eps, y, mean, inv,
                                      block, s);
    };
    break;
  }
  case Kind::InstanceNorm: {
    const float *x = in(0), *sc = in(1), *bi = in(2);
    float *y = (float *)addOut(c.in[0].size(), 0);
    int64_t n = c.p[0], ch = c.p[1], sp = c.p[2], block = c.block;
    float eps = c.f[0];
    launch = [=] {
      return plumb_cuda_instancenorm_f32(x, n, ch, sp, sc, bi, eps, y, block, s);
    };
    break;
  }
  case Kind::Resize: {
    const float *x = in(0);
    float *y = (float *)addOut((size_t)numel(c.ib), 0);
    std::vector<int64_t> is = c.ia, os = c.ib;
    std::vector<float> sc = c.f;
    int32_t mode = (int32_t)c.p[0], coord = (int32_t)c.p[1], near = (int32_t)c.p[2];
    launch = [=] {
      if (mode == 2) // cubic (cases.cpp): `near` holds exclude_outside
        return plumb_cuda_resize_cubic_f32(
            x, is.data(), (int32_t)is.size(), os.data(),
            sc.empty() ? nullptr : sc.data(), coord, -0.75f, near, y, s);
      return plumb_cuda_resize_f32(x, is.data(), (int32_t)is.size(), os.data(),
                                   sc.empty() ? nullptr : sc.data(), mode,
                                   coord, near, y, s);
    };
    break;
  }
  case Kind::GridSample: {
    const float *x = in(0), *grid = in(1);
    float *y = (float *)addOut((size_t)numel(c.ib), 0);
    std::vector<int64_t> is = c.ia, os = c.ib;
    int32_t mode = (int32_t)c.p[0], pad = (int32_t)c.p[1],
            align = (int32_t)c.p[2];
    launch = [=] {
      return plumb_cuda_grid_sample_f32(x, is.data(), (int32_t)is.size(), grid,
                                        os.data(), mode, pad, align, y, s);
    };
    break;
  }
  case Kind::Dft: {
    const float *x = in(0);
    const float *w = c.p[9] ? in(1) : nullptr;
    float *y = (float *)addOut((size_t)dftOutputs(c), 0);
    float *scratch = (float *)outBuf((size_t)dftScratch(c) * 4)->p;
    std::vector<int64_t> p = c.p;
    launch = [=] {
      return plumb_cuda_dft_f32(x, w, p[0], p[1], p[2], (int32_t)p[3], p[4],
                                p[5], (int32_t)p[6], p[7], p[8], scratch, y,
                                s);
    };
    break;
  }
  case Kind::GatherNd: {
    const float *data = in(0);
    std::vector<int64_t> idx(c.in[1].begin(), c.in[1].end());
    Dev *di = new Dev(idx);
    keep.push_back(di);
    o.status |= di->err;
    const void *indices = di->p;
    float *y = (float *)addOut((size_t)gatherNdOutputs(c), 0);
    launch = [=, &c] {
      return plumb_cuda_gather_nd(data, c.ia.data(), (int32_t)c.ia.size(),
                                  indices, 0, c.ib.data(), (int32_t)c.ib.size(),
                                  (int32_t)c.p[0], y, 4, s);
    };
    break;
  }
  case Kind::Cast: {
    const float *x = in(0);
    int64_t n = (int64_t)c.in[0].size();
    int32_t to = (int32_t)c.p[0];
    void *y = addOut((size_t)n, to == PLUMB_RT_I64 ? 1 : to == PLUMB_RT_I32 ? 2 : 3);
    launch = [=] { return plumb_cuda_cast_f32(x, y, to, n, s); };
    break;
  }
  default:
    break;
  }
  *ms = -1;
  if (launch && o.status == 0) {
    for (int r = 0; r < reps; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      int rc = launch();
      int sy = plumb_cuda_synchronize(s);
      auto t1 = std::chrono::steady_clock::now();
      double t = std::chrono::duration<double, std::milli>(t1 - t0).count();
      if (*ms < 0 || t < *ms)
        *ms = t;
      o.status = rc != 0 ? rc : sy;
      if (o.status)
        break;
    }
    for (size_t i = 0; i < outs.size(); ++i) {
      switch (outKind[i]) {
      case 0: o.addF32(outs[i]->get<float>()); break;
      case 1: o.addI64(outs[i]->get<int64_t>()); break;
      case 2: o.addI32(outs[i]->get<int32_t>()); break;
      default: o.addU8(outs[i]->get<uint8_t>()); break;
      }
    }
  }
  for (Dev *d : keep)
    delete d;
  return o;
}

} // namespace

int main(int argc, char **argv) {
  std::string filter;
  int reps = 3, threads = 1;
  bool all = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--filter" && i + 1 < argc)
      filter = argv[++i];
    else if (a == "--reps" && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (a == "--threads" && i + 1 < argc)
      threads = atoi(argv[++i]);
    else if (a == "--all")
      all = true;
    else {
      fprintf(stderr, "usage: %s [--filter S] [--reps N] [--threads N] [--all]\n",
              argv[0]);
      return 2;
    }
  }
  if (reps < 1)
    reps = 1;
  plumb_rt_set_threads(threads);
  const bool haveGpu = plumb_cuda_device_count() > 0;
  char dev[256] = "none";
  if (haveGpu)
    plumb_cuda_device_name(dev, sizeof dev);
  printf("device: %s\n", haveGpu ? dev : "no GPU found");
  printf("%-48s %-30s %-5s %-16s %-16s %-5s %9s %9s\n", "kernel", "shape",
         "tree", "cpu sha256", "gpu sha256", "match", "cpu ms", "gpu ms");
  int compared = 0, mismatched = 0, cpuOnly = 0;
  for (const Case &c : buildCases()) {
    if (!filter.empty() && c.name.find(filter) == std::string::npos)
      continue;
    const bool dev = deviceSupports(c);
    if (!dev && !all) {
      ++cpuOnly;
      continue;
    }
    auto t0 = std::chrono::steady_clock::now();
    Output oc = runCpu(c);
    auto t1 = std::chrono::steady_clock::now();
    const double cms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    const std::string hc = oc.sha256Hex();
    std::string hg = "-", match = "-";
    double gms = -1;
    if (dev && haveGpu) {
      Output og = runDevice(c, reps, &gms);
      hg = og.sha256Hex();
      ++compared;
      if (hg == hc && og.bytes == oc.bytes) {
        match = "yes";
      } else {
        match = "NO";
        ++mismatched;
        size_t first = 0;
        while (first < oc.bytes.size() && first < og.bytes.size() &&
               oc.bytes[first] == og.bytes[first])
          ++first;
        fprintf(stderr, "mismatch %s: status cpu %d gpu %d, first differing byte %zu of %zu\n",
                c.name.c_str(), oc.status, og.status, first, oc.bytes.size());
      }
    } else if (!dev) {
      hg = "(cpu only)";
    }
    char tree[16] = "-";
    if (c.block >= 0)
      snprintf(tree, sizeof tree, "%s", c.block == 0 ? "seq" : ("b" + std::to_string(c.block)).c_str());
    printf("%-48s %-30s %-5s %-16.16s %-16.16s %-5s %9.3f %9.3f\n",
           c.name.c_str(), c.shape.substr(0, 30).c_str(), tree, hc.c_str(),
           hg.c_str(), match.c_str(), cms, gms);
  }
  if (!haveGpu) {
    printf("no GPU found: CPU half computed; GPU half skipped\n");
    return 3;
  }
  printf("%d cases compared on %s: %d match, %d mismatch (%d cpu-only cases "
         "not listed)\n",
         compared, dev, compared - mismatched, mismatched, cpuOnly);
  return mismatched ? 1 : 0;
}

//===- bench/bench_conv.cpp - plumb-bench conv group -----------*- C++ -*-===//
//
// Part of Plumb. Deterministic Conv2d (plumb_rt_conv2d, tree blocked(256))
// vs an OpenBLAS baseline (straightforward im2col + cblas_sgemm per image and
// group + bias add) on ResNet-50 and MobileNet-v2 layer shapes and depthwise shapes of
// mobile CNNs, batch 1.
//
//===----------------------------------------------------------------------===//
#include "bench_common.h"

#include "plumb/runtime/conv.h"

#include <cblas.h>

#include <stdio.h>

#include <string>
#include <vector>

namespace plumb {
namespace bench {
namespace {

/// Baseline: classic im2col (zero padding) + sgemm, then bias.
void blasConv(const plumb_conv2d_params &p, const float *X, const float *Wt,
              const float *bias, float *Y, std::vector<float> &col) {
  const int64_t Cg = p.Cin / p.group, Mg = p.Cout / p.group;
  const int64_t K = Cg * p.KH * p.KW, P = p.OH * p.OW;
  col.resize(K * P);
  for (int64_t n = 0; n < p.N; ++n)
    for (int64_t g = 0; g < p.group; ++g) {
      for (int64_t k = 0; k < K; ++k) {
        const int64_t ci = k / (p.KH * p.KW), kh = (k / p.KW) % p.KH,
                      kw = k % p.KW;
        const float *xc = X + ((n * p.Cin + g * Cg + ci) * p.H) * p.W;
        for (int64_t oh = 0; oh < p.OH; ++oh) {
          const int64_t ih = oh * p.stride_h - p.pad_top + kh * p.dilation_h;
          for (int64_t ow = 0; ow < p.OW; ++ow) {
            const int64_t iw =
                ow * p.stride_w - p.pad_left + kw * p.dilation_w;
            col[k * P + oh * p.OW + ow] =
                (ih < 0 || ih >= p.H || iw < 0 || iw >= p.W)
                    ? 0.0f
                    : xc[ih * p.W + iw];
          }
        }
      }
      float *y = Y + (n * p.Cout + g * Mg) * P;
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, Mg, P, K, 1.0f,
                  Wt + g * Mg * K, K, col.data(), P, 0.0f, y, P);
      for (int64_t m = 0; m < Mg; ++m)
        for (int64_t e = 0; e < P; ++e)
          y[m * P + e] += bias[g * Mg + m];
    }
}

} // namespace

int runConv(const Options &o) {
  struct Case {
    const char *name;
    int64_t Cin, H, Cout, K, stride, pad, group;
  };
  const Case cases[] = {
      {"resnet50.conv1", 3, 224, 64, 7, 2, 3, 1},
      {"resnet50.l1.1x1", 64, 56, 64, 1, 1, 0, 1},
      {"resnet50.l1.3x3", 64, 56, 64, 3, 1, 1, 1},
      {"resnet50.l1.expand", 64, 56, 256, 1, 1, 0, 1},
      {"resnet50.l2.3x3", 128, 28, 128, 3, 1, 1, 1},
      {"resnet50.l3.3x3", 256, 14, 256, 3, 1, 1, 1},
      {"resnet50.l3.1x1", 1024, 14, 256, 1, 1, 0, 1},
      {"resnet50.l4.3x3", 512, 7, 512, 3, 1, 1, 1},
      {"mobilenetv2.pw.expand", 24, 56, 144, 1, 1, 0, 1},
      {"mobilenetv2.dw.3x3", 144, 56, 144, 3, 1, 1, 144},
      {"mobilenetv2.dw.3x3s2", 96, 112, 96, 3, 2, 1, 96},
      {"mobilenetv2.pw.project", 144, 28, 32, 1, 1, 0, 1},
      // Depthwise shapes of mobile CNNs (EdgeNeXt, ConvNeXtV2, MobileNetV3,
      // EfficientViT, LeViT): small planes, 3x3 to 7x7, stride 1 and 2.
      {"dw.c32.56.k3", 32, 56, 32, 3, 1, 1, 32},
      {"dw.c48.56.k7", 48, 56, 48, 7, 1, 3, 48},
      {"dw.c64.28.k3", 64, 28, 64, 3, 1, 1, 64},
      {"dw.c64.56.k3s2", 64, 56, 64, 3, 2, 1, 64},
      {"dw.c96.14.k3", 96, 14, 96, 3, 1, 1, 96},
      {"dw.c96.28.k5s2", 96, 28, 96, 5, 2, 2, 96},
      {"dw.c160.14.k7", 160, 14, 160, 7, 1, 3, 160},
      {"dw.c192.14.k3s2", 192, 14, 192, 3, 2, 1, 192},
      {"dw.c192.7.k3", 192, 7, 192, 3, 1, 1, 192},
      {"dw.c304.7.k7", 304, 7, 304, 7, 1, 3, 304},
      {"dw.c88.14.k5", 88, 14, 88, 5, 1, 2, 88},
      {"dw.c576.7.k5", 576, 7, 576, 5, 1, 2, 576},
  };
  const int64_t block = 256;
  GeoMean all;
  for (const Case &c : cases) {
    if (!o.filter.empty() && std::string(c.name).find(o.filter) == std::string::npos)
      continue;
    plumb_conv2d_params p = {1, c.Cin, c.H, c.H, c.Cout, c.K, c.K, 0, 0,
                             c.group, c.stride, c.stride, 1, 1, c.pad, c.pad,
                             c.pad, c.pad};
    p.OH = plumb_rt_conv_out_dim(c.H, c.K, c.stride, 1, c.pad, c.pad);
    p.OW = p.OH;
    auto X = randomFloats(p.Cin * p.H * p.W, 1);
    auto Wt = randomFloats(p.Cout * (p.Cin / p.group) * p.KH * p.KW, 2);
    auto bias = randomFloats(p.Cout, 3);
    std::vector<float> Y(p.Cout * p.OH * p.OW), Z(Y.size()), col;
    const double flops = 2.0 * p.Cout * p.OH * p.OW * (p.Cin / p.group) *
                         p.KH * p.KW;
    const double minS = o.quick ? 0.15 : 1.0;
    double tp = timeBest(
        [&] {
          plumb_rt_conv2d(&p, X.data(), Wt.data(), bias.data(), Y.data(),
                          block);
        },
        minS);
    double tb = timeBest(
        [&] { blasConv(p, X.data(), Wt.data(), bias.data(), Z.data(), col); },
        minS);
    double gp = flops / tp * 1e-9, gb = flops / tb * 1e-9;
    printf("conv %-24s plumb=%7.1f GFLOP/s openblas_im2col=%7.1f GFLOP/s "
           "ratio=%.3f\n",
           c.name, gp, gb, gp / gb);
    fflush(stdout);
    all.add(gp / gb);
  }
  printf("conv ratio_vs_openblas=%.3f threads=%d\n", all.value(), o.threads);
  return 0;
}

} // namespace bench
} // namespace plumb

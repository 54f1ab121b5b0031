// Gas of recurrent networks. Per step, batch row, direction and hidden unit
// ("units"): every gate is an (input + H)-term dot product; LSTM adds 3 per
// gate (x.W + h.R + Wb + Rb), 3 for c' = f*c + i*g, 1 for h' = o*tanh(c'),
// 6 with peepholes, and evaluates 5 transcendental functions; GRU adds 3
// per gate, 1 for the reset product, 4 for h' = (1-z)*n + z*h, and
// evaluates 3. Clipping is 2 compare steps per gate.
// plumb-gas-v1: base 112564, MAC 24, elementwise 148, transcendental 4091,
// compare 1092, indexed 264, byte read 1, byte written 143.
// RUN: plumb-opt %s -split-input-file -plumb-print-gas -o /dev/null | FileCheck %s

// LSTM seq 5, batch 2, input 3, H 4, forward: 40 units.
// MACs 40 x 4 gates x 7 = 1120; elementwise 40 x (12+3+1+6) = 880;
// transcendental 40 x 5 = 200; read X 120 + W 192 + R 256 + B 128 + h 32 +
// c 32 + P 48 = 808; written Y 160 + Y_h 32 + Y_c 32 = 224.
// gas = 112564 + 24*1120 + 148*880 + 4091*200 + 808 + 143*224 = 1120724.
// CHECK: node 0 plumb.lstm macs=1120 elementwise=880 transcendental=200 compare=0 indexed=0 read=808 written=224 gas=1120724
// Clip, no peepholes or bias: elementwise 40 x 16 = 640, compare 40 x 8.
// CHECK: node 1 plumb.lstm macs=1120 elementwise=640 transcendental=200 compare=320 indexed=0 read=568 written=224 gas=1434404
func.func @main(%x: tensor<5x2x3xf32>, %w: tensor<1x16x3xf32>, %r: tensor<1x16x4xf32>, %b: tensor<1x32xf32>, %h: tensor<1x2x4xf32>, %c: tensor<1x2x4xf32>, %p: tensor<1x12xf32>) -> (tensor<1x2x4xf32>, tensor<1x2x4xf32>) {
  %y, %yh, %yc = plumb.lstm %x, %w, %r bias %b initial_h %h initial_c %c peephole %p {direction = "forward", hidden_size = 4 : i64, input_forget = false} : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, tensor<1x32xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x12xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  %y2, %y2h, %y2c = plumb.lstm %x, %w, %r {clip = 3.0 : f32, direction = "reverse", hidden_size = 4 : i64, input_forget = false} : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  return %yh, %y2h : tensor<1x2x4xf32>, tensor<1x2x4xf32>
}

// -----

// GRU bidirectional, seq 5, batch 2, input 3, H 4: 80 units.
// MACs 80 x 3 x 7 = 1680; elementwise 80 x 14 = 1120; transcendental 240;
// read X 120 + W 288 + R 384 + h 64 = 856; written Y 320 + Y_h 64 = 384.
// CHECK: node 0 plumb.gru macs=1680 elementwise=1120 transcendental=240 compare=0 indexed=0 read=856 written=384 gas=1356252
func.func @main(%x: tensor<5x2x3xf32>, %w: tensor<2x12x3xf32>, %r: tensor<2x12x4xf32>, %h: tensor<2x2x4xf32>) -> tensor<2x2x4xf32> {
  %y, %yh = plumb.gru %x, %w, %r initial_h %h {direction = "bidirectional", hidden_size = 4 : i64, linear_before_reset = true} : (tensor<5x2x3xf32>, tensor<2x12x3xf32>, tensor<2x12x4xf32>, tensor<2x2x4xf32>) -> (tensor<5x2x2x4xf32>, tensor<2x2x4xf32>)
  return %yh : tensor<2x2x4xf32>
}

// -----

// RNN bidirectional, seq 5, batch 2, input 3, H 4: 80 units, one gate.
// MACs 80 x 7 = 560; elementwise 80 x (3 adds + 1 for relu, the dearer
// direction's non-transcendental part) = 320; transcendental 80 (tanh);
// read X 120 + W 96 + R 128 + B 64 = 408; written Y 320 + Y_h 64 = 384.
// gas = 112564 + 24*560 + 148*320 + 4091*80 + 408 + 143*384 = 555964.
// CHECK: node 0 plumb.rnn macs=560 elementwise=320 transcendental=80 compare=0 indexed=0 read=408 written=384 gas=555964
// hard_sigmoid with clip, forward: 40 units; elementwise 40 x (3 + 2);
// compare 40 x (2 clip + 2 clamp); no transcendental.
// CHECK: node 1 plumb.rnn macs=280 elementwise=200 transcendental=0 compare=160 indexed=0
func.func @main(%x: tensor<5x2x3xf32>, %w: tensor<2x4x3xf32>, %r: tensor<2x4x4xf32>, %b: tensor<2x8xf32>, %w1: tensor<1x4x3xf32>, %r1: tensor<1x4x4xf32>) -> (tensor<2x2x4xf32>, tensor<1x2x4xf32>) {
  %y, %yh = plumb.rnn %x, %w, %r bias %b {activation_alpha = array<f32: 0.0, 0.0>, activation_beta = array<f32: 0.0, 0.0>, activations = ["relu", "tanh"], direction = "bidirectional", hidden_size = 4 : i64} : (tensor<5x2x3xf32>, tensor<2x4x3xf32>, tensor<2x4x4xf32>, tensor<2x8xf32>) -> (tensor<5x2x2x4xf32>, tensor<2x2x4xf32>)
  %z, %zh = plumb.rnn %x, %w1, %r1 {activation_alpha = array<f32: 0.2>, activation_beta = array<f32: 0.5>, activations = ["hard_sigmoid"], clip = 3.0 : f32, direction = "forward", hidden_size = 4 : i64} : (tensor<5x2x3xf32>, tensor<1x4x3xf32>, tensor<1x4x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
  return %yh, %zh : tensor<2x2x4xf32>, tensor<1x2x4xf32>
}

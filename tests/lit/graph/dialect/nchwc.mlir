// graph.layout_transform and graph.conv_nchwc (the blocked NCHW[x]c layout): the custom form
// prints back exactly, the generic form parses to the same ops, and each verifier error of
// the two ops is pinned to its exact message.
//
// The first chunk is valid: each op once in the custom form and once in the generic form
// (both print in the custom form), and printed generically by the second run. Every later
// chunk fails to verify; with --verify-diagnostics, xDSL 0.75 prints the message, the chunk in
// generic form with the failing op underlined, and "| Operation does not verify: <message>".
//
// RUN: minitvm-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: minitvm-opt %s --split-input-file --verify-diagnostics --print-op-generic | filecheck %s --check-prefix=GENERIC

// NCHW -> NCHW16c -> NCHW8c (re-blocking) -> NCHW: result types are inferred from the layouts.
// CHECK-LABEL: func.func @layout_transform(
// CHECK-SAME:      %[[X:\w+]]: tensor<1x64x8x8xf32>) -> tensor<1x64x8x8xf32> {
// CHECK-NEXT:    %[[B16:\w+]] = graph.layout_transform %[[X]] {src_layout = "NCHW", dst_layout = "NCHW16c"} : tensor<1x64x8x8xf32> -> tensor<1x4x8x8x16xf32>
// CHECK-NEXT:    %[[B8:\w+]] = graph.layout_transform %[[B16]] {src_layout = "NCHW16c", dst_layout = "NCHW8c"} : tensor<1x4x8x8x16xf32> -> tensor<1x8x8x8x8xf32>
// CHECK-NEXT:    %[[Y:\w+]] = graph.layout_transform %[[B8]] {src_layout = "NCHW8c", dst_layout = "NCHW"} : tensor<1x8x8x8x8xf32> -> tensor<1x64x8x8xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x64x8x8xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "layout_transform"
// GENERIC-NEXT:  ^bb0(%[[X:\w+]]: tensor<1x64x8x8xf32>):
// GENERIC-NEXT:    %[[B16:\w+]] = "graph.layout_transform"(%[[X]]) <{src_layout = "NCHW", dst_layout = "NCHW16c"}> : (tensor<1x64x8x8xf32>) -> tensor<1x4x8x8x16xf32>
// GENERIC-NEXT:    %[[B8:\w+]] = "graph.layout_transform"(%[[B16]]) <{src_layout = "NCHW16c", dst_layout = "NCHW8c"}> : (tensor<1x4x8x8x16xf32>) -> tensor<1x8x8x8x8xf32>
// GENERIC-NEXT:    %[[Y:\w+]] = "graph.layout_transform"(%[[B8]]) <{src_layout = "NCHW8c", dst_layout = "NCHW"}> : (tensor<1x8x8x8x8xf32>) -> tensor<1x64x8x8xf32>
func.func @layout_transform(%x: tensor<1x64x8x8xf32>) -> tensor<1x64x8x8xf32> {
  %0 = graph.layout_transform %x {src_layout = "NCHW", dst_layout = "NCHW16c"} : tensor<1x64x8x8xf32> -> tensor<1x4x8x8x16xf32>
  %1 = graph.layout_transform %0 {src_layout = "NCHW16c", dst_layout = "NCHW8c"} : tensor<1x4x8x8x16xf32> -> tensor<1x8x8x8x8xf32>
  %2 = "graph.layout_transform"(%1) <{src_layout = "NCHW8c", dst_layout = "NCHW"}> : (tensor<1x8x8x8x8xf32>) -> tensor<1x64x8x8xf32>
  func.return %2 : tensor<1x64x8x8xf32>
}

// graph.conv_nchwc: optional bias [M]; strides, pads (h_begin, w_begin, h_end, w_end) and
// dilations as graph.conv's (absent = 1, 0, 1; written ones are kept); an input block of 3
// (an RGB image) with an output block of 16; a depthwise conv (group = the 64 channels).
// CHECK-LABEL: func.func @conv_nchwc(
// CHECK-SAME:      %[[X:\w+]]: tensor<1x4x8x8x16xf32>, %[[W:\w+]]: tensor<2x4x3x3x16x16xf32>, %[[B:\w+]]: tensor<32xf32>, %[[RGB:\w+]]: tensor<1x1x15x15x3xf32>, %[[WR:\w+]]: tensor<1x1x7x7x3x16xf32>, %[[WD:\w+]]: tensor<4x1x3x3x1x16xf32>) {
// CHECK-NEXT:    %{{\w+}} = graph.conv_nchwc %[[X]], %[[W]] : (tensor<1x4x8x8x16xf32>, tensor<2x4x3x3x16x16xf32>) -> tensor<1x2x6x6x16xf32>
// CHECK-NEXT:    %{{\w+}} = graph.conv_nchwc %[[X]], %[[W]], %[[B]] {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8x16xf32>, tensor<2x4x3x3x16x16xf32>, tensor<32xf32>) -> tensor<1x2x4x4x16xf32>
// CHECK-NEXT:    %{{\w+}} = graph.conv_nchwc %[[X]], %[[W]] {dilations = array<i64: 2, 2>, pads = array<i64: 2, 0, 1, 2>} : (tensor<1x4x8x8x16xf32>, tensor<2x4x3x3x16x16xf32>) -> tensor<1x2x7x6x16xf32>
// CHECK-NEXT:    %{{\w+}} = graph.conv_nchwc %[[RGB]], %[[WR]] {strides = array<i64: 2, 2>, pads = array<i64: 3, 3, 3, 3>} : (tensor<1x1x15x15x3xf32>, tensor<1x1x7x7x3x16xf32>) -> tensor<1x1x8x8x16xf32>
// CHECK-NEXT:    %{{\w+}} = graph.conv_nchwc %[[X]], %[[WD]] {pads = array<i64: 1, 1, 1, 1>, group = 64 : i64} : (tensor<1x4x8x8x16xf32>, tensor<4x1x3x3x1x16xf32>) -> tensor<1x4x8x8x16xf32>
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "conv_nchwc"
// GENERIC-NEXT:  ^bb0(%[[X:\w+]]: tensor<1x4x8x8x16xf32>, %[[W:\w+]]: tensor<2x4x3x3x16x16xf32>, %[[B:\w+]]: tensor<32xf32>, %[[RGB:\w+]]: tensor<1x1x15x15x3xf32>, %[[WR:\w+]]: tensor<1x1x7x7x3x16xf32>, %[[WD:\w+]]: tensor<4x1x3x3x1x16xf32>):
// GENERIC-NEXT:    %{{\w+}} = "graph.conv_nchwc"(%[[X]], %[[W]]) : (tensor<1x4x8x8x16xf32>, tensor<2x4x3x3x16x16xf32>) -> tensor<1x2x6x6x16xf32>
// GENERIC-NEXT:    %{{\w+}} = "graph.conv_nchwc"(%[[X]], %[[W]], %[[B]]) <{strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>}> : (tensor<1x4x8x8x16xf32>, tensor<2x4x3x3x16x16xf32>, tensor<32xf32>) -> tensor<1x2x4x4x16xf32>
// GENERIC-NEXT:    %{{\w+}} = "graph.conv_nchwc"(%[[X]], %[[W]]) <{dilations = array<i64: 2, 2>, pads = array<i64: 2, 0, 1, 2>}> : (tensor<1x4x8x8x16xf32>, tensor<2x4x3x3x16x16xf32>) -> tensor<1x2x7x6x16xf32>
// GENERIC-NEXT:    %{{\w+}} = "graph.conv_nchwc"(%[[RGB]], %[[WR]]) <{strides = array<i64: 2, 2>, pads = array<i64: 3, 3, 3, 3>}> : (tensor<1x1x15x15x3xf32>, tensor<1x1x7x7x3x16xf32>) -> tensor<1x1x8x8x16xf32>
// GENERIC-NEXT:    %{{\w+}} = "graph.conv_nchwc"(%[[X]], %[[WD]]) <{pads = array<i64: 1, 1, 1, 1>, group = 64 : i64}> : (tensor<1x4x8x8x16xf32>, tensor<4x1x3x3x1x16xf32>) -> tensor<1x4x8x8x16xf32>
func.func @conv_nchwc(%x: tensor<1x4x8x8x16xf32>, %w: tensor<2x4x3x3x16x16xf32>, %b: tensor<32xf32>, %rgb: tensor<1x1x15x15x3xf32>, %wr: tensor<1x1x7x7x3x16xf32>, %wd: tensor<4x1x3x3x1x16xf32>) {
  %0 = graph.conv_nchwc %x, %w : (tensor<1x4x8x8x16xf32>, tensor<2x4x3x3x16x16xf32>) -> tensor<1x2x6x6x16xf32>
  %1 = "graph.conv_nchwc"(%x, %w, %b) <{strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>}> : (tensor<1x4x8x8x16xf32>, tensor<2x4x3x3x16x16xf32>, tensor<32xf32>) -> tensor<1x2x4x4x16xf32>
  %2 = graph.conv_nchwc %x, %w {dilations = array<i64: 2, 2>, pads = array<i64: 2, 0, 1, 2>} : (tensor<1x4x8x8x16xf32>, tensor<2x4x3x3x16x16xf32>) -> tensor<1x2x7x6x16xf32>
  %3 = "graph.conv_nchwc"(%rgb, %wr) <{strides = array<i64: 2, 2>, pads = array<i64: 3, 3, 3, 3>}> : (tensor<1x1x15x15x3xf32>, tensor<1x1x7x7x3x16xf32>) -> tensor<1x1x8x8x16xf32>
  %4 = graph.conv_nchwc %x, %wd {pads = array<i64: 1, 1, 1, 1>, group = 64 : i64} : (tensor<1x4x8x8x16xf32>, tensor<4x1x3x3x1x16xf32>) -> tensor<1x4x8x8x16xf32>
  func.return
}

// -----

// layout_transform: NCHW{b}c needs b to divide the channels.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.layout_transform: input 1x24x8x8 in NCHW has 24 channels, which NCHW16c cannot block (16 does not divide 24){{$}}
// CHECK:      = "graph.layout_transform"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.layout_transform: input 1x24x8x8 in NCHW has 24 channels, which NCHW16c cannot block (16 does not divide 24){{$}}
func.func @layout_block_divides(%x: tensor<1x24x8x8xf32>) {
  %0 = graph.layout_transform %x {src_layout = "NCHW", dst_layout = "NCHW16c"} : tensor<1x24x8x8xf32> -> tensor<1x1x8x8x16xf32>
  func.return
}

// -----

// layout_transform: re-blocking checks the new block against the channel count too.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.layout_transform: input 1x3x8x8x8 in NCHW8c has 24 channels, which NCHW16c cannot block (16 does not divide 24){{$}}
// CHECK:      = "graph.layout_transform"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.layout_transform: input 1x3x8x8x8 in NCHW8c has 24 channels, which NCHW16c cannot block (16 does not divide 24){{$}}
func.func @layout_reblock_divides(%x: tensor<1x3x8x8x8xf32>) {
  %0 = graph.layout_transform %x {src_layout = "NCHW8c", dst_layout = "NCHW16c"} : tensor<1x3x8x8x8xf32> -> tensor<1x1x8x8x16xf32>
  func.return
}

// -----

// layout_transform: the identity transform is not an op.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.layout_transform: src_layout and dst_layout are both "NCHW16c" (nothing to transform){{$}}
// CHECK:      = "graph.layout_transform"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.layout_transform: src_layout and dst_layout are both "NCHW16c" (nothing to transform){{$}}
func.func @layout_identity(%x: tensor<1x4x8x8x16xf32>) {
  %0 = graph.layout_transform %x {src_layout = "NCHW16c", dst_layout = "NCHW16c"} : tensor<1x4x8x8x16xf32> -> tensor<1x4x8x8x16xf32>
  func.return
}

// -----

// layout_transform: only NCHW and NCHW{b}c are layouts.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.layout_transform: layout "NHWC" is neither "NCHW" nor "NCHW<b>c" with a block b >= 1{{$}}
// CHECK:      = "graph.layout_transform"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.layout_transform: layout "NHWC" is neither "NCHW" nor "NCHW<b>c" with a block b >= 1{{$}}
func.func @layout_unknown(%x: tensor<1x8x8x64xf32>) {
  %0 = graph.layout_transform %x {src_layout = "NHWC", dst_layout = "NCHW16c"} : tensor<1x8x8x64xf32> -> tensor<1x4x8x8x16xf32>
  func.return
}

// -----

// layout_transform: the input must be in src_layout (rank 5, inner dim = the block).
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.layout_transform: input 1x4x8x8x8 is not in layout NCHW16c (expected rank 5 with an inner block of 16){{$}}
// CHECK:      = "graph.layout_transform"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.layout_transform: input 1x4x8x8x8 is not in layout NCHW16c (expected rank 5 with an inner block of 16){{$}}
func.func @layout_src_mismatch(%x: tensor<1x4x8x8x8xf32>) {
  %0 = graph.layout_transform %x {src_layout = "NCHW16c", dst_layout = "NCHW"} : tensor<1x4x8x8x8xf32> -> tensor<1x64x8x8xf32>
  func.return
}

// -----

// layout_transform: the declared result must be the inferred one.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.layout_transform: result should be tensor<1x4x8x8x16xf32> but is declared tensor<1x16x8x8x4xf32>{{$}}
// CHECK:      = "graph.layout_transform"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.layout_transform: result should be tensor<1x4x8x8x16xf32> but is declared tensor<1x16x8x8x4xf32>{{$}}
func.func @layout_declared_result(%x: tensor<1x64x8x8xf32>) {
  %0 = graph.layout_transform %x {src_layout = "NCHW", dst_layout = "NCHW16c"} : tensor<1x64x8x8xf32> -> tensor<1x16x8x8x4xf32>
  func.return
}

// -----

// conv_nchwc: input [N, C/cb, H, W, cb] and weight [M/mb, C/cb, KH, KW, cb, mb].
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.conv_nchwc: input 1x64x8x8 and weight 2x4x3x3x16x16 must have ranks 5 and 6 ([N, C/cb, H, W, cb] and [M/mb, C/cb, KH, KW, cb, mb]){{$}}
// CHECK:      = "graph.conv_nchwc"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.conv_nchwc: input 1x64x8x8 and weight 2x4x3x3x16x16 must have ranks 5 and 6 ([N, C/cb, H, W, cb] and [M/mb, C/cb, KH, KW, cb, mb]){{$}}
func.func @conv_nchwc_rank(%x: tensor<1x64x8x8xf32>, %w: tensor<2x4x3x3x16x16xf32>) {
  %0 = graph.conv_nchwc %x, %w : (tensor<1x64x8x8xf32>, tensor<2x4x3x3x16x16xf32>) -> tensor<1x2x6x6x16xf32>
  func.return
}

// -----

// conv_nchwc: the weight's C/cb and cb must be the input's.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.conv_nchwc: input has C/cb x cb = 4 x 16 = 64 channels but weight expects 2 x 16 = 32{{$}}
// CHECK:      = "graph.conv_nchwc"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.conv_nchwc: input has C/cb x cb = 4 x 16 = 64 channels but weight expects 2 x 16 = 32{{$}}
func.func @conv_nchwc_channels(%x: tensor<1x4x8x8x16xf32>, %w: tensor<2x2x3x3x16x16xf32>) {
  %0 = graph.conv_nchwc %x, %w : (tensor<1x4x8x8x16xf32>, tensor<2x2x3x3x16x16xf32>) -> tensor<1x2x6x6x16xf32>
  func.return
}

// -----

// conv_nchwc: equal channel counts are not enough, the blocks must agree.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.conv_nchwc: input has C/cb x cb = 4 x 16 = 64 channels but weight expects 8 x 8 = 64 (the same channels, blocked differently){{$}}
// CHECK:      = "graph.conv_nchwc"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.conv_nchwc: input has C/cb x cb = 4 x 16 = 64 channels but weight expects 8 x 8 = 64 (the same channels, blocked differently){{$}}
func.func @conv_nchwc_blocks(%x: tensor<1x4x8x8x16xf32>, %w: tensor<2x8x3x3x8x16xf32>) {
  %0 = graph.conv_nchwc %x, %w : (tensor<1x4x8x8x16xf32>, tensor<2x8x3x3x8x16xf32>) -> tensor<1x2x6x6x16xf32>
  func.return
}

// -----

// conv_nchwc: a group other than 1 must be a depthwise conv's: one per input channel, weight [C/b, 1, KH, KW, 1, b].
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.conv_nchwc: group 64 must be 1 or, for a depthwise conv, the 64 input channels, with weight [C/b, 1, KH, KW, 1, b] for input block b = 16 (got weight 4x4x3x3x16x16){{$}}
// CHECK:      = "graph.conv_nchwc"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.conv_nchwc: group 64 must be 1 or, for a depthwise conv, the 64 input channels, with weight [C/b, 1, KH, KW, 1, b] for input block b = 16 (got weight 4x4x3x3x16x16){{$}}
func.func @conv_nchwc_group(%x: tensor<1x4x8x8x16xf32>, %w: tensor<4x4x3x3x16x16xf32>) {
  %0 = graph.conv_nchwc %x, %w {group = 64 : i64} : (tensor<1x4x8x8x16xf32>, tensor<4x4x3x3x16x16xf32>) -> tensor<1x4x6x6x16xf32>
  func.return
}

// -----

// conv_nchwc: the bias is flat, one value per output channel (M = M/mb x mb).
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.conv_nchwc: bias must have shape 32, got 16{{$}}
// CHECK:      = "graph.conv_nchwc"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.conv_nchwc: bias must have shape 32, got 16{{$}}
func.func @conv_nchwc_bias(%x: tensor<1x4x8x8x16xf32>, %w: tensor<2x4x3x3x16x16xf32>, %b: tensor<16xf32>) {
  %0 = graph.conv_nchwc %x, %w, %b : (tensor<1x4x8x8x16xf32>, tensor<2x4x3x3x16x16xf32>, tensor<16xf32>) -> tensor<1x2x6x6x16xf32>
  func.return
}

// -----

// conv_nchwc: 2-D only, so pads has 4 entries.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.conv_nchwc: pads has 2 entries but the input has 2 spatial dimensions (expected 4){{$}}
// CHECK:      = "graph.conv_nchwc"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.conv_nchwc: pads has 2 entries but the input has 2 spatial dimensions (expected 4){{$}}
func.func @conv_nchwc_pads(%x: tensor<1x4x8x8x16xf32>, %w: tensor<2x4x3x3x16x16xf32>) {
  %0 = graph.conv_nchwc %x, %w {pads = array<i64: 1, 1>} : (tensor<1x4x8x8x16xf32>, tensor<2x4x3x3x16x16xf32>) -> tensor<1x2x6x6x16xf32>
  func.return
}

// -----

// conv_nchwc: the kernel must fit in the padded input.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.conv_nchwc: kernel 3x3 is larger than the padded input 2x2{{$}}
// CHECK:      = "graph.conv_nchwc"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.conv_nchwc: kernel 3x3 is larger than the padded input 2x2{{$}}
func.func @conv_nchwc_kernel(%x: tensor<1x4x2x2x16xf32>, %w: tensor<2x4x3x3x16x16xf32>) {
  %0 = graph.conv_nchwc %x, %w : (tensor<1x4x2x2x16xf32>, tensor<2x4x3x3x16x16xf32>) -> tensor<1x2x1x1x16xf32>
  func.return
}

// -----

// conv_nchwc: the declared result must be the inferred one [N, M/mb, OH, OW, mb].
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.conv_nchwc: result should be tensor<1x2x8x8x16xf32> but is declared tensor<1x2x6x6x16xf32>{{$}}
// CHECK:      = "graph.conv_nchwc"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.conv_nchwc: result should be tensor<1x2x8x8x16xf32> but is declared tensor<1x2x6x6x16xf32>{{$}}
func.func @conv_nchwc_declared_result(%x: tensor<1x4x8x8x16xf32>, %w: tensor<2x4x3x3x16x16xf32>) {
  %0 = graph.conv_nchwc %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8x16xf32>, tensor<2x4x3x3x16x16xf32>) -> tensor<1x2x6x6x16xf32>
  func.return
}

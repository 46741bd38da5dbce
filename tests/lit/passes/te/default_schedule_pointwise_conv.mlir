// te-default-schedule on the 1x1 convs convert-graph-to-te emits. A 1x1 conv that stays
// NCHW (grouped: conv-layout blocks only plain and depthwise convs), stride 1, no padding,
// gets the conv_nchw template: up to 14x14 output pixels its reduction moves outside the
// rows, the rows run as one vectorized loop (fuse_rows), and a register block of output
// channels of one group (oc_block, here the group's 4) x pixels (pixel_block: all 49 at 7x7,
// 49 of 196 at 14x14) stays in registers across the reduction. The bias (a te.fused kernel)
// then runs after the anchor (compute_at i0: the channel loop is split). From 15x15 on, and
// for a strided 1x1 conv (whose rows are not contiguous), the plain order stays, the bias
// per row.
// RUN: minitvm-opt %s --split-input-file -p convert-graph-to-te,te-default-schedule | filecheck %s

// CHECK-LABEL: func.func @conv_0(
// CHECK-NEXT:    %[[ACC:\w+]] = te.compute "anchor" (%{{\w+}}, %{{\w+}}, %{{\w+}}, %{{\w+}}) in [1, 8, 7, 7] sum (%{{\w+}}, %{{\w+}}, %{{\w+}}) in [4, 1, 1] {te.templated, schedule = [#te.split<"i1", 4>, #te.reorder<["i0", "i1.o", "r0", "r1", "r2", "i1.i", "i2", "i3"]>, #te.fuse<"i2", "i3">, #te.unroll<"i1.i">, #te.vectorize<"i2.i3.fused">]} : tensor<1x8x7x7xf32> {
// CHECK:         te.compute (%{{\w+}}, %{{\w+}}, %{{\w+}}, %{{\w+}}) in [1, 8, 7, 7] {schedule = [#te.compute_at<"anchor", "i0">]} : tensor<1x8x7x7xf32> {
func.func @main(%x: tensor<1x8x7x7xf32>, %w: tensor<8x4x1x1xf32>, %b: tensor<8xf32>) -> tensor<1x8x7x7xf32> {
  %0 = graph.conv %x, %w, %b {group = 2 : i64} : (tensor<1x8x7x7xf32>, tensor<8x4x1x1xf32>, tensor<8xf32>) -> tensor<1x8x7x7xf32>
  func.return %0 : tensor<1x8x7x7xf32>
}

// -----

// CHECK-LABEL: func.func @conv_0(
// CHECK-NEXT:    %{{\w+}} = te.compute (%{{\w+}}, %{{\w+}}, %{{\w+}}, %{{\w+}}) in [1, 8, 14, 14] sum (%{{\w+}}, %{{\w+}}, %{{\w+}}) in [4, 1, 1] {te.templated, schedule = [#te.split<"i1", 4>, #te.reorder<["i0", "i1.o", "r0", "r1", "r2", "i1.i", "i2", "i3"]>, #te.fuse<"i2", "i3">, #te.split<"i2.i3.fused", 49>, #te.reorder<["i0", "i1.o", "i2.i3.fused.o", "r0", "r1", "r2", "i1.i", "i2.i3.fused.i"]>, #te.unroll<"i1.i">, #te.vectorize<"i2.i3.fused.i">]} : tensor<1x8x14x14xf32> {
func.func @main(%x: tensor<1x8x14x14xf32>, %w: tensor<8x4x1x1xf32>) -> tensor<1x8x14x14xf32> {
  %0 = graph.conv %x, %w {group = 2 : i64} : (tensor<1x8x14x14xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x14x14xf32>
  func.return %0 : tensor<1x8x14x14xf32>
}

// -----

// CHECK-LABEL: func.func @conv_0(
// CHECK-NEXT:    %[[ACC:\w+]] = te.compute "anchor" (%{{\w+}}, %{{\w+}}, %{{\w+}}, %{{\w+}}) in [1, 8, 15, 15] sum (%{{\w+}}, %{{\w+}}, %{{\w+}}) in [4, 1, 1] {te.templated} : tensor<1x8x15x15xf32> {
// CHECK:         te.compute (%{{\w+}}, %{{\w+}}, %{{\w+}}, %{{\w+}}) in [1, 8, 15, 15] {schedule = [#te.compute_at<"anchor", "i2">]} : tensor<1x8x15x15xf32> {
func.func @main(%x: tensor<1x8x15x15xf32>, %w: tensor<8x4x1x1xf32>, %b: tensor<8xf32>) -> tensor<1x8x15x15xf32> {
  %0 = graph.conv %x, %w, %b {group = 2 : i64} : (tensor<1x8x15x15xf32>, tensor<8x4x1x1xf32>, tensor<8xf32>) -> tensor<1x8x15x15xf32>
  func.return %0 : tensor<1x8x15x15xf32>
}

// -----

// CHECK-LABEL: func.func @conv_0(
// CHECK-NEXT:    %{{\w+}} = te.compute (%{{\w+}}, %{{\w+}}, %{{\w+}}, %{{\w+}}) in [1, 8, 4, 4] sum (%{{\w+}}, %{{\w+}}, %{{\w+}}) in [4, 1, 1] {te.templated} : tensor<1x8x4x4xf32> {
func.func @main(%x: tensor<1x8x7x7xf32>, %w: tensor<8x4x1x1xf32>) -> tensor<1x8x4x4xf32> {
  %0 = graph.conv %x, %w {group = 2 : i64, strides = array<i64: 2, 2>} : (tensor<1x8x7x7xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x4x4xf32>
  func.return %0 : tensor<1x8x4x4xf32>
}

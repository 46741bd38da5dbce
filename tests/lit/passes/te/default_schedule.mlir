// te-default-schedule: each kernel that has no schedule yet gets its templates' defaults, on
// kernels as convert-graph-to-te emits them. The compute marked te.templated is its
// template's (a matmul's: the GEMM template's 4 x 64 register block); a compute without the
// marker gets the reduction or injective default even where the GEMM template would match it
// structurally (same loops, same body); a te.fused kernel becomes one pass over the data,
// the bias #te.inline'd into the relu, which runs #te.compute_at the "anchor"'s row loop; a
// kernel any of whose computes has a schedule already is left as it is.
// RUN: minitvm-opt %s --split-input-file -p te-default-schedule | filecheck %s

// A te.templated matmul whose shape the 4 x 64 block divides: the GEMM default.
// CHECK-LABEL: func.func @matmul_0(
// CHECK-SAME:      %[[A:\w+]]: tensor<8x64xf32>, %[[B:\w+]]: tensor<64x64xf32>) -> tensor<8x64xf32> attributes {te.kernel} {
// CHECK-NEXT:    %[[C:\w+]] = te.compute (%[[I:\w+]], %[[J:\w+]]) in [8, 64] sum (%[[K:\w+]]) in [64] {te.templated, schedule = [#te.split<"i0", 4>, #te.split<"i1", 64>, #te.split<"i1.i", 16>, #te.reorder<["i1.o", "i0.o", "r0", "i0.i", "i1.i.o", "i1.i.i"]>, #te.unroll<"i0.i">, #te.unroll<"i1.i.o">, #te.vectorize<"i1.i.i">]} : tensor<8x64xf32> {
// CHECK-NEXT:      %[[X:\w+]] = te.read %[[A]][%[[I]], %[[K]]] : tensor<8x64xf32>
// CHECK-NEXT:      %[[Y:\w+]] = te.read %[[B]][%[[K]], %[[J]]] : tensor<64x64xf32>
// CHECK-NEXT:      %[[P:\w+]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      te.yield %[[P]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[C]] : tensor<8x64xf32>
func.func @matmul_0(%0: tensor<8x64xf32>, %1: tensor<64x64xf32>) -> tensor<8x64xf32> attributes {te.kernel} {
  %2 = te.compute (%i0, %i1) in [8, 64] sum (%r0) in [64] {te.templated} : tensor<8x64xf32> {
    %3 = te.read %0[%i0, %r0] : tensor<8x64xf32>
    %4 = te.read %1[%r0, %i1] : tensor<64x64xf32>
    %5 = arith.mulf %3, %4 : f32
    te.yield %5 : f32
  }
  func.return %2 : tensor<8x64xf32>
}

// -----

// The same matmul without te.templated: only the marker selects the GEMM template, so this
// one gets the reduction default, which for 8 rows keeps the plain loop order. A
// matrix-vector product without the marker does get the reduction default's column blocks:
// the pass visited both.
// CHECK-LABEL: func.func @matmul_0(
// CHECK-NEXT:    te.compute (%{{\w+}}, %{{\w+}}) in [8, 64] sum (%{{\w+}}) in [64] : tensor<8x64xf32> {
// CHECK-LABEL: func.func @matmul_1(
// CHECK-NEXT:    te.compute (%{{\w+}}, %{{\w+}}) in [1, 200] sum (%{{\w+}}) in [256] {schedule = [#te.split<"i1", 40>, #te.reorder<["i1.o", "r0"]>, #te.split<"i1.i", 8>, #te.vectorize<"i1.i.i">]} : tensor<1x200xf32> {
func.func @matmul_0(%0: tensor<8x64xf32>, %1: tensor<64x64xf32>) -> tensor<8x64xf32> attributes {te.kernel} {
  %2 = te.compute (%i0, %i1) in [8, 64] sum (%r0) in [64] : tensor<8x64xf32> {
    %3 = te.read %0[%i0, %r0] : tensor<8x64xf32>
    %4 = te.read %1[%r0, %i1] : tensor<64x64xf32>
    %5 = arith.mulf %3, %4 : f32
    te.yield %5 : f32
  }
  func.return %2 : tensor<8x64xf32>
}
func.func @matmul_1(%0: tensor<1x256xf32>, %1: tensor<256x200xf32>) -> tensor<1x200xf32> attributes {te.kernel} {
  %2 = te.compute (%i0, %i1) in [1, 200] sum (%r0) in [256] : tensor<1x200xf32> {
    %3 = te.read %0[%i0, %r0] : tensor<1x256xf32>
    %4 = te.read %1[%r0, %i1] : tensor<256x200xf32>
    %5 = arith.mulf %3, %4 : f32
    te.yield %5 : f32
  }
  func.return %2 : tensor<1x200xf32>
}

// -----

// A te.fused conv + bias + relu (graph.fused "conv_relu", no padding): the anchor gets its
// template's default (none for this 3x3 NCHW conv), the bias is inlined into the
// relu, and the relu runs at the anchor's row loop i2, right after each output row's sums.
// CHECK-LABEL: func.func @fused_conv_0(
// CHECK-SAME:      %[[X:\w+]]: tensor<1x2x5x6xf32>, %[[W:\w+]]: tensor<3x2x3x3xf32>, %[[B:\w+]]: tensor<3xf32>) -> tensor<1x3x3x4xf32> attributes {te.kernel, te.fused} {
// CHECK-NEXT:    %[[ACC:\w+]] = te.compute "anchor" (%{{\w+}}, %{{\w+}}, %{{\w+}}, %{{\w+}}) in [1, 3, 3, 4] sum (%{{\w+}}, %{{\w+}}, %{{\w+}}) in [2, 3, 3] {te.templated} : tensor<1x3x3x4xf32> {
// CHECK:         %[[BIAS:\w+]] = te.compute (%{{\w+}}, %[[F:\w+]], %{{\w+}}, %{{\w+}}) in [1, 3, 3, 4] {schedule = [#te.inline]} : tensor<1x3x3x4xf32> {
// CHECK-NEXT:      te.read %[[ACC]]
// CHECK-NEXT:      te.read %[[B]][%[[F]]]
// CHECK-NEXT:      arith.addf
// CHECK-NEXT:      te.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[RELU:\w+]] = te.compute (%{{\w+}}, %{{\w+}}, %{{\w+}}, %{{\w+}}) in [1, 3, 3, 4] {schedule = [#te.compute_at<"anchor", "i2">]} : tensor<1x3x3x4xf32> {
// CHECK-NEXT:      te.read %[[BIAS]]
// CHECK-NEXT:      arith.constant 0.000000e+00
// CHECK-NEXT:      arith.maximumf
// CHECK-NEXT:      te.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[RELU]] : tensor<1x3x3x4xf32>
func.func @fused_conv_0(%0: tensor<1x2x5x6xf32>, %1: tensor<3x2x3x3xf32>, %2: tensor<3xf32>) -> tensor<1x3x3x4xf32> attributes {te.kernel, te.fused} {
  %3 = te.compute "anchor" (%i0, %i1, %i2, %i3) in [1, 3, 3, 4] sum (%r0, %r1, %r2) in [2, 3, 3] {te.templated} : tensor<1x3x3x4xf32> {
    %4 = arith.addi %i2, %r1 : index
    %5 = arith.addi %i3, %r2 : index
    %6 = te.read %0[%i0, %r0, %4, %5] : tensor<1x2x5x6xf32>
    %7 = te.read %1[%i1, %r0, %r1, %r2] : tensor<3x2x3x3xf32>
    %8 = arith.mulf %6, %7 : f32
    te.yield %8 : f32
  }
  %9 = te.compute (%i0_1, %i1_1, %i2_1, %i3_1) in [1, 3, 3, 4] : tensor<1x3x3x4xf32> {
    %10 = te.read %3[%i0_1, %i1_1, %i2_1, %i3_1] : tensor<1x3x3x4xf32>
    %11 = te.read %2[%i1_1] : tensor<3xf32>
    %12 = arith.addf %10, %11 : f32
    te.yield %12 : f32
  }
  %13 = te.compute (%i0_2, %i1_2, %i2_2, %i3_2) in [1, 3, 3, 4] : tensor<1x3x3x4xf32> {
    %14 = te.read %9[%i0_2, %i1_2, %i2_2, %i3_2] : tensor<1x3x3x4xf32>
    %15 = arith.constant 0.000000e+00 : f32
    %16 = arith.maximumf %14, %15 : f32
    te.yield %16 : f32
  }
  func.return %13 : tensor<1x3x3x4xf32>
}

// -----

// Kernels with a schedule already (here written by hand) are left as they are: the
// templated matmul keeps its one split instead of the GEMM default, and in the te.fused
// kernel, whose anchor alone is scheduled, the bias and relu get no #te.inline or
// #te.compute_at.
// CHECK-LABEL: func.func @matmul_0(
// CHECK-NEXT:    te.compute (%{{\w+}}, %{{\w+}}) in [8, 64] sum (%{{\w+}}) in [64] {te.templated, schedule = [#te.split<"i0", 2>]} : tensor<8x64xf32> {
// CHECK-LABEL: func.func @fused_conv_1(
// CHECK-NEXT:    te.compute "anchor" (%{{\w+}}, %{{\w+}}, %{{\w+}}, %{{\w+}}) in [1, 3, 3, 4] sum (%{{\w+}}, %{{\w+}}, %{{\w+}}) in [2, 3, 3] {te.templated, schedule = [#te.split<"i3", 2>]} : tensor<1x3x3x4xf32> {
// CHECK:         te.compute (%{{\w+}}, %{{\w+}}, %{{\w+}}, %{{\w+}}) in [1, 3, 3, 4] : tensor<1x3x3x4xf32> {
// CHECK:         te.compute (%{{\w+}}, %{{\w+}}, %{{\w+}}, %{{\w+}}) in [1, 3, 3, 4] : tensor<1x3x3x4xf32> {
func.func @matmul_0(%0: tensor<8x64xf32>, %1: tensor<64x64xf32>) -> tensor<8x64xf32> attributes {te.kernel} {
  %2 = te.compute (%i0, %i1) in [8, 64] sum (%r0) in [64] {te.templated, schedule = [#te.split<"i0", 2>]} : tensor<8x64xf32> {
    %3 = te.read %0[%i0, %r0] : tensor<8x64xf32>
    %4 = te.read %1[%r0, %i1] : tensor<64x64xf32>
    %5 = arith.mulf %3, %4 : f32
    te.yield %5 : f32
  }
  func.return %2 : tensor<8x64xf32>
}
func.func @fused_conv_1(%0: tensor<1x2x5x6xf32>, %1: tensor<3x2x3x3xf32>, %2: tensor<3xf32>) -> tensor<1x3x3x4xf32> attributes {te.kernel, te.fused} {
  %3 = te.compute "anchor" (%i0, %i1, %i2, %i3) in [1, 3, 3, 4] sum (%r0, %r1, %r2) in [2, 3, 3] {te.templated, schedule = [#te.split<"i3", 2>]} : tensor<1x3x3x4xf32> {
    %4 = arith.addi %i2, %r1 : index
    %5 = arith.addi %i3, %r2 : index
    %6 = te.read %0[%i0, %r0, %4, %5] : tensor<1x2x5x6xf32>
    %7 = te.read %1[%i1, %r0, %r1, %r2] : tensor<3x2x3x3xf32>
    %8 = arith.mulf %6, %7 : f32
    te.yield %8 : f32
  }
  %9 = te.compute (%i0_1, %i1_1, %i2_1, %i3_1) in [1, 3, 3, 4] : tensor<1x3x3x4xf32> {
    %10 = te.read %3[%i0_1, %i1_1, %i2_1, %i3_1] : tensor<1x3x3x4xf32>
    %11 = te.read %2[%i1_1] : tensor<3xf32>
    %12 = arith.addf %10, %11 : f32
    te.yield %12 : f32
  }
  %13 = te.compute (%i0_2, %i1_2, %i2_2, %i3_2) in [1, 3, 3, 4] : tensor<1x3x3x4xf32> {
    %14 = te.read %9[%i0_2, %i1_2, %i2_2, %i3_2] : tensor<1x3x3x4xf32>
    %15 = arith.constant 0.000000e+00 : f32
    %16 = arith.maximumf %14, %15 : f32
    te.yield %16 : f32
  }
  func.return %13 : tensor<1x3x3x4xf32>
}

// -----

// A compute without elements (a conv without output channels) runs no iteration: no
// template takes it, and it keeps no schedule.
// CHECK-LABEL: func.func @conv_0(
// CHECK-NEXT:    %{{.*}} = te.compute (%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) in [1, 0, 6, 6] sum (%{{.*}}, %{{.*}}, %{{.*}}) in [3, 3, 3] {te.templated} : tensor<1x0x6x6xf32> {
func.func @conv_0(%0: tensor<1x3x8x8xf32>, %1: tensor<0x3x3x3xf32>) -> tensor<1x0x6x6xf32> attributes {te.kernel} {
  %2 = te.compute (%i0, %i1, %i2, %i3) in [1, 0, 6, 6] sum (%r0, %r1, %r2) in [3, 3, 3] {te.templated} : tensor<1x0x6x6xf32> {
    %3 = arith.addi %i2, %r1 : index
    %4 = arith.addi %i3, %r2 : index
    %5 = te.read %0[%i0, %r0, %3, %4] : tensor<1x3x8x8xf32>
    %6 = te.read %1[%i1, %r0, %r1, %r2] : tensor<0x3x3x3xf32>
    %7 = arith.mulf %5, %6 : f32
    te.yield %7 : f32
  }
  func.return %2 : tensor<1x0x6x6xf32>
}

// convert-graph-to-te on the Winograd transforms: one compute each, marked te.winograd (the
// winograd schedule template is for them) and te.templated. The input transform's body is
// the 2 x 2 nonzero terms of B^T d B at its position: four guarded reads of the input patch
// (rows 2i - 1 + col(u), padding above, none on the left), their columns and coefficients
// select chains of the position. The output transform's body is A^T m A's 3 x 3 terms: nine
// reads of the product at the pixel's tile, plus the bias. The SCHED prefix checks the
// template's defaults: positions unrolled inside the tile and channel block for the input;
// channel blocks inside the pixel for the output, each tile's 2 x 2 pixels unrolled (the 3
// rows' last tile peeled). F(4x4, 3x3) (%v4, %y4): B^T's rows have up to 4 nonzero
// entries, A^T's 5, so 16 and 25 reads; its schedules unroll one side of the tile, the
// positions of a column for the input and the pixels of a column for the output, inside a
// loop over the other side (36 positions unrolled made compiles 2x longer).
// RUN: minitvm-opt %s -p convert-graph-to-te | filecheck %s
// RUN: minitvm-opt %s -p convert-graph-to-te,te-default-schedule | filecheck %s --check-prefix=SCHED

// CHECK-LABEL: func.func @winograd_input_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<1x1x4x4x16xf32>) -> tensor<16x4x16xf32> attributes {te.kernel} {
// CHECK-NEXT:    te.compute (%{{\w+}}, %{{\w+}}, %{{\w+}}) in [16, 4, 16] {te.winograd = "input", te.templated} : tensor<16x4x16xf32> {
// CHECK-COUNT-4: te.read %[[X]][{{.*}}] : tensor<1x1x4x4x16xf32>
// CHECK-NOT:     te.read
// CHECK:         te.yield
// CHECK-LABEL: func.func @winograd_output_1(
// CHECK-SAME:    %[[M:\w+]]: tensor<16x4x16xf32>, %[[B:\w+]]: tensor<16xf32>) -> tensor<1x1x3x4x16xf32> attributes {te.kernel} {
// CHECK-NEXT:    te.compute (%{{\w+}}, %{{\w+}}, %{{\w+}}, %{{\w+}}, %{{\w+}}) in [1, 1, 3, 4, 16] {te.winograd = "output", te.templated} : tensor<1x1x3x4x16xf32> {
// CHECK-COUNT-9: te.read %[[M]][{{.*}}] : tensor<16x4x16xf32>
// CHECK-NOT:     te.read %[[M]]
// CHECK:         te.read %[[B]]
// CHECK:         te.yield
// SCHED-LABEL: func.func @winograd_input_0(
// SCHED-NEXT:    te.compute {{.*}} schedule = [#te.split<"i2", 16>, #te.reorder<["i1", "i2.o", "i0", "i2.i"]>, #te.unroll<"i0">, #te.vectorize<"i2.i">]}
// SCHED-LABEL: func.func @winograd_output_1(
// SCHED-NEXT:    te.compute {{.*}} schedule = [#te.split<"i2", 2>, #te.split<"i3", 2>, #te.reorder<["i0", "i2.o", "i3.o", "i1", "i2.i", "i3.i", "i4"]>, #te.unroll<"i2.i">, #te.unroll<"i3.i">, #te.vectorize<"i4">]}

// CHECK-LABEL: func.func @winograd_input_2(
// CHECK-SAME:    %[[X:\w+]]: tensor<1x1x6x6x16xf32>) -> tensor<36x4x16xf32> attributes {te.kernel} {
// CHECK-COUNT-16: te.read %[[X]][{{.*}}] : tensor<1x1x6x6x16xf32>
// CHECK-NOT:      te.read
// CHECK:          te.yield
// CHECK-LABEL: func.func @winograd_output_3(
// CHECK-SAME:    %[[M:\w+]]: tensor<36x4x16xf32>, %[[B:\w+]]: tensor<16xf32>) -> tensor<1x1x6x7x16xf32> attributes {te.kernel} {
// CHECK-COUNT-25: te.read %[[M]][{{.*}}] : tensor<36x4x16xf32>
// CHECK-NOT:      te.read %[[M]]
// CHECK:          te.read %[[B]]
// SCHED-LABEL: func.func @winograd_input_2(
// SCHED-NEXT:    te.compute {{.*}} schedule = [#te.split<"i2", 16>, #te.split<"i0", 6>, #te.reorder<["i1", "i2.o", "i0.i", "i0.o", "i2.i"]>, #te.unroll<"i0.o">, #te.vectorize<"i2.i">]}
// SCHED-LABEL: func.func @winograd_output_3(
// SCHED-NEXT:    te.compute {{.*}} schedule = [#te.split<"i2", 4>, #te.split<"i3", 4>, #te.reorder<["i0", "i2.o", "i3.o", "i1", "i3.i", "i2.i", "i4"]>, #te.unroll<"i2.i">, #te.vectorize<"i4">]}
func.func @winograd(%x: tensor<1x1x4x4x16xf32>, %m: tensor<16x4x16xf32>, %b: tensor<16xf32>, %x4: tensor<1x1x6x6x16xf32>, %m4: tensor<36x4x16xf32>) -> (tensor<16x4x16xf32>, tensor<1x1x3x4x16xf32>, tensor<36x4x16xf32>, tensor<1x1x6x7x16xf32>) {
  %v = graph.winograd_input %x {pads = array<i64: 1, 0>, output = array<i64: 3, 4>, rows = 4} : (tensor<1x1x4x4x16xf32>) -> tensor<16x4x16xf32>
  %y = graph.winograd_output %m, %b {output = array<i64: 1, 3, 4>, block = 16} : (tensor<16x4x16xf32>, tensor<16xf32>) -> tensor<1x1x3x4x16xf32>
  %v4 = graph.winograd_input %x4 {pads = array<i64: 1, 1>, output = array<i64: 6, 6>, rows = 4, tile = 4} : (tensor<1x1x6x6x16xf32>) -> tensor<36x4x16xf32>
  %y4 = graph.winograd_output %m4, %b {output = array<i64: 1, 6, 7>, block = 16, tile = 4} : (tensor<36x4x16xf32>, tensor<16xf32>) -> tensor<1x1x6x7x16xf32>
  func.return %v, %y, %v4, %y4 : tensor<16x4x16xf32>, tensor<1x1x3x4x16xf32>, tensor<36x4x16xf32>, tensor<1x1x6x7x16xf32>
}

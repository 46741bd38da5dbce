// te-default-schedule on the GEMM kernels convert-graph-to-te emits (their main compute
// marked te.templated). A matmul whose N a column block divides gets the register block of
// enough accumulators that fits the registers (AVX-512 here: 4 x 64 on 8 rows, two blocks;
// a block needs not divide M, a shorter one ends it); one whose N no column block divides
// (10) keeps the plain loop order (no schedule). A matmul on packed panels reads B as
// w[j floordiv 16, k, j mod 16] and gets the blocked schedule too, with 16 lanes (one panel
// row per vector): all 8 rows in one block of 8 x 32, or a block of the product's 3 rows. A
// matrix-vector product on a column count 16 does not divide is the reduction template's:
// its columns in blocks of at most 64 (of 8-lane vectors) that run ahead of the reduction,
// for the threads to share; with two rows, the rows are theirs and the order stays plain.
// RUN: minitvm-opt %s -p convert-graph-to-te,te-default-schedule | filecheck %s

// CHECK-LABEL: func.func @matmul_0(
// CHECK-NEXT:    te.compute (%{{\w+}}, %{{\w+}}) in [8, 128] sum (%{{\w+}}) in [512] {te.templated, schedule = [#te.split<"i0", 4>, #te.split<"i1", 64>, #te.split<"i1.i", 16>, #te.split<"r0", 256>, #te.reorder<["i1.o", "r0.o", "i0.o", "r0.i", "i0.i", "i1.i.o", "i1.i.i"]>, #te.unroll<"i0.i">, #te.unroll<"i1.i.o">, #te.vectorize<"i1.i.i">]} : tensor<8x128xf32> {
// CHECK-LABEL: func.func @matmul_1(
// CHECK-NEXT:    te.compute (%{{\w+}}, %{{\w+}}) in [3, 10] sum (%{{\w+}}) in [5] {te.templated} : tensor<3x10xf32> {
// CHECK-LABEL: func.func @matmul_packed_2(
// CHECK-SAME:      %[[A:\w+]]: tensor<8x32xf32>, %[[W:\w+]]: tensor<2x32x16xf32>) -> tensor<8x32xf32>
// CHECK-NEXT:    te.compute (%[[I:\w+]], %[[J:\w+]]) in [8, 32] sum (%[[K:\w+]]) in [32] {te.templated, schedule = [#te.split<"i0", 8>, #te.split<"i1", 32>, #te.split<"i1.i", 16>, #te.reorder<["i1.o", "i0.o", "r0", "i0.i", "i1.i.o", "i1.i.i"]>, #te.unroll<"i0.i">, #te.unroll<"i1.i.o">, #te.vectorize<"i1.i.i">]} : tensor<8x32xf32> {
// CHECK-NEXT:      %[[AIK:\w+]] = te.read %[[A]][%[[I]], %[[K]]] : tensor<8x32xf32>
// CHECK-NEXT:      %[[C16:\w+]] = arith.constant 16 : index
// CHECK-NEXT:      %[[P:\w+]] = arith.floordivsi %[[J]], %[[C16]] : index
// CHECK-NEXT:      %[[C16B:\w+]] = arith.constant 16 : index
// CHECK-NEXT:      %[[Q:\w+]] = arith.floordivsi %[[J]], %[[C16B]] : index
// CHECK-NEXT:      %[[QM:\w+]] = arith.muli %[[Q]], %[[C16B]] : index
// CHECK-NEXT:      %[[L:\w+]] = arith.subi %[[J]], %[[QM]] : index
// CHECK-NEXT:      %[[WPKL:\w+]] = te.read %[[W]][%[[P]], %[[K]], %[[L]]] : tensor<2x32x16xf32>
// CHECK-NEXT:      %[[PROD:\w+]] = arith.mulf %[[AIK]], %[[WPKL]] : f32
// CHECK-NEXT:      te.yield %[[PROD]] : f32
// CHECK-NEXT:    }
// CHECK-LABEL: func.func @matmul_packed_3(
// CHECK-NEXT:    te.compute (%{{\w+}}, %{{\w+}}) in [3, 48] sum (%{{\w+}}) in [64] {te.templated, schedule = [#te.split<"i0", 3>, #te.split<"i1", 16>, #te.reorder<["i1.o", "i0.o", "r0", "i0.i", "i1.i"]>, #te.unroll<"i0.i">, #te.vectorize<"i1.i">]} : tensor<3x48xf32> {
// CHECK-LABEL: func.func @matmul_4(
// CHECK-NEXT:    te.compute (%{{\w+}}, %{{\w+}}) in [1, 200] sum (%{{\w+}}) in [256] {te.templated, schedule = [#te.split<"i1", 40>, #te.reorder<["i1.o", "r0"]>, #te.split<"i1.i", 8>, #te.vectorize<"i1.i.i">]} : tensor<1x200xf32> {
// CHECK-LABEL: func.func @matmul_5(
// CHECK-NEXT:    te.compute (%{{\w+}}, %{{\w+}}) in [2, 200] sum (%{{\w+}}) in [256] {te.templated} : tensor<2x200xf32> {
func.func @main(%a: tensor<8x512xf32>, %b: tensor<512x128xf32>, %c: tensor<3x5xf32>, %d: tensor<5x10xf32>, %e: tensor<8x32xf32>, %w: tensor<2x32x16xf32>, %f: tensor<3x64xf32>, %v: tensor<3x64x16xf32>, %g: tensor<1x256xf32>, %h: tensor<256x200xf32>, %g2: tensor<2x256xf32>) -> (tensor<8x128xf32>, tensor<3x10xf32>, tensor<8x32xf32>, tensor<3x48xf32>, tensor<1x200xf32>, tensor<2x200xf32>) {
  %0 = graph.matmul %a, %b : (tensor<8x512xf32>, tensor<512x128xf32>) -> tensor<8x128xf32>
  %1 = graph.matmul %c, %d : (tensor<3x5xf32>, tensor<5x10xf32>) -> tensor<3x10xf32>
  %2 = graph.matmul_packed %e, %w : (tensor<8x32xf32>, tensor<2x32x16xf32>) -> tensor<8x32xf32>
  %3 = graph.matmul_packed %f, %v : (tensor<3x64xf32>, tensor<3x64x16xf32>) -> tensor<3x48xf32>
  %4 = graph.matmul %g, %h : (tensor<1x256xf32>, tensor<256x200xf32>) -> tensor<1x200xf32>
  %5 = graph.matmul %g2, %h : (tensor<2x256xf32>, tensor<256x200xf32>) -> tensor<2x200xf32>
  func.return %0, %1, %2, %3, %4, %5 : tensor<8x128xf32>, tensor<3x10xf32>, tensor<8x32xf32>, tensor<3x48xf32>, tensor<1x200xf32>, tensor<2x200xf32>
}

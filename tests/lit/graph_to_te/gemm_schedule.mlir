// A matmul whose shape the 4 x 64 register block divides gets the blocked default schedule;
// one it does not divide keeps the plain loop order.
// RUN: minitvm-opt %s -p convert-graph-to-te | filecheck %s

// CHECK-LABEL: func.func @matmul_0(
// CHECK-NEXT:    te.compute (%{{\w+}}, %{{\w+}}) in [8, 128] sum (%{{\w+}}) in [512] {schedule = [#te.split<"i0", 4>, #te.split<"i1", 64>, #te.split<"i1.i", 16>, #te.split<"r0", 256>, #te.reorder<["i1.o", "r0.o", "i0.o", "r0.i", "i0.i", "i1.i.o", "i1.i.i"]>, #te.unroll<"i0.i">, #te.unroll<"i1.i.o">, #te.vectorize<"i1.i.i">]} : tensor<8x128xf32> {
// CHECK-LABEL: func.func @matmul_1(
// CHECK-NEXT:    te.compute (%{{\w+}}, %{{\w+}}) in [3, 10] sum (%{{\w+}}) in [5] : tensor<3x10xf32> {
func.func @main(%a: tensor<8x512xf32>, %b: tensor<512x128xf32>, %c: tensor<3x5xf32>, %d: tensor<5x10xf32>) -> (tensor<8x128xf32>, tensor<3x10xf32>) {
  %0 = graph.matmul %a, %b : (tensor<8x512xf32>, tensor<512x128xf32>) -> tensor<8x128xf32>
  %1 = graph.matmul %c, %d : (tensor<3x5xf32>, tensor<5x10xf32>) -> tensor<3x10xf32>
  func.return %0, %1 : tensor<8x128xf32>, tensor<3x10xf32>
}

// A graph.argsort of k positions, k known only at run time (a TopK's k fed as an input),
// chooses as the run goes: where 4k <= n, the heap selection of k (its loops to the size k,
// its sifts as deep as floor(log2 k), counted), else the whole row merge-sorted into a
// buffer of n columns and its first k copied.
// RUN: minitvm-opt %s -p convert-graph-to-te,convert-te-to-loop | filecheck %s
// RUN: minitvm-opt %s -p convert-graph-to-te,convert-te-to-loop | minitvm-opt | filecheck %s

// CHECK-LABEL: func.func @main(%0: memref<2x9xf32>, %1: memref<?xf32, #graph.dims<"k">>, %2: memref<2x?xi64, #graph.dims<"k">>) attributes {loop.symbols = ["k"]} {
// CHECK-NEXT:    %[[FULL:\d+]] = loop.alloc : memref<2x9xi64>
// CHECK-NEXT:    %[[SCRATCH:\d+]] = loop.alloc : memref<9xi64>
// CHECK-NEXT:    %[[KEYS:\d+]] = loop.alloc : memref<9xf32>
// CHECK-NEXT:    %[[MERGED_KEYS:\d+]] = loop.alloc : memref<9xf32>
// CHECK-NEXT:    %[[N:\d+]] = arith.constant 9 : index
// CHECK-NEXT:    %[[K:\d+]] = loop.size "k"
// CHECK-NEXT:    %[[FOUR:\d+]] = arith.constant 4 : index
// CHECK-NEXT:    %[[K4:\d+]] = arith.muli %[[K]], %[[FOUR]] : index
// CHECK-NEXT:    %[[FEW:\d+]] = arith.cmpi sle, %[[K4]], %[[N]] : index
// CHECK-NEXT:    loop.if %[[FEW]] {
// CHECK:           %[[KS:\d+]] = loop.size "k"
// CHECK:           loop.for %[[R:\d+]] = 0 to 2 step 1 {
// CHECK-NEXT:        loop.for %[[T:\d+]] = 0 to %[[KS]] (at most 9) step 1 {
// CHECK-NEXT:          %[[AT:\d+]] = arith.index_cast %[[T]] : index to i64
// CHECK-NEXT:          loop.store %[[AT]], %2[%[[R]], %[[T]]] : i64, memref<2x?xi64, #graph.dims<"k">>
// CHECK-NEXT:        }
// CHECK-NEXT:        %{{\d+}} = arith.constant 0 : index
// CHECK-NEXT:        %[[DEPTH:\d+]] = loop.for %{{\d+}} = 0 to 4 step 1 iter_args
// CHECK:             %{{\d+}}, %{{\d+}} = loop.for %{{\d+}} = 0 to %[[DEPTH]] (at most 4) step 1 iter_args
// CHECK:         %[[NOT_FEW:\d+]] = arith.xori %[[FEW]], %{{\d+}} : i1
// CHECK-NEXT:    loop.if %[[NOT_FEW]] {
// CHECK:             loop.for %{{\d+}} = 0 to %{{\d+}} (at most 9) step 1 iter_args
// The first k columns of the sorted rows.
// CHECK:             %[[K2:\d+]] = loop.size "k"
// CHECK-NEXT:        loop.for %[[C:\d+]] = 0 to %[[K2]] (at most 9) step 1 {
// CHECK-NEXT:          %[[V:\d+]] = loop.load %[[FULL]][%[[R2:\d+]], %[[C]]] : memref<2x9xi64> -> i64
// CHECK-NEXT:          loop.store %[[V]], %2[%[[R2]], %[[C]]] : i64, memref<2x?xi64, #graph.dims<"k">>
// CHECK-NEXT:        }
func.func @main(%x: tensor<2x9xf32>, %k: tensor<?xf32, #graph.dims<"k">>) -> tensor<2x?xi64, #graph.dims<"k">> {
  %i = graph.argsort %x {descending = 1 : i64} : tensor<2x9xf32> -> tensor<2x?xi64, #graph.dims<"k">>
  func.return %i : tensor<2x?xi64, #graph.dims<"k">>
}

// convert-te-to-loop with symbolic sizes: buffers keep their dims' expressions
// (`memref<?x8xf32, #graph.dims<"batch*seq">>`), a loop over a symbolic extent runs to a
// `loop.size` (bounded by what the symbols' ranges allow; sizes are computed at the
// kernel's top), the kernel takes the symbols' values as trailing index arguments
// (`loop.symbols` names them) and @main passes them. The outer loop runs on the threads
// with its run-time trip count.
// RUN: minitvm-opt %s -p convert-te-to-loop | filecheck %s
// RUN: minitvm-opt %s -p convert-te-to-loop | minitvm-opt | filecheck %s
// RUN: minitvm-opt %s -p convert-te-to-loop --print-op-generic | minitvm-opt | filecheck %s

// CHECK-LABEL: func.func @rows_0(
// CHECK-SAME:    %[[X:\w+]]: memref<?x?x8xf32, #graph.dims<"batch", "seq">>, %[[Y:\w+]]: memref<?x8xf32, #graph.dims<"batch*seq">>, %batch: index, %seq: index) attributes {loop.kernel, loop.symbols = ["batch", "seq"]} {
// CHECK-NEXT:    %[[N:\w+]] = loop.size "batch*seq"
// CHECK-NEXT:    %[[S:\w+]] = loop.size "seq"
// CHECK-NEXT:    loop.for %[[I:\w+]] = 0 to %[[N]] (at most 4611686014132420609) step 1 {
// CHECK-NEXT:      loop.for %[[J:\w+]] = 0 to 8 step 1 {
// CHECK-NEXT:        %[[B:\w+]] = arith.floordivsi %[[I]], %[[S]] : index
// CHECK-NEXT:        %[[T:\w+]] = arith.remsi %[[I]], %[[S]] : index
// CHECK-NEXT:        %[[V:\w+]] = loop.load %[[X]][%[[B]], %[[T]], %[[J]]] : memref<?x?x8xf32, #graph.dims<"batch", "seq">> -> f32
// CHECK-NEXT:        loop.store %[[V]], %[[Y]][%[[I]], %[[J]]] : f32, memref<?x8xf32, #graph.dims<"batch*seq">>
// CHECK-NEXT:      }
// CHECK-NEXT:    } {parallel}
// CHECK-NEXT:    func.return
// CHECK-LABEL: func.func @main(
// CHECK-SAME:    attributes {loop.symbols = ["batch", "seq"]} {
// CHECK-NEXT:    %[[BATCH:\w+]] = loop.size "batch"
// CHECK-NEXT:    %[[SEQ:\w+]] = loop.size "seq"
// CHECK-NEXT:    func.call @rows_0(%{{\w+}}, %{{\w+}}, %[[BATCH]], %[[SEQ]])
func.func @rows_0(%0: tensor<?x?x8xf32, #graph.dims<"batch", "seq">>) -> tensor<?x8xf32, #graph.dims<"batch*seq">> attributes {te.kernel} {
  %1 = te.compute (%i0, %i1) in ["batch*seq", 8] : tensor<?x8xf32, #graph.dims<"batch*seq">> {
    %2 = te.size "seq"
    %3 = arith.floordivsi %i0, %2 : index
    %4 = arith.remsi %i0, %2 : index
    %5 = te.read %0[%3, %4, %i1] : tensor<?x?x8xf32, #graph.dims<"batch", "seq">>
    te.yield %5 : f32
  }
  func.return %1 : tensor<?x8xf32, #graph.dims<"batch*seq">>
}
func.func @main(%x: tensor<?x?x8xf32, #graph.dims<"batch", "seq">>) -> tensor<?x8xf32, #graph.dims<"batch*seq">> {
  %0 = func.call @rows_0(%x) : (tensor<?x?x8xf32, #graph.dims<"batch", "seq">>) -> tensor<?x8xf32, #graph.dims<"batch*seq">>
  func.return %0 : tensor<?x8xf32, #graph.dims<"batch*seq">>
}

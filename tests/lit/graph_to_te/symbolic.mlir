// convert-graph-to-te with symbolic sizes: extents are quoted expressions (`in ["batch*seq",
// 8]`), and index arithmetic that needs a size reads it with `te.size` (the reshape's row
// length, the mean's count). The te text round-trips, in custom and generic form.
// RUN: minitvm-opt %s -p convert-graph-to-te | filecheck %s
// RUN: minitvm-opt %s -p convert-graph-to-te | minitvm-opt | filecheck %s
// RUN: minitvm-opt %s -p convert-graph-to-te --print-op-generic | minitvm-opt | filecheck %s
// te-default-schedule gives such kernels their templates' schedules, chosen as if each
// symbol had a middling size (`size_hints`): the mean's division runs in the sum's nest.
// RUN: minitvm-opt %s -p convert-graph-to-te,te-default-schedule | filecheck %s --check-prefix=SCHED
// SCHED: te.compute (%{{.*}}) in ["batch", 1, 8] {schedule = [#te.compute_at<"anchor", "i1">, #te.vectorize<"i2">]}

// [batch, seq, 8] -> [batch*seq, 8]: row i0 is x[i0 floordiv seq, i0 mod seq].
// CHECK-LABEL: func.func @reshape_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<?x?x8xf32, #graph.dims<"batch", "seq">>) -> tensor<?x8xf32, #graph.dims<"batch*seq">> attributes {te.kernel} {
// CHECK-NEXT:    %[[R:\w+]] = te.compute (%[[I:\w+]], %[[J:\w+]]) in ["batch*seq", 8] : tensor<?x8xf32, #graph.dims<"batch*seq">> {
// CHECK-NEXT:      %[[S:\w+]] = te.size "seq"
// CHECK-NEXT:      %[[B:\w+]] = arith.floordivsi %[[I]], %[[S]] : index
// CHECK-NEXT:      %[[S2:\w+]] = te.size "seq"
// CHECK-NEXT:      %[[Q:\w+]] = arith.floordivsi %[[I]], %[[S2]] : index
// CHECK-NEXT:      %[[QS:\w+]] = arith.muli %[[Q]], %[[S2]] : index
// CHECK-NEXT:      %[[T:\w+]] = arith.subi %[[I]], %[[QS]] : index
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[B]], %[[T]], %[[J]]] : tensor<?x?x8xf32, #graph.dims<"batch", "seq">>
// CHECK-NEXT:      te.yield %[[V]] : f32
// CHECK-NEXT:    }

// The mean over seq: a sum over a symbolic extent, divided by seq read as a size.
// CHECK-LABEL: func.func @reduce_mean_1(
// CHECK:         %[[SUM:\w+]] = te.compute "anchor" (%{{.*}}, %{{.*}}, %{{.*}}) in ["batch", 1, 8] sum (%{{.*}}) in ["seq"] : tensor<?x1x8xf32, #graph.dims<"batch">> {
// CHECK:         te.compute (%{{.*}}) in ["batch", 1, 8] : tensor<?x1x8xf32, #graph.dims<"batch">> {
// CHECK-NEXT:      %[[T:\w+]] = te.read %[[SUM]]
// CHECK-NEXT:      %[[N:\w+]] = te.size "seq"
// CHECK-NEXT:      %[[NI:\w+]] = arith.index_cast %[[N]] : index to i64
// CHECK-NEXT:      %[[NF:\w+]] = arith.sitofp %[[NI]] : i64 to f32
// CHECK-NEXT:      %{{.*}} = arith.divf %[[T]], %[[NF]] : f32
func.func @main(%x: tensor<?x?x8xf32, #graph.dims<"batch", "seq">>) -> (tensor<?x8xf32, #graph.dims<"batch*seq">>, tensor<?x1x8xf32, #graph.dims<"batch">>) {
  %flat = graph.reshape %x : tensor<?x?x8xf32, #graph.dims<"batch", "seq">> to tensor<?x8xf32, #graph.dims<"batch*seq">>
  %mean = graph.reduce_mean %x {axes = array<i64: 1>} : tensor<?x?x8xf32, #graph.dims<"batch", "seq">> -> tensor<?x1x8xf32, #graph.dims<"batch">>
  func.return %flat, %mean : tensor<?x8xf32, #graph.dims<"batch*seq">>, tensor<?x1x8xf32, #graph.dims<"batch">>
}

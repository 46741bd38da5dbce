// convert-graph-to-te with symbolic sizes: extents are quoted expressions (`in ["batch*seq",
// 8]`), and index arithmetic that needs a size reads it with `te.size` (the reshape's row
// length, the mean's count, a graph.reshape_to_sizes's row-major position). The te text
// round-trips, in custom and generic form.
// RUN: minitvm-opt %s -p convert-graph-to-te | filecheck %s
// RUN: minitvm-opt %s -p convert-graph-to-te | minitvm-opt | filecheck %s
// RUN: minitvm-opt %s -p convert-graph-to-te --print-op-generic | minitvm-opt | filecheck %s
// te-default-schedule gives such kernels their templates' schedules, chosen as if each
// symbol had a middling size (`size_hints`): the mean's division runs in the sum's nest.
// RUN: minitvm-opt %s -p convert-graph-to-te,te-default-schedule | filecheck %s --check-prefix=SCHED
// SCHED: te.compute (%{{.*}}) in ["batch", 1, 8] {schedule = [#te.compute_at<"anchor", "i1">, #te.vectorize<"i2">]}

// [batch, seq, 8] -> [batch*seq, 8]: row i0 is x[i0 floordiv seq, i0 mod seq] (in a fused
// group: alone in @main a reshape is a view, no kernel).
// CHECK-LABEL: func.func @fused_reshape_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<?x?x8xf32, #graph.dims<"batch", "seq">>) -> tensor<?x8xf32, #graph.dims<"batch*seq">> attributes {te.kernel, te.fused} {
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

// graph.reshape_to_sizes of a flat 24 to the sizes of two (grouped) iotas: a kernel of the
// input and the size vectors (their values unread), computing over the sizes' symbols and
// reading the input at the row-major position i0 * y_len1 + i1, y_len1 read with te.size.
// CHECK-LABEL: func.func @reshape_to_sizes_2(
// CHECK-SAME:    %[[V:\w+]]: tensor<24xf32>, %{{\w+}}: tensor<?xi64, #graph.dims<"y_len0">>, %{{\w+}}: tensor<?xi64, #graph.dims<"y_len1">>) -> tensor<?x?xf32, #graph.dims<"y_len0", "y_len1">> attributes {te.kernel} {
// CHECK-NEXT:    %[[R:\w+]] = te.compute (%[[I:\w+]], %[[J:\w+]]) in ["y_len0", "y_len1"] : tensor<?x?xf32, #graph.dims<"y_len0", "y_len1">> {
// CHECK-NEXT:      %[[N1:\w+]] = te.size "y_len1"
// CHECK-NEXT:      %[[IN:\w+]] = arith.muli %[[I]], %[[N1]] : index
// CHECK-NEXT:      %[[LIN:\w+]] = arith.addi %[[IN]], %[[J]] : index
// CHECK-NEXT:      %[[E:\w+]] = te.read %[[V]][%[[LIN]]] : tensor<24xf32>
// CHECK-NEXT:      te.yield %[[E]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : tensor<?x?xf32, #graph.dims<"y_len0", "y_len1">>

// An input of more than one dim: the row-major position ((i0 * b) + i1) * c + i2 taken apart
// along its shape 2x1x12: [lin floordiv 12, 0 (a unit dim), lin mod 12].
// CHECK-LABEL: func.func @reshape_to_sizes_3(
// CHECK-SAME:    %[[W:\w+]]: tensor<2x1x12xf32>, %{{\w+}}: tensor<?xi64, #graph.dims<"a">>, %{{\w+}}: tensor<?xi64, #graph.dims<"b">>, %{{\w+}}: tensor<?xi64, #graph.dims<"c">>) -> tensor<?x?x?xf32, #graph.dims<"a", "b", "c">> attributes {te.kernel} {
// CHECK-NEXT:    te.compute (%[[I:\w+]], %[[J:\w+]], %[[K:\w+]]) in ["a", "b", "c"] : tensor<?x?x?xf32, #graph.dims<"a", "b", "c">> {
// CHECK-NEXT:      %[[B:\w+]] = te.size "b"
// CHECK-NEXT:      %[[IB:\w+]] = arith.muli %[[I]], %[[B]] : index
// CHECK-NEXT:      %[[IJ:\w+]] = arith.addi %[[IB]], %[[J]] : index
// CHECK-NEXT:      %[[C:\w+]] = te.size "c"
// CHECK-NEXT:      %[[IJC:\w+]] = arith.muli %[[IJ]], %[[C]] : index
// CHECK-NEXT:      %[[LIN:\w+]] = arith.addi %[[IJC]], %[[K]] : index
// CHECK-NEXT:      %[[C12:\w+]] = arith.constant 12 : index
// CHECK-NEXT:      %[[Q:\w+]] = arith.floordivsi %[[LIN]], %[[C12]] : index
// CHECK-NEXT:      %[[Q12:\w+]] = arith.muli %[[Q]], %[[C12]] : index
// CHECK-NEXT:      %[[COL:\w+]] = arith.subi %[[LIN]], %[[Q12]] : index
// CHECK-NEXT:      %[[C12B:\w+]] = arith.constant 12 : index
// CHECK-NEXT:      %[[ROW:\w+]] = arith.floordivsi %[[LIN]], %[[C12B]] : index
// CHECK-NEXT:      %[[ZERO:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[E:\w+]] = te.read %[[W]][%[[ROW]], %[[ZERO]], %[[COL]]] : tensor<2x1x12xf32>
// CHECK-NEXT:      te.yield %[[E]] : f32
// CHECK-NEXT:    }

// @main keeps the iotas (and their group) and calls the kernels with the size vectors.
// CHECK-LABEL: func.func @main(
// CHECK:         %[[I0:\w+]] = graph.iota %{{\w+}} {group = "y_dims"} : tensor<i64> -> tensor<?xi64, #graph.dims<"y_len0">>
// CHECK-NEXT:    %[[I1:\w+]] = graph.iota %{{\w+}} {group = "y_dims"} : tensor<i64> -> tensor<?xi64, #graph.dims<"y_len1">>
// CHECK-NEXT:    %{{\w+}} = func.call @reshape_to_sizes_2(%{{\w+}}, %[[I0]], %[[I1]])
// CHECK-NEXT:    %{{\w+}} = func.call @reshape_to_sizes_3(
func.func @main(%x: tensor<?x?x8xf32, #graph.dims<"batch", "seq">>, %v: tensor<24xf32>, %n0: tensor<i64>, %n1: tensor<i64>, %w: tensor<2x1x12xf32>, %a: tensor<?xi64, #graph.dims<"a">>, %b: tensor<?xi64, #graph.dims<"b">>, %c: tensor<?xi64, #graph.dims<"c">>) -> (tensor<?x8xf32, #graph.dims<"batch*seq">>, tensor<?x1x8xf32, #graph.dims<"batch">>, tensor<?x?xf32, #graph.dims<"y_len0", "y_len1">>, tensor<?x?x?xf32, #graph.dims<"a", "b", "c">>) {
  %flat = graph.fused "reshape" (%x) : (tensor<?x?x8xf32, #graph.dims<"batch", "seq">>) -> tensor<?x8xf32, #graph.dims<"batch*seq">> {
  ^bb0(%e: tensor<?x?x8xf32, #graph.dims<"batch", "seq">>):
    %r = graph.reshape %e : tensor<?x?x8xf32, #graph.dims<"batch", "seq">> to tensor<?x8xf32, #graph.dims<"batch*seq">>
    graph.yield %r : tensor<?x8xf32, #graph.dims<"batch*seq">>
  }
  %mean = graph.reduce_mean %x {axes = array<i64: 1>} : tensor<?x?x8xf32, #graph.dims<"batch", "seq">> -> tensor<?x1x8xf32, #graph.dims<"batch">>
  %i0 = graph.iota %n0 {group = "y_dims"} : tensor<i64> -> tensor<?xi64, #graph.dims<"y_len0">>
  %i1 = graph.iota %n1 {group = "y_dims"} : tensor<i64> -> tensor<?xi64, #graph.dims<"y_len1">>
  %y = graph.reshape_to_sizes %v to %i0, %i1 : tensor<24xf32>, tensor<?xi64, #graph.dims<"y_len0">>, tensor<?xi64, #graph.dims<"y_len1">> -> tensor<?x?xf32, #graph.dims<"y_len0", "y_len1">>
  %z = graph.reshape_to_sizes %w to %a, %b, %c : tensor<2x1x12xf32>, tensor<?xi64, #graph.dims<"a">>, tensor<?xi64, #graph.dims<"b">>, tensor<?xi64, #graph.dims<"c">> -> tensor<?x?x?xf32, #graph.dims<"a", "b", "c">>
  func.return %flat, %mean, %y, %z : tensor<?x8xf32, #graph.dims<"batch*seq">>, tensor<?x1x8xf32, #graph.dims<"batch">>, tensor<?x?xf32, #graph.dims<"y_len0", "y_len1">>, tensor<?x?x?xf32, #graph.dims<"a", "b", "c">>
}

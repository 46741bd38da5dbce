// convert-graph-to-te on data movement and reductions: every result element reads one input
// element at an index computed from the result index; reads whose index is meaningful only
// under a condition (concat, gather) read at a clamped index and a select discards them.
// No schedule is attached; a reduce_mean, whose division follows its sum, is a te.fused
// kernel with the sum as its "anchor". The SCHED prefix checks the default schedules
// te-default-schedule then attaches (a transpose's tiles, the division at the anchor).
// RUN: minitvm-opt %s --split-input-file -p convert-graph-to-te | filecheck %s
// RUN: minitvm-opt %s --split-input-file -p convert-graph-to-te,te-default-schedule | filecheck %s --check-prefix=SCHED

// reshape 2x6 -> 3x4 merges and re-splits: linear = i * 4 + j, then x[linear floordiv 6,
// linear mod 6] (mod as linear - (linear floordiv 6) * 6).
// CHECK-LABEL: func.func @reshape_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<2x6xf32>) -> tensor<3x4xf32> attributes {te.kernel} {
// CHECK-NEXT:    %[[R:\w+]] = te.compute (%[[I:\w+]], %[[J:\w+]]) in [3, 4] : tensor<3x4xf32> {
// CHECK-NEXT:      %[[C4:\w+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[I4:\w+]] = arith.muli %[[I]], %[[C4]] : index
// CHECK-NEXT:      %[[LIN:\w+]] = arith.addi %[[I4]], %[[J]] : index
// CHECK-NEXT:      %[[C6:\w+]] = arith.constant 6 : index
// CHECK-NEXT:      %[[ROW:\w+]] = arith.floordivsi %[[LIN]], %[[C6]] : index
// CHECK-NEXT:      %[[C6B:\w+]] = arith.constant 6 : index
// CHECK-NEXT:      %[[Q:\w+]] = arith.floordivsi %[[LIN]], %[[C6B]] : index
// CHECK-NEXT:      %[[Q6:\w+]] = arith.muli %[[Q]], %[[C6B]] : index
// CHECK-NEXT:      %[[COL:\w+]] = arith.subi %[[LIN]], %[[Q6]] : index
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[ROW]], %[[COL]]] : tensor<2x6xf32>
// CHECK-NEXT:      te.yield %[[V]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : tensor<3x4xf32>
func.func @main(%x: tensor<2x6xf32>) -> tensor<3x4xf32> {
  %0 = graph.reshape %x : tensor<2x6xf32> to tensor<3x4xf32>
  func.return %0 : tensor<3x4xf32>
}

// -----

// A reshape that only inserts a unit dim maps dims one to one: no index arithmetic.
// CHECK-LABEL: func.func @reshape_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<2x6xf32>) -> tensor<2x1x6xf32> attributes {te.kernel} {
// CHECK-NEXT:    %[[R:\w+]] = te.compute (%[[I:\w+]], %[[U:\w+]], %[[J:\w+]]) in [2, 1, 6] : tensor<2x1x6xf32> {
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[I]], %[[J]]] : tensor<2x6xf32>
// CHECK-NEXT:      te.yield %[[V]] : f32
// CHECK-NEXT:    }
func.func @main(%x: tensor<2x6xf32>) -> tensor<2x1x6xf32> {
  %0 = graph.reshape %x : tensor<2x6xf32> to tensor<2x1x6xf32>
  func.return %0 : tensor<2x1x6xf32>
}

// -----

// transpose with perm (2, 0, 1): result[i0, i1, i2] = x[i1, i2, i0]. Scheduled (SCHED), the
// transpose template's default: tiles of all of i0 (x is contiguous along it) x all of i2,
// i0 unrolled.
// CHECK-LABEL: func.func @transpose_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> attributes {te.kernel} {
// CHECK-NEXT:    %[[R:\w+]] = te.compute (%[[I0:\w+]], %[[I1:\w+]], %[[I2:\w+]]) in [4, 2, 3] : tensor<4x2x3xf32> {
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[I1]], %[[I2]], %[[I0]]] : tensor<2x3x4xf32>
// CHECK-NEXT:      te.yield %[[V]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : tensor<4x2x3xf32>
// SCHED-LABEL: func.func @transpose_0(
// SCHED-NEXT:    te.compute (%{{.*}}) in [4, 2, 3] {schedule = [#te.reorder<["i1", "i0", "i2"]>, #te.unroll<"i0">]} : tensor<4x2x3xf32> {
func.func @main(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = graph.transpose %x {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  func.return %0 : tensor<4x2x3xf32>
}

// -----

// concat along axis 1 of widths 3 and 5: select(j < 3, x[i, min(j, 2)], y[i, max(j - 3, 0)]);
// each input is clamped only on the side the other input's range lies.
// CHECK-LABEL: func.func @concat_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<2x3xf32>, %[[Y:\w+]]: tensor<2x5xf32>) -> tensor<2x8xf32> attributes {te.kernel} {
// CHECK-NEXT:    %[[R:\w+]] = te.compute (%[[I:\w+]], %[[J:\w+]]) in [2, 8] : tensor<2x8xf32> {
// CHECK-NEXT:      %[[C3:\w+]] = arith.constant 3 : index
// CHECK-NEXT:      %[[JY:\w+]] = arith.subi %[[J]], %[[C3]] : index
// CHECK-NEXT:      %[[C0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[JYC:\w+]] = arith.maxsi %[[JY]], %[[C0]] : index
// CHECK-NEXT:      %[[VY:\w+]] = te.read %[[Y]][%[[I]], %[[JYC]]] : tensor<2x5xf32>
// CHECK-NEXT:      %[[END:\w+]] = arith.constant 3 : index
// CHECK-NEXT:      %[[INX:\w+]] = arith.cmpi slt, %[[J]], %[[END]] : index
// CHECK-NEXT:      %[[C2:\w+]] = arith.constant 2 : index
// CHECK-NEXT:      %[[JXC:\w+]] = arith.minsi %[[J]], %[[C2]] : index
// CHECK-NEXT:      %[[VX:\w+]] = te.read %[[X]][%[[I]], %[[JXC]]] : tensor<2x3xf32>
// CHECK-NEXT:      %[[V:\w+]] = arith.select %[[INX]], %[[VX]], %[[VY]] : f32
// CHECK-NEXT:      te.yield %[[V]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : tensor<2x8xf32>
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x5xf32>) -> tensor<2x8xf32> {
  %0 = graph.concat %x, %y {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  func.return %0 : tensor<2x8xf32>
}

// -----

// gather along axis 0: the index is read, cast to index, wrapped if negative (g + 10) and
// clamped into [0, 9] before it addresses the data.
// CHECK-LABEL: func.func @gather_0(
// CHECK-SAME:    %[[D:\w+]]: tensor<10x6xf32>, %[[IDX:\w+]]: tensor<4xi64>) -> tensor<4x6xf32> attributes {te.kernel} {
// CHECK-NEXT:    %[[R:\w+]] = te.compute (%[[I:\w+]], %[[J:\w+]]) in [4, 6] : tensor<4x6xf32> {
// CHECK-NEXT:      %[[G64:\w+]] = te.read %[[IDX]][%[[I]]] : tensor<4xi64>
// CHECK-NEXT:      %[[G:\w+]] = arith.index_cast %[[G64]] : i64 to index
// CHECK-NEXT:      %[[C0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[NEG:\w+]] = arith.cmpi slt, %[[G]], %[[C0]] : index
// CHECK-NEXT:      %[[C10:\w+]] = arith.constant 10 : index
// CHECK-NEXT:      %[[WRAP:\w+]] = arith.addi %[[G]], %[[C10]] : index
// CHECK-NEXT:      %[[GW:\w+]] = arith.select %[[NEG]], %[[WRAP]], %[[G]] : index
// CHECK-NEXT:      %[[Z:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[LO:\w+]] = arith.maxsi %[[GW]], %[[Z]] : index
// CHECK-NEXT:      %[[C9:\w+]] = arith.constant 9 : index
// CHECK-NEXT:      %[[GC:\w+]] = arith.minsi %[[LO]], %[[C9]] : index
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[D]][%[[GC]], %[[J]]] : tensor<10x6xf32>
// CHECK-NEXT:      te.yield %[[V]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : tensor<4x6xf32>
func.func @main(%z: tensor<10x6xf32>, %i: tensor<4xi64>) -> tensor<4x6xf32> {
  %0 = graph.gather %z, %i {axis = 0 : i64} : (tensor<10x6xf32>, tensor<4xi64>) -> tensor<4x6xf32>
  func.return %0 : tensor<4x6xf32>
}

// -----

// reduce_mean over axes (1, 2) with keepdims: a sum with two reduction axes, then the
// division by their element count (4 * 3) in a second compute, which te-default-schedule
// runs at the anchor's innermost loop i2.
// CHECK-LABEL: func.func @reduce_mean_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<2x4x3xf32>) -> tensor<2x1x1xf32> attributes {te.kernel, te.fused} {
// CHECK-NEXT:    %[[SUM:\w+]] = te.compute "anchor" (%[[I:\w+]], %[[K1:\w+]], %[[K2:\w+]]) in [2, 1, 1] sum (%[[R1:\w+]], %[[R2:\w+]]) in [4, 3] : tensor<2x1x1xf32> {
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[I]], %[[R1]], %[[R2]]] : tensor<2x4x3xf32>
// CHECK-NEXT:      te.yield %[[V]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[MEAN:\w+]] = te.compute (%[[I:\w+]], %[[K1:\w+]], %[[K2:\w+]]) in [2, 1, 1] : tensor<2x1x1xf32> {
// CHECK-NEXT:      %[[S:\w+]] = te.read %[[SUM]][%[[I]], %[[K1]], %[[K2]]] : tensor<2x1x1xf32>
// CHECK-NEXT:      %[[N:\w+]] = arith.constant 1.200000e+01 : f32
// CHECK-NEXT:      %[[Q:\w+]] = arith.divf %[[S]], %[[N]] : f32
// CHECK-NEXT:      te.yield %[[Q]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[MEAN]] : tensor<2x1x1xf32>
// SCHED-LABEL: func.func @reduce_mean_0(
// SCHED-NEXT:    %[[SUM:\w+]] = te.compute "anchor" (%{{.*}}) in [2, 1, 1] sum (%{{.*}}) in [4, 3] : tensor<2x1x1xf32> {
// SCHED:         te.compute (%{{.*}}) in [2, 1, 1] {schedule = [#te.compute_at<"anchor", "i2">]} : tensor<2x1x1xf32> {
// SCHED-NEXT:      te.read %[[SUM]]
func.func @main(%x: tensor<2x4x3xf32>) -> tensor<2x1x1xf32> {
  %0 = graph.reduce_mean %x {axes = array<i64: 1, 2>, keepdims = 1 : i64} : tensor<2x4x3xf32> -> tensor<2x1x1xf32>
  func.return %0 : tensor<2x1x1xf32>
}

// -----

// Without keepdims the reduced dims are gone from the result (and from the index space);
// the division runs at the anchor's one loop i0.
// CHECK-LABEL: func.func @reduce_mean_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<2x4x3xf32>) -> tensor<3xf32> attributes {te.kernel, te.fused} {
// CHECK-NEXT:    %[[SUM:\w+]] = te.compute "anchor" (%[[K:\w+]]) in [3] sum (%[[R0:\w+]], %[[R1:\w+]]) in [2, 4] : tensor<3xf32> {
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[R0]], %[[R1]], %[[K]]] : tensor<2x4x3xf32>
// CHECK-NEXT:      te.yield %[[V]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[MEAN:\w+]] = te.compute (%[[K:\w+]]) in [3] : tensor<3xf32> {
// CHECK-NEXT:      %[[S:\w+]] = te.read %[[SUM]][%[[K]]] : tensor<3xf32>
// CHECK-NEXT:      %[[N:\w+]] = arith.constant 8.000000e+00 : f32
// SCHED-LABEL: func.func @reduce_mean_0(
// SCHED-NEXT:    %[[SUM:\w+]] = te.compute "anchor" (%{{.*}}) in [3] sum (%{{.*}}) in [2, 4] : tensor<3xf32> {
// SCHED:         te.compute (%{{.*}}) in [3] {schedule = [#te.compute_at<"anchor", "i0">]} : tensor<3xf32> {
// SCHED-NEXT:      te.read %[[SUM]]
func.func @main(%x: tensor<2x4x3xf32>) -> tensor<3xf32> {
  %0 = graph.reduce_mean %x {axes = array<i64: 0, 1>, keepdims = 0 : i64} : tensor<2x4x3xf32> -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

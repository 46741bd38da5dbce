// convert-graph-to-te on data movement and reductions: every result element reads one input
// element at an index computed from the result index; reads whose index is meaningful only
// under a condition (concat, gather) read at a clamped index and a select discards them.
// No schedule is attached; a reduce_mean, whose division follows its sum, is a te.fused
// kernel with the sum as its "anchor". The SCHED prefix checks the default schedules
// te-default-schedule then attaches (a transpose's tiles, the division at the anchor).
// RUN: minitvm-opt %s --split-input-file -p convert-graph-to-te | filecheck %s
// RUN: minitvm-opt %s --split-input-file -p convert-graph-to-te,te-default-schedule | filecheck %s --check-prefix=SCHED

// reshape 2x6 -> 3x4 merges and re-splits: linear = i * 4 + j, then x[linear floordiv 6,
// linear mod 6] (mod as linear - (linear floordiv 6) * 6). (A reshape alone in @main is a
// view, no kernel: main.mlir. In a fused group it is a compute, as here.)
// CHECK-LABEL: func.func @fused_reshape_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<2x6xf32>) -> tensor<3x4xf32> attributes {te.kernel, te.fused} {
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
  %0 = graph.fused "reshape" (%x) : (tensor<2x6xf32>) -> tensor<3x4xf32> {
  ^bb0(%a: tensor<2x6xf32>):
    %r = graph.reshape %a : tensor<2x6xf32> to tensor<3x4xf32>
    graph.yield %r : tensor<3x4xf32>
  }
  func.return %0 : tensor<3x4xf32>
}

// -----

// A reshape that only inserts a unit dim maps dims one to one: no index arithmetic.
// CHECK-LABEL: func.func @fused_reshape_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<2x6xf32>) -> tensor<2x1x6xf32> attributes {te.kernel, te.fused} {
// CHECK-NEXT:    %[[R:\w+]] = te.compute (%[[I:\w+]], %[[U:\w+]], %[[J:\w+]]) in [2, 1, 6] : tensor<2x1x6xf32> {
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[I]], %[[J]]] : tensor<2x6xf32>
// CHECK-NEXT:      te.yield %[[V]] : f32
// CHECK-NEXT:    }
func.func @main(%x: tensor<2x6xf32>) -> tensor<2x1x6xf32> {
  %0 = graph.fused "reshape" (%x) : (tensor<2x6xf32>) -> tensor<2x1x6xf32> {
  ^bb0(%a: tensor<2x6xf32>):
    %r = graph.reshape %a : tensor<2x6xf32> to tensor<2x1x6xf32>
    graph.yield %r : tensor<2x1x6xf32>
  }
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

// gather_elements along axis 0: the index read at the result's own position, cast, wrapped
// if negative (g + 3) and clamped into [0, 2], replaces the row; the column is the result's.
// CHECK-LABEL: func.func @gather_elements_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<3x4xf32>, %[[IDX:\w+]]: tensor<2x4xi64>) -> tensor<2x4xf32> attributes {te.kernel} {
// CHECK-NEXT:    %[[R:\w+]] = te.compute (%[[I:\w+]], %[[J:\w+]]) in [2, 4] : tensor<2x4xf32> {
// CHECK-NEXT:      %[[G64:\w+]] = te.read %[[IDX]][%[[I]], %[[J]]] : tensor<2x4xi64>
// CHECK-NEXT:      %[[G:\w+]] = arith.index_cast %[[G64]] : i64 to index
// CHECK-NEXT:      %[[C0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[NEG:\w+]] = arith.cmpi slt, %[[G]], %[[C0]] : index
// CHECK-NEXT:      %[[C3:\w+]] = arith.constant 3 : index
// CHECK-NEXT:      %[[WRAP:\w+]] = arith.addi %[[G]], %[[C3]] : index
// CHECK-NEXT:      %[[GW:\w+]] = arith.select %[[NEG]], %[[WRAP]], %[[G]] : index
// CHECK-NEXT:      %[[Z:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[LO:\w+]] = arith.maxsi %[[GW]], %[[Z]] : index
// CHECK-NEXT:      %[[C2:\w+]] = arith.constant 2 : index
// CHECK-NEXT:      %[[GC:\w+]] = arith.minsi %[[LO]], %[[C2]] : index
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[GC]], %[[J]]] : tensor<3x4xf32>
// CHECK-NEXT:      te.yield %[[V]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : tensor<2x4xf32>
func.func @main(%x: tensor<3x4xf32>, %i: tensor<2x4xi64>) -> tensor<2x4xf32> {
  %0 = graph.gather_elements %x, %i {axis = 0 : i64} : (tensor<3x4xf32>, tensor<2x4xi64>) -> tensor<2x4xf32>
  func.return %0 : tensor<2x4xf32>
}

// -----

// gather_nd with batch_dims 1 and 1-entry tuples: result[b, q, j] = x[b, t, j], t read from
// indices[b, q, 0] (wrapped, clamped as gather's).
// CHECK-LABEL: func.func @gather_nd_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<2x3x4xf32>, %[[IDX:\w+]]: tensor<2x5x1xi64>) -> tensor<2x5x4xf32> attributes {te.kernel} {
// CHECK-NEXT:    %[[R:\w+]] = te.compute (%[[I:\w+]], %[[J:\w+]], %[[K:\w+]]) in [2, 5, 4] : tensor<2x5x4xf32> {
// CHECK-NEXT:      %[[C0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[T64:\w+]] = te.read %[[IDX]][%[[I]], %[[J]], %[[C0]]] : tensor<2x5x1xi64>
// CHECK-NEXT:      %[[T:\w+]] = arith.index_cast %[[T64]] : i64 to index
// CHECK-NEXT:      %[[Z:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[NEG:\w+]] = arith.cmpi slt, %[[T]], %[[Z]] : index
// CHECK-NEXT:      %[[C3:\w+]] = arith.constant 3 : index
// CHECK-NEXT:      %[[WRAP:\w+]] = arith.addi %[[T]], %[[C3]] : index
// CHECK-NEXT:      %[[TW:\w+]] = arith.select %[[NEG]], %[[WRAP]], %[[T]] : index
// CHECK-NEXT:      %[[Z2:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[LO:\w+]] = arith.maxsi %[[TW]], %[[Z2]] : index
// CHECK-NEXT:      %[[C2:\w+]] = arith.constant 2 : index
// CHECK-NEXT:      %[[TC:\w+]] = arith.minsi %[[LO]], %[[C2]] : index
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[I]], %[[TC]], %[[K]]] : tensor<2x3x4xf32>
// CHECK-NEXT:      te.yield %[[V]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : tensor<2x5x4xf32>
func.func @main(%x: tensor<2x3x4xf32>, %i: tensor<2x5x1xi64>) -> tensor<2x5x4xf32> {
  %0 = graph.gather_nd %x, %i {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x5x1xi64>) -> tensor<2x5x4xf32>
  func.return %0 : tensor<2x5x4xf32>
}

// -----

// scatter_elements (axis 1, add): a sum over the 2 update columns of each result row, each
// term the update if its index (wrapped) is the result's column and the row exists in the
// 2-row indices (row reads clamped to 1), else 0; then the data plus that sum.
// CHECK-LABEL: func.func @scatter_elements_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<3x5xf32>, %[[IDX:\w+]]: tensor<2x2xi64>, %[[U:\w+]]: tensor<2x2xf32>) -> tensor<3x5xf32> attributes {te.kernel} {
// CHECK-NEXT:    %[[SUM:\w+]] = te.compute (%[[I:\w+]], %[[J:\w+]]) in [3, 5] sum (%[[RR:\w+]]) in [2] : tensor<3x5xf32> {
// CHECK-NEXT:      %[[C1:\w+]] = arith.constant 1 : index
// CHECK-NEXT:      %[[ROW:\w+]] = arith.minsi %[[I]], %[[C1]] : index
// CHECK-NEXT:      %[[G64:\w+]] = te.read %[[IDX]][%[[ROW]], %[[RR]]] : tensor<2x2xi64>
// CHECK-NEXT:      %[[G:\w+]] = arith.index_cast %[[G64]] : i64 to index
// CHECK-NEXT:      %[[C0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[NEG:\w+]] = arith.cmpi slt, %[[G]], %[[C0]] : index
// CHECK-NEXT:      %[[C5:\w+]] = arith.constant 5 : index
// CHECK-NEXT:      %[[WRAP:\w+]] = arith.addi %[[G]], %[[C5]] : index
// CHECK-NEXT:      %[[GW:\w+]] = arith.select %[[NEG]], %[[WRAP]], %[[G]] : index
// CHECK-NEXT:      %[[COL:\w+]] = arith.cmpi eq, %[[GW]], %[[J]] : index
// CHECK-NEXT:      %[[C2:\w+]] = arith.constant 2 : index
// CHECK-NEXT:      %[[INROW:\w+]] = arith.cmpi slt, %[[I]], %[[C2]] : index
// CHECK-NEXT:      %[[HIT:\w+]] = arith.andi %[[COL]], %[[INROW]] : i1
// CHECK-NEXT:      %[[C1B:\w+]] = arith.constant 1 : index
// CHECK-NEXT:      %[[ROWU:\w+]] = arith.minsi %[[I]], %[[C1B]] : index
// CHECK-NEXT:      %[[UPD:\w+]] = te.read %[[U]][%[[ROWU]], %[[RR]]] : tensor<2x2xf32>
// CHECK-NEXT:      %[[ZERO:\w+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[TERM:\w+]] = arith.select %[[HIT]], %[[UPD]], %[[ZERO]] : f32
// CHECK-NEXT:      te.yield %[[TERM]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[R:\w+]] = te.compute (%[[I2:\w+]], %[[J2:\w+]]) in [3, 5] : tensor<3x5xf32> {
// CHECK-NEXT:      %[[D:\w+]] = te.read %[[X]][%[[I2]], %[[J2]]] : tensor<3x5xf32>
// CHECK-NEXT:      %[[S:\w+]] = te.read %[[SUM]][%[[I2]], %[[J2]]] : tensor<3x5xf32>
// CHECK-NEXT:      %[[V:\w+]] = arith.addf %[[D]], %[[S]] : f32
// CHECK-NEXT:      te.yield %[[V]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : tensor<3x5xf32>
func.func @main(%x: tensor<3x5xf32>, %i: tensor<2x2xi64>, %u: tensor<2x2xf32>) -> tensor<3x5xf32> {
  %0 = graph.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "add"} : (tensor<3x5xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<3x5xf32>
  func.return %0 : tensor<3x5xf32>
}

// -----

// scatter_nd without reduction: the last hitting update wins. A max over the update rows
// finds the last one whose index is the result's row (-1 if none); the result reads that
// update (its index clamped to >= 0) or else the data.
// CHECK-LABEL: func.func @scatter_nd_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<4x3xf32>, %[[IDX:\w+]]: tensor<2x1xi64>, %[[U:\w+]]: tensor<2x3xf32>) -> tensor<4x3xf32> attributes {te.kernel} {
// CHECK-NEXT:    %[[LAST:\w+]] = te.compute (%[[I:\w+]], %[[J:\w+]]) in [4, 3] max (%[[RR:\w+]]) in [2] : tensor<4x3xi64> {
// CHECK-NEXT:      %[[C0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[G64:\w+]] = te.read %[[IDX]][%[[RR]], %[[C0]]] : tensor<2x1xi64>
// CHECK-NEXT:      %[[G:\w+]] = arith.index_cast %[[G64]] : i64 to index
// CHECK-NEXT:      %[[Z:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[NEG:\w+]] = arith.cmpi slt, %[[G]], %[[Z]] : index
// CHECK-NEXT:      %[[C4:\w+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[WRAP:\w+]] = arith.addi %[[G]], %[[C4]] : index
// CHECK-NEXT:      %[[GW:\w+]] = arith.select %[[NEG]], %[[WRAP]], %[[G]] : index
// CHECK-NEXT:      %[[HIT:\w+]] = arith.cmpi eq, %[[GW]], %[[I]] : index
// CHECK-NEXT:      %[[ORD:\w+]] = arith.index_cast %[[RR]] : index to i64
// CHECK-NEXT:      %[[NONE:\w+]] = arith.constant -1 : i64
// CHECK-NEXT:      %[[TERM:\w+]] = arith.select %[[HIT]], %[[ORD]], %[[NONE]] : i64
// CHECK-NEXT:      te.yield %[[TERM]] : i64
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[R:\w+]] = te.compute (%[[I2:\w+]], %[[J2:\w+]]) in [4, 3] : tensor<4x3xf32> {
// CHECK-NEXT:      %[[W64:\w+]] = te.read %[[LAST]][%[[I2]], %[[J2]]] : tensor<4x3xi64>
// CHECK-NEXT:      %[[W:\w+]] = arith.index_cast %[[W64]] : i64 to index
// CHECK-NEXT:      %[[Z2:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[HAS:\w+]] = arith.cmpi sge, %[[W]], %[[Z2]] : index
// CHECK-NEXT:      %[[Z3:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[WC:\w+]] = arith.maxsi %[[W]], %[[Z3]] : index
// CHECK-NEXT:      %[[UPD:\w+]] = te.read %[[U]][%[[WC]], %[[J2]]] : tensor<2x3xf32>
// CHECK-NEXT:      %[[D:\w+]] = te.read %[[X]][%[[I2]], %[[J2]]] : tensor<4x3xf32>
// CHECK-NEXT:      %[[V:\w+]] = arith.select %[[HAS]], %[[UPD]], %[[D]] : f32
// CHECK-NEXT:      te.yield %[[V]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : tensor<4x3xf32>
func.func @main(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %0 = graph.scatter_nd %x, %i, %u : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  func.return %0 : tensor<4x3xf32>
}

// -----

// cum_sum exclusive along axis 1, on ui32: a sum over the whole axis, terms r0 < i1 kept,
// others 0 (O(n^2) along the axis; f32, f64 and signless integers stay in @main for
// convert-te-to-loop's scan, te_to_loop/cum_sum.mlir).
// CHECK-LABEL: func.func @cum_sum_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<2x5xui32>) -> tensor<2x5xui32> attributes {te.kernel} {
// CHECK-NEXT:    %[[R:\w+]] = te.compute (%[[I:\w+]], %[[J:\w+]]) in [2, 5] sum (%[[RR:\w+]]) in [5] : tensor<2x5xui32> {
// CHECK-NEXT:      %[[TAKE:\w+]] = arith.cmpi slt, %[[RR]], %[[J]] : index
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[I]], %[[RR]]] : tensor<2x5xui32>
// CHECK-NEXT:      %[[Z:\w+]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[ZERO:\w+]] = arith.bitcast %[[Z]] : i32 to ui32
// CHECK-NEXT:      %[[TERM:\w+]] = arith.select %[[TAKE]], %[[V]], %[[ZERO]] : ui32
// CHECK-NEXT:      te.yield %[[TERM]] : ui32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : tensor<2x5xui32>
func.func @main(%x: tensor<2x5xui32>) -> tensor<2x5xui32> {
  %0 = graph.cum_sum %x {axis = 1 : i64, exclusive = 1 : i64} : tensor<2x5xui32> -> tensor<2x5xui32>
  func.return %0 : tensor<2x5xui32>
}

// -----

// cum_prod reversed, on ui32: the terms r0 >= i0, the others 1.
// CHECK-LABEL: func.func @cum_prod_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<5xui32>) -> tensor<5xui32> attributes {te.kernel} {
// CHECK-NEXT:    %[[R:\w+]] = te.compute (%[[I:\w+]]) in [5] prod (%[[RR:\w+]]) in [5] : tensor<5xui32> {
// CHECK-NEXT:      %[[TAKE:\w+]] = arith.cmpi sge, %[[RR]], %[[I]] : index
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[RR]]] : tensor<5xui32>
// CHECK-NEXT:      %[[I1:\w+]] = arith.constant 1 : i32
// CHECK-NEXT:      %[[ONE:\w+]] = arith.bitcast %[[I1]] : i32 to ui32
// CHECK-NEXT:      %[[TERM:\w+]] = arith.select %[[TAKE]], %[[V]], %[[ONE]] : ui32
// CHECK-NEXT:      te.yield %[[TERM]] : ui32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : tensor<5xui32>
func.func @main(%x: tensor<5xui32>) -> tensor<5xui32> {
  %0 = graph.cum_prod %x {axis = 0 : i64, reverse = 1 : i64} : tensor<5xui32> -> tensor<5xui32>
  func.return %0 : tensor<5xui32>
}

// -----

// cum_sum of f32 stays in @main (convert-te-to-loop writes it as a scan): no kernel.
// CHECK:       builtin.module {
// CHECK-NEXT:    func.func @main(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
// CHECK-NEXT:      %0 = graph.cum_sum %x {axis = 1 : i64} : tensor<2x5xf32> -> tensor<2x5xf32>
// CHECK-NEXT:      func.return %0 : tensor<2x5xf32>
func.func @main(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = graph.cum_sum %x {axis = 1 : i64} : tensor<2x5xf32> -> tensor<2x5xf32>
  func.return %0 : tensor<2x5xf32>
}

// -----

// reverse_sequence with batch_axis 1: L = sequence_lens[i1] clamped into [0, 4]; row i0
// reads L - 1 - i0 below L, else i0.
// CHECK-LABEL: func.func @reverse_sequence_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<4x3xf32>, %[[LENS:\w+]]: tensor<3xi64>) -> tensor<4x3xf32> attributes {te.kernel} {
// CHECK-NEXT:    %[[R:\w+]] = te.compute (%[[I:\w+]], %[[J:\w+]]) in [4, 3] : tensor<4x3xf32> {
// CHECK-NEXT:      %[[L64:\w+]] = te.read %[[LENS]][%[[J]]] : tensor<3xi64>
// CHECK-NEXT:      %[[L:\w+]] = arith.index_cast %[[L64]] : i64 to index
// CHECK-NEXT:      %[[Z:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[LO:\w+]] = arith.maxsi %[[L]], %[[Z]] : index
// CHECK-NEXT:      %[[C4:\w+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[LC:\w+]] = arith.minsi %[[LO]], %[[C4]] : index
// CHECK-NEXT:      %[[BELOW:\w+]] = arith.cmpi slt, %[[I]], %[[LC]] : index
// CHECK-NEXT:      %[[C1:\w+]] = arith.constant 1 : index
// CHECK-NEXT:      %[[LAST:\w+]] = arith.subi %[[LC]], %[[C1]] : index
// CHECK-NEXT:      %[[REV:\w+]] = arith.subi %[[LAST]], %[[I]] : index
// CHECK-NEXT:      %[[T:\w+]] = arith.select %[[BELOW]], %[[REV]], %[[I]] : index
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[T]], %[[J]]] : tensor<4x3xf32>
// CHECK-NEXT:      te.yield %[[V]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : tensor<4x3xf32>
func.func @main(%x: tensor<4x3xf32>, %n: tensor<3xi64>) -> tensor<4x3xf32> {
  %0 = graph.reverse_sequence %x, %n {batch_axis = 1 : i64, time_axis = 0 : i64} : (tensor<4x3xf32>, tensor<3xi64>) -> tensor<4x3xf32>
  func.return %0 : tensor<4x3xf32>
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

// -----

// reduce_prod: the te "prod" reduction (from 1), here of integers; a reduction loop of whole
// vectors gets the reduction template's vector accumulator, as a reduce_sum's does.
// CHECK-LABEL: func.func @reduce_prod_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<4x64xi32>) -> tensor<4x1xi32> attributes {te.kernel} {
// CHECK-NEXT:    %[[P:\w+]] = te.compute (%[[I:\w+]], %[[K:\w+]]) in [4, 1] prod (%[[R:\w+]]) in [64] : tensor<4x1xi32> {
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[I]], %[[R]]] : tensor<4x64xi32>
// CHECK-NEXT:      te.yield %[[V]] : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[P]] : tensor<4x1xi32>
// SCHED-LABEL: func.func @reduce_prod_0(
// SCHED-NEXT:    te.compute (%{{.*}}) in [4, 1] prod (%{{.*}}) in [64] {schedule = [#te.vectorize<"r0">]} : tensor<4x1xi32> {
func.func @main(%x: tensor<4x64xi32>) -> tensor<4x1xi32> {
  %0 = graph.reduce_prod %x {axes = array<i64: 1>} : tensor<4x64xi32> -> tensor<4x1xi32>
  func.return %0 : tensor<4x1xi32>
}

// -----

// reduce_l2: the squares summed (a pre-map in the reduction's body), then sqrt in an epilogue
// compute that te-default-schedule runs at the anchor.
// CHECK-LABEL: func.func @reduce_l2_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<2x32xf32>) -> tensor<2x1xf32> attributes {te.kernel, te.fused} {
// CHECK-NEXT:    %[[SUM:\w+]] = te.compute "anchor" (%[[I:\w+]], %[[K:\w+]]) in [2, 1] sum (%[[R:\w+]]) in [32] : tensor<2x1xf32> {
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[I]], %[[R]]] : tensor<2x32xf32>
// CHECK-NEXT:      %[[SQ:\w+]] = arith.mulf %[[V]], %[[V]] : f32
// CHECK-NEXT:      te.yield %[[SQ]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[L2:\w+]] = te.compute (%[[I:\w+]], %[[K:\w+]]) in [2, 1] : tensor<2x1xf32> {
// CHECK-NEXT:      %[[S:\w+]] = te.read %[[SUM]][%[[I]], %[[K]]] : tensor<2x1xf32>
// CHECK-NEXT:      %[[ROOT:\w+]] = math.sqrt %[[S]] : f32
// CHECK-NEXT:      te.yield %[[ROOT]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[L2]] : tensor<2x1xf32>
// SCHED-LABEL: func.func @reduce_l2_0(
// SCHED-NEXT:    %[[SUM:\w+]] = te.compute "anchor" (%{{.*}}) in [2, 1] sum (%{{.*}}) in [32] {schedule = [#te.vectorize<"r0">]} : tensor<2x1xf32> {
// SCHED:         te.compute (%{{.*}}) in [2, 1] {schedule = [#te.compute_at<"anchor", "i1">]} : tensor<2x1xf32> {
// SCHED-NEXT:      te.read %[[SUM]]
func.func @main(%x: tensor<2x32xf32>) -> tensor<2x1xf32> {
  %0 = graph.reduce_l2 %x {axes = array<i64: 1>} : tensor<2x32xf32> -> tensor<2x1xf32>
  func.return %0 : tensor<2x1xf32>
}

// -----

// reduce_log_sum_exp, stable: m = max(x), shift = (|m| == inf ? 0 : m), sum of exp(x - shift),
// then log(sum) + shift at the anchor.
// CHECK-LABEL: func.func @reduce_log_sum_exp_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<2x32xf32>) -> tensor<2xf32> attributes {te.kernel, te.fused} {
// CHECK-NEXT:    %[[M:\w+]] = te.compute (%[[I:\w+]]) in [2] max (%[[R:\w+]]) in [32] : tensor<2xf32> {
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[I]], %[[R]]] : tensor<2x32xf32>
// CHECK-NEXT:      te.yield %[[V]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[SUM:\w+]] = te.compute "anchor" (%[[I:\w+]]) in [2] sum (%[[R:\w+]]) in [32] : tensor<2xf32> {
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[I]], %[[R]]] : tensor<2x32xf32>
// CHECK-NEXT:      %[[MV:\w+]] = te.read %[[M]][%[[I]]] : tensor<2xf32>
// CHECK-NEXT:      %[[ABS:\w+]] = math.absf %[[MV]] : f32
// CHECK-NEXT:      %[[INF:\w+]] = arith.constant 0x7f800000 : f32
// CHECK-NEXT:      %[[ISINF:\w+]] = arith.cmpf oeq, %[[ABS]], %[[INF]] : f32
// CHECK-NEXT:      %[[ZERO:\w+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[SHIFT:\w+]] = arith.select %[[ISINF]], %[[ZERO]], %[[MV]] : f32
// CHECK-NEXT:      %[[D:\w+]] = arith.subf %[[V]], %[[SHIFT]] : f32
// CHECK-NEXT:      %[[E:\w+]] = math.exp %[[D]] : f32
// CHECK-NEXT:      te.yield %[[E]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[Y:\w+]] = te.compute (%[[I:\w+]]) in [2] : tensor<2xf32> {
// CHECK-NEXT:      %[[S:\w+]] = te.read %[[SUM]][%[[I]]] : tensor<2xf32>
// CHECK-NEXT:      %[[LOG:\w+]] = math.log %[[S]] : f32
// CHECK-NEXT:      %[[MV:\w+]] = te.read %[[M]][%[[I]]] : tensor<2xf32>
// CHECK:           %[[SHIFT:\w+]] = arith.select %{{\w+}}, %{{\w+}}, %[[MV]] : f32
// CHECK-NEXT:      %[[LSE:\w+]] = arith.addf %[[LOG]], %[[SHIFT]] : f32
// CHECK-NEXT:      te.yield %[[LSE]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[Y]] : tensor<2xf32>
// SCHED-LABEL: func.func @reduce_log_sum_exp_0(
// SCHED-NEXT:    te.compute (%{{.*}}) in [2] max (%{{.*}}) in [32] {schedule = [#te.vectorize<"r0">]} : tensor<2xf32> {
// SCHED:         te.compute "anchor" (%{{.*}}) in [2] sum (%{{.*}}) in [32] {schedule = [#te.vectorize<"r0">]} : tensor<2xf32> {
// SCHED:         te.compute (%{{.*}}) in [2] {schedule = [#te.compute_at<"anchor", "i0">]} : tensor<2xf32> {
func.func @main(%x: tensor<2x32xf32>) -> tensor<2xf32> {
  %0 = graph.reduce_log_sum_exp %x {axes = array<i64: 1>, keepdims = 0 : i64} : tensor<2x32xf32> -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

// arg_max along axis 0, last index: m = max of x with NaNs as -inf, then the max of the
// indices r where x == m (-1 elsewhere); a NaN at index 0 makes the answer 0.
// CHECK-LABEL: func.func @arg_max_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<3x5xf32>) -> tensor<5xi64> attributes {te.kernel, te.fused} {
// CHECK-NEXT:    %[[M:\w+]] = te.compute (%[[J:\w+]]) in [5] max (%[[R:\w+]]) in [3] : tensor<5xf32> {
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[R]], %[[J]]] : tensor<3x5xf32>
// CHECK-NEXT:      %[[NAN:\w+]] = arith.cmpf une, %[[V]], %[[V]] : f32
// CHECK-NEXT:      %[[NINF:\w+]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:      %[[W:\w+]] = arith.select %[[NAN]], %[[NINF]], %[[V]] : f32
// CHECK-NEXT:      te.yield %[[W]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[IDX:\w+]] = te.compute "anchor" (%[[J:\w+]]) in [5] max (%[[R:\w+]]) in [3] : tensor<5xi64> {
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[R]], %[[J]]] : tensor<3x5xf32>
// CHECK-NEXT:      %[[MV:\w+]] = te.read %[[M]][%[[J]]] : tensor<5xf32>
// CHECK-NEXT:      %[[HIT:\w+]] = arith.cmpf oeq, %[[V]], %[[MV]] : f32
// CHECK-NEXT:      %[[RI:\w+]] = arith.index_cast %[[R]] : index to i64
// CHECK-NEXT:      %[[NONE:\w+]] = arith.constant -1 : i64
// CHECK-NEXT:      %[[CAND:\w+]] = arith.select %[[HIT]], %[[RI]], %[[NONE]] : i64
// CHECK-NEXT:      %[[C0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[FIRST:\w+]] = te.read %[[X]][%[[C0]], %[[J]]] : tensor<3x5xf32>
// CHECK-NEXT:      %[[FNAN:\w+]] = arith.cmpf une, %[[FIRST]], %[[FIRST]] : f32
// CHECK-NEXT:      %[[Z:\w+]] = arith.constant 0 : i64
// CHECK-NEXT:      %[[OUT:\w+]] = arith.select %[[FNAN]], %[[Z]], %[[CAND]] : i64
// CHECK-NEXT:      te.yield %[[OUT]] : i64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[IDX]] : tensor<5xi64>
func.func @main(%x: tensor<3x5xf32>) -> tensor<5xi64> {
  %0 = graph.arg_max %x {axis = 0 : i64, keepdims = 0 : i64, select_last_index = 1 : i64} : tensor<3x5xf32> -> tensor<5xi64>
  func.return %0 : tensor<5xi64>
}

// -----

// graph.range: start + i * delta, in the result's element type.
// CHECK-LABEL: func.func @range_0() -> tensor<5xf32> attributes {te.kernel} {
// CHECK-NEXT:    %[[R:\w+]] = te.compute (%[[I:\w+]]) in [5] : tensor<5xf32> {
// CHECK-NEXT:      %[[N:\w+]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT:      %[[F:\w+]] = arith.sitofp %[[N]] : i64 to f32
// CHECK-NEXT:      %[[D:\w+]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:      %[[M:\w+]] = arith.mulf %[[F]], %[[D]] : f32
// CHECK-NEXT:      %[[S:\w+]] = arith.constant 1.500000e+00 : f32
// CHECK-NEXT:      %[[V:\w+]] = arith.addf %[[M]], %[[S]] : f32
// CHECK-NEXT:      te.yield %[[V]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : tensor<5xf32>
func.func @main() -> tensor<5xf32> {
  %0 = graph.range {start = 1.500000e+00 : f32, delta = 2.000000e+00 : f32} : tensor<5xf32>
  func.return %0 : tensor<5xf32>
}

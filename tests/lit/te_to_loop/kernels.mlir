// convert-te-to-loop: default loop orders, schedules and the destination-passing signature.
// RUN: minitvm-opt %s -p convert-te-to-loop | filecheck %s

// A matmul reads B[k, j] contiguously along j, so j goes innermost and the reduction
// accumulates in the output buffer (i-k-j order): each row is set to zero right before its
// accumulation starts.
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:    %[[A:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<8x16xf32>, %[[C:.*]]: memref<4x16xf32>)
// CHECK-SAME:    attributes {loop.kernel}
// CHECK-NEXT:    loop.for %[[M:.*]] = 0 to 4 step 1 {
// CHECK-NEXT:      loop.for %[[I1:.*]] = 0 to 16 step 1 {
// CHECK-NEXT:        %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:        loop.store %[[ZERO]], %[[C]][%[[M]], %[[I1]]] : f32, memref<4x16xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      loop.for %[[K:.*]] = 0 to 8 step 1 {
// CHECK-NEXT:        loop.for %[[N:.*]] = 0 to 16 step 1 {
// CHECK-NEXT:          %[[X:.*]] = loop.load %[[A]][%[[M]], %[[K]]] : memref<4x8xf32> -> f32
// CHECK-NEXT:          %[[Y:.*]] = loop.load %[[B]][%[[K]], %[[N]]] : memref<8x16xf32> -> f32
// CHECK-NEXT:          %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:          %[[OLD:.*]] = loop.load %[[C]][%[[M]], %[[N]]] : memref<4x16xf32> -> f32
// CHECK-NEXT:          %[[NEW:.*]] = arith.addf %[[OLD]], %[[P]] : f32
// CHECK-NEXT:          loop.store %[[NEW]], %[[C]][%[[M]], %[[N]]] : f32, memref<4x16xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @matmul(%A: tensor<4x8xf32>, %B: tensor<8x16xf32>) -> tensor<4x16xf32> attributes {te.kernel} {
  %c = te.compute (%i, %j) in [4, 16] sum (%k) in [8] : tensor<4x16xf32> {
    %a = te.read %A[%i, %k] : tensor<4x8xf32>
    %b = te.read %B[%k, %j] : tensor<8x16xf32>
    %p = arith.mulf %a, %b : f32
    te.yield %p : f32
  }
  func.return %c : tensor<4x16xf32>
}

// A row reduction reads x[i, r] along r: the reduction stays innermost and the accumulator
// is carried in a register (iter_args), stored once per row.
// CHECK-LABEL: func.func @row_max(
// CHECK-SAME:    %[[X:.*]]: memref<8x32xf32>, %[[OUT:.*]]: memref<8xf32>)
// CHECK-NEXT:    loop.for %[[I:.*]] = 0 to 8 step 1 {
// CHECK-NEXT:      %[[INIT:.*]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:      %[[MAX:.*]] = loop.for %[[R:.*]] = 0 to 32 step 1 iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32) {
// CHECK-NEXT:        %[[V:.*]] = loop.load %[[X]][%[[I]], %[[R]]] : memref<8x32xf32> -> f32
// CHECK-NEXT:        %[[M:.*]] = arith.maximumf %[[ACC]], %[[V]] : f32
// CHECK-NEXT:        loop.yield %[[M]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      loop.store %[[MAX]], %[[OUT]][%[[I]]] : f32, memref<8xf32>
// CHECK-NEXT:    }
func.func @row_max(%x: tensor<8x32xf32>) -> tensor<8xf32> attributes {te.kernel} {
  %m = te.compute (%i) in [8] max (%r) in [32] : tensor<8xf32> {
    %v = te.read %x[%i, %r] : tensor<8x32xf32>
    te.yield %v : f32
  }
  func.return %m : tensor<8xf32>
}

// split by a non-divisor: loops i1.o (2 whole tiles of 4) and i1.i (4), then the tile of the
// 2 columns left, neither guarded; reorder moves i1.o outermost; hints become loop attributes
// (on both parts). The first compute is read only element-for-element by the second, which
// therefore updates its buffer in place: no scratch.
// CHECK-LABEL: func.func @scheduled(
// CHECK-SAME:    %[[IN:.*]]: memref<2x10xf32>, %[[OUT:.*]]: memref<2x10xf32>) attributes {loop.kernel}
// CHECK:         loop.store %{{.*}}, %[[OUT]]
// CHECK:         loop.for %[[O:.*]] = 0 to 2 step 1 {
// CHECK-NEXT:      loop.for %[[I0:.*]] = 0 to 2 step 1 {
// CHECK-NEXT:        loop.for %[[II:.*]] = 0 to 4 step 1 {
// CHECK-NEXT:          %[[F:.*]] = arith.constant 4 : index
// CHECK-NEXT:          %[[OF:.*]] = arith.muli %[[O]], %[[F]] : index
// CHECK-NEXT:          %[[J:.*]] = arith.addi %[[OF]], %[[II]] : index
// CHECK-NEXT:          loop.load %[[OUT]][%[[I0]], %[[J]]]
// CHECK:               loop.store %{{.*}}, %[[OUT]]
// CHECK-NEXT:        } {unroll, vectorize}
// CHECK-NEXT:      }
// CHECK-NEXT:    } {parallel}
// CHECK-NEXT:    %[[WHOLE:.*]] = arith.constant 2 : index
// CHECK-NEXT:    loop.for %[[T:.*]] = 0 to 1 step 1 {
// CHECK-NEXT:      arith.addi %[[WHOLE]], %[[T]] : index
// CHECK-NEXT:      loop.for %{{.*}} = 0 to 2 step 1 {
// CHECK-NEXT:        loop.for %{{.*}} = 0 to 2 step 1 {
// CHECK-NOT:           loop.if
// CHECK:               loop.store %{{.*}}, %[[OUT]]
// CHECK-NEXT:        } {unroll, vectorize}
// CHECK-NEXT:      }
// CHECK-NEXT:    } {parallel}
func.func @scheduled(%x: tensor<2x10xf32>) -> tensor<2x10xf32> attributes {te.kernel} {
  %t = te.compute (%i, %j) in [2, 10] : tensor<2x10xf32> {
    %v = te.read %x[%i, %j] : tensor<2x10xf32>
    %e = math.exp %v : f32
    te.yield %e : f32
  }
  %r = te.compute (%i, %j) in [2, 10] {schedule = [#te.split<"i1", 4>, #te.reorder<["i1.o", "i0"]>, #te.vectorize<"i1.i">, #te.unroll<"i1.i">, #te.parallel<"i1.o">]} : tensor<2x10xf32> {
    %v = te.read %t[%i, %j] : tensor<2x10xf32>
    %n = arith.negf %v : f32
    te.yield %n : f32
  }
  func.return %r : tensor<2x10xf32>
}

// A split whose partial tile is split again (a GEMM's column block of 8 in vectors of 4, on
// 11 columns): the whole tile of 8 (2 vectors of 4), then the 3 columns left, whose inner
// split is peeled in turn: no whole vector (no loop for them), then one piece of 3.
// Nothing is guarded.
// CHECK-LABEL: func.func @nested_partial(
// CHECK-NOT:     loop.if
// CHECK:         loop.for %{{.*}} = 0 to 1 step 1 {
// CHECK-NEXT:      loop.for %{{.*}} = 0 to 2 step 1 {
// CHECK-NEXT:        loop.for %{{.*}} = 0 to 4 step 1 {
// CHECK:             } {vectorize}
// CHECK-NEXT:      } {unroll}
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[WHOLE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    loop.for %[[T:.*]] = 0 to 1 step 1 {
// CHECK-NEXT:      arith.addi %[[WHOLE]], %[[T]] : index
// CHECK-NEXT:      %[[VECTORS:.*]] = arith.constant 0 : index
// CHECK-NEXT:      loop.for %[[U:.*]] = 0 to 1 step 1 {
// CHECK-NEXT:        arith.addi %[[VECTORS]], %[[U]] : index
// CHECK-NEXT:        loop.for %{{.*}} = 0 to 3 step 1 {
// CHECK-NOT:           loop.if
// CHECK:             } {vectorize}
// CHECK-NEXT:      } {unroll}
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @nested_partial(%x: tensor<11xf32>) -> tensor<11xf32> attributes {te.kernel} {
  %r = te.compute (%j) in [11] {schedule = [#te.split<"i0", 8>, #te.split<"i0.i", 4>, #te.unroll<"i0.i.o">, #te.vectorize<"i0.i.i">]} : tensor<11xf32> {
    %v = te.read %x[%j] : tensor<11xf32>
    %n = arith.negf %v : f32
    te.yield %n : f32
  }
  func.return %r : tensor<11xf32>
}

// A compute read at other elements than the one being written (a transpose) keeps its own
// scratch buffer, passed as an extra argument.
// CHECK-LABEL: func.func @needs_scratch(
// CHECK-SAME:    %[[X:.*]]: memref<3x3xf32>, %[[OUT:.*]]: memref<3x3xf32>, %[[TMP:.*]]: memref<3x3xf32>)
// CHECK:         loop.store %{{.*}}, %[[TMP]]
// CHECK:         loop.load %[[TMP]][%[[A:.*]], %[[B:.*]]]
// CHECK-NEXT:    loop.store %{{.*}}, %[[OUT]][%[[B]], %[[A]]]
func.func @needs_scratch(%x: tensor<3x3xf32>) -> tensor<3x3xf32> attributes {te.kernel} {
  %t = te.compute (%i, %j) in [3, 3] : tensor<3x3xf32> {
    %v = te.read %x[%i, %j] : tensor<3x3xf32>
    %e = math.exp %v : f32
    te.yield %e : f32
  }
  %r = te.compute (%i, %j) in [3, 3] : tensor<3x3xf32> {
    %v = te.read %t[%j, %i] : tensor<3x3xf32>
    te.yield %v : f32
  }
  func.return %r : tensor<3x3xf32>
}

// An index divided by a constant that the loops do not decide alone: o = 2 * o_o + o_i, so
// o / 6 = o_o / 3 and o % 6 = 2 * (o_o % 3) + o_i (a channel's group, the same for the block
// o_i runs over). With 4 * o_o + o_i there is no such factor of 6, and the division stays.
// CHECK-LABEL: func.func @group_of_a_block(
// CHECK:           %[[OO:\w+]] = 0 to 12 step 1 {
// CHECK-NEXT:        loop.for %[[OI:\w+]] = 0 to 2 step 1 {
// CHECK:               %[[THREE:\w+]] = arith.constant 3 : index
// CHECK-NEXT:          %[[G:\w+]] = arith.divui %[[OO]], %[[THREE]] : index
// CHECK-NEXT:          %[[THREE2:\w+]] = arith.constant 3 : index
// CHECK-NEXT:          %[[M:\w+]] = arith.remui %[[OO]], %[[THREE2]] : index
// CHECK-NEXT:          %[[TWO:\w+]] = arith.constant 2 : index
// CHECK-NEXT:          %[[M2:\w+]] = arith.muli %[[M]], %[[TWO]] : index
// CHECK-NEXT:          %[[R:\w+]] = arith.addi %[[M2]], %[[OI]] : index
// CHECK-NEXT:          %[[C:\w+]] = arith.addi %[[G]], %[[R]] : index
// CHECK-NEXT:          loop.load %{{\w+}}[%[[C]], %{{\w+}}] : memref<12x5xf32> -> f32
// CHECK-LABEL: func.func @no_factor(
// CHECK:               arith.floordivsi %{{\w+}}, %{{\w+}} : index
// CHECK-NEXT:          arith.remsi %{{\w+}}, %{{\w+}} : index
func.func @group_of_a_block(%x: tensor<12x5xf32>) -> tensor<24x5xf32> attributes {te.kernel} {
  %y = te.compute (%o, %p) in [24, 5] {schedule = [#te.split<"i0", 2>]} : tensor<24x5xf32> {
    %six = arith.constant 6 : index
    %g = arith.floordivsi %o, %six : index
    %r = arith.remsi %o, %six : index
    %c = arith.addi %g, %r : index
    %v = te.read %x[%c, %p] : tensor<12x5xf32>
    te.yield %v : f32
  }
  func.return %y : tensor<24x5xf32>
}
func.func @no_factor(%x: tensor<12x5xf32>) -> tensor<24x5xf32> attributes {te.kernel} {
  %y = te.compute (%o, %p) in [24, 5] {schedule = [#te.split<"i0", 4>]} : tensor<24x5xf32> {
    %six = arith.constant 6 : index
    %g = arith.floordivsi %o, %six : index
    %r = arith.remsi %o, %six : index
    %c = arith.addi %g, %r : index
    %v = te.read %x[%c, %p] : tensor<12x5xf32>
    te.yield %v : f32
  }
  func.return %y : tensor<24x5xf32>
}

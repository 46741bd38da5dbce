// te-fuse: append #te.fuse<outer, inner>: two adjacent loops become one loop outer.inner.fused
// of extent(outer) * extent(inner), whose iterations give back outer = fused / extent(inner)
// and inner = fused % extent(inner). Fusing the outer loops of a small batch and marking the
// fused loop parallel gives the threads 6 iterations to share instead of 2; the fused loop is
// outlined into a chunk function like any parallel loop. Reduction loops fuse too.
// RUN: minitvm-opt %s -p 'te-fuse{kernel=add compute=0 axes=i0,i1},te-parallel{kernel=add compute=0 axis=i0_i1_fused}' | filecheck %s
// RUN: minitvm-opt %s -p 'te-fuse{kernel=add compute=0 axes=i0,i1},te-parallel{kernel=add compute=0 axis=i0_i1_fused},convert-te-to-loop' | filecheck %s --check-prefix=LOOP
// RUN: minitvm-opt %s -p 'te-fuse{kernel=add compute=0 axes=i0,i1},te-parallel{kernel=add compute=0 axis=i0_i1_fused},convert-te-to-loop,convert-loop-to-llvm' | filecheck %s --check-prefix=LLVM
// RUN: minitvm-opt %s -p 'te-fuse{kernel=add_exp compute=sum axes=i0,i1},convert-te-to-loop' | filecheck %s --check-prefix=ATTACHED
// RUN: minitvm-opt %s --print-op-generic | minitvm-opt | filecheck %s --check-prefix=ROUNDTRIP
// RUN: not minitvm-opt %s -p 'te-fuse{kernel=window_sum compute=0 axes=i0,r0_r1_fused}' 2>&1 | filecheck %s --check-prefix=ERR-KIND
// RUN: not minitvm-opt %s -p 'te-fuse{kernel=add compute=0 axes=i0,i2}' 2>&1 | filecheck %s --check-prefix=ERR-ADJACENT

// CHECK-LABEL: func.func @add(
// CHECK-NEXT:    te.compute (%{{.*}}, %{{.*}}, %{{.*}}) in [2, 3, 16] {schedule = [#te.fuse<"i0", "i1">, #te.parallel<"i0.i1.fused">]} : tensor<2x3x16xf32> {

// LOOP-LABEL: func.func @add(
// LOOP-SAME:    %[[X:.*]]: memref<2x3x16xf32>, %[[Y:.*]]: memref<2x3x16xf32>)
// The fused loop's parts are recovered once per iteration, at the top of its body, not at
// each use in the loops inside it.
// LOOP-NEXT:    loop.for %[[F:.*]] = 0 to 6 step 1 {
// LOOP-NEXT:      %[[THREE:.*]] = arith.constant 3 : index
// LOOP-NEXT:      %[[I:.*]] = arith.divui %[[F]], %[[THREE]] : index
// LOOP-NEXT:      %[[THREE2:.*]] = arith.constant 3 : index
// LOOP-NEXT:      %[[J:.*]] = arith.remui %[[F]], %[[THREE2]] : index
// LOOP-NEXT:      loop.for %[[K:.*]] = 0 to 16 step 1 {
// LOOP-NEXT:        %{{.*}} = loop.load %[[X]][%[[I]], %[[J]], %[[K]]] : memref<2x3x16xf32> -> f32
// LOOP:             loop.store %{{.*}}, %[[Y]][%[[I]], %[[J]], %[[K]]] : f32, memref<2x3x16xf32>
// LOOP-NEXT:      }
// LOOP-NEXT:    } {parallel}

// The fused reduction loop carries the accumulator like any innermost reduction loop.
// LOOP-LABEL: func.func @window_sum(
// LOOP-SAME:    %[[X:.*]]: memref<4x4x8xf32>, %[[S:.*]]: memref<4xf32>)
// LOOP-NEXT:    loop.for %[[I:.*]] = 0 to 4 step 1 {
// LOOP-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// LOOP-NEXT:      %[[SUM:.*]] = loop.for %[[F:.*]] = 0 to 32 step 1 iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32) {
// LOOP-NEXT:        %[[EIGHT:.*]] = arith.constant 8 : index
// LOOP-NEXT:        %[[R:.*]] = arith.divui %[[F]], %[[EIGHT]] : index
// LOOP-NEXT:        %[[EIGHT2:.*]] = arith.constant 8 : index
// LOOP-NEXT:        %[[Q:.*]] = arith.remui %[[F]], %[[EIGHT2]] : index
// LOOP-NEXT:        %[[V:.*]] = loop.load %[[X]][%[[I]], %[[R]], %[[Q]]] : memref<4x4x8xf32> -> f32
// LOOP-NEXT:        %[[NEW:.*]] = arith.addf %[[ACC]], %[[V]] : f32
// LOOP-NEXT:        loop.yield %[[NEW]] : f32
// LOOP-NEXT:      }
// LOOP-NEXT:      loop.store %[[SUM]], %[[S]][%[[I]]] : f32, memref<4xf32>
// LOOP-NEXT:    }

// The kernel hands the fused loop's 6 iterations to the thread pool in chunks.
// LLVM-LABEL: llvm.func @add(
// LLVM:         %[[BODY:.*]] = llvm.mlir.addressof @add__par0_chunk : !llvm.ptr
// LLVM:         %[[TRIP:.*]] = llvm.mlir.constant(6) : i64
// LLVM:         llvm.call @__minitvm_parallel_for(%[[BODY]], %{{.*}}, %[[TRIP]])
// LLVM:       llvm.func @add__par0(
// LLVM:         llvm.udiv %i0_i1_fused
// LLVM:         llvm.urem %i0_i1_fused
// LLVM:       llvm.func @add__par0_chunk(

// An epilogue attached at a fused axis (i1) runs inside the fused loop and reads the
// indices the fused loop recovered.
// ATTACHED-LABEL: func.func @add_exp(
// ATTACHED-SAME:    %[[X:.*]]: memref<2x3x16xf32>, %[[Z:.*]]: memref<2x3x16xf32>)
// ATTACHED-NEXT:    loop.for %[[F:.*]] = 0 to 6 step 1 {
// ATTACHED-NEXT:      %[[THREE:.*]] = arith.constant 3 : index
// ATTACHED-NEXT:      %[[I:.*]] = arith.divui %[[F]], %[[THREE]] : index
// ATTACHED-NEXT:      %[[THREE2:.*]] = arith.constant 3 : index
// ATTACHED-NEXT:      %[[J:.*]] = arith.remui %[[F]], %[[THREE2]] : index
// ATTACHED-NEXT:      loop.for %{{.*}} = 0 to 16 step 1 {
// ATTACHED:             arith.addf
// ATTACHED:           }
// ATTACHED-NEXT:      loop.for %[[K:.*]] = 0 to 16 step 1 {
// ATTACHED-NEXT:        %[[V:.*]] = loop.load %[[Z]][%[[I]], %[[J]], %[[K]]] : memref<2x3x16xf32> -> f32
// ATTACHED-NEXT:        math.exp %[[V]] : f32
// ATTACHED:           }
// ATTACHED-NEXT:    }
// ATTACHED-NEXT:    func.return

// ROUNDTRIP-LABEL: func.func @window_sum(
// ROUNDTRIP-NEXT:    te.compute (%{{.*}}) in [4] sum (%{{.*}}, %{{.*}}) in [4, 8] {schedule = [#te.fuse<"r0", "r1">]} : tensor<4xf32> {

// ERR-KIND: error: @window_sum compute 0: schedule: cannot fuse the spatial loop 'i0' with the reduction loop 'r0.r1.fused'
// ERR-ADJACENT: error: @add compute 0: schedule: cannot fuse 'i0' and 'i2': 'i2' is not the loop right inside 'i0' (loops: i0, i1, i2); reorder them first
func.func @add(%x: tensor<2x3x16xf32>) -> tensor<2x3x16xf32> attributes {te.kernel} {
  %y = te.compute (%i, %j, %k) in [2, 3, 16] : tensor<2x3x16xf32> {
    %a = te.read %x[%i, %j, %k] : tensor<2x3x16xf32>
    %b = arith.addf %a, %a : f32
    te.yield %b : f32
  }
  func.return %y : tensor<2x3x16xf32>
}

func.func @window_sum(%x: tensor<4x4x8xf32>) -> tensor<4xf32> attributes {te.kernel} {
  %s = te.compute (%i) in [4] sum (%r, %q) in [4, 8] {schedule = [#te.fuse<"r0", "r1">]} : tensor<4xf32> {
    %a = te.read %x[%i, %r, %q] : tensor<4x4x8xf32>
    te.yield %a : f32
  }
  func.return %s : tensor<4xf32>
}

func.func @add_exp(%x: tensor<2x3x16xf32>) -> tensor<2x3x16xf32> attributes {te.kernel} {
  %y = te.compute "sum" (%i, %j, %k) in [2, 3, 16] : tensor<2x3x16xf32> {
    %a = te.read %x[%i, %j, %k] : tensor<2x3x16xf32>
    %b = arith.addf %a, %a : f32
    te.yield %b : f32
  }
  %z = te.compute (%i, %j, %k) in [2, 3, 16] {schedule = [#te.compute_at<"sum", "i1">]} : tensor<2x3x16xf32> {
    %a = te.read %y[%i, %j, %k] : tensor<2x3x16xf32>
    %b = math.exp %a : f32
    te.yield %b : f32
  }
  func.return %z : tensor<2x3x16xf32>
}
